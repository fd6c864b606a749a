// PTX of the shipped SIMT kernel shapes (tensor-cores=off; the tensor-core
// kernels: gpu-ptxas-tensor-cores.mlir) for sm_80 and sm_90: every kernel
// assembles with ptxas, with 0 spill bytes (the registers, stack and shared
// memory it reports are recorded in docs/CodegenGPU.md). The stack frame is
// the per-thread q / o / score arrays (private memory), not spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_80 fuse=false tensor-cores=off" -o %t/sm80.mlir
// RUN: %extract_gpu_objects %t/sm80.mlir %t/sm80 | FileCheck %s --check-prefix=FILES
// RUN: cat %t/sm80/prefill_f16_kernel.ptx | FileCheck %s --check-prefix=PTX
// RUN: grep -c bar.sync %t/sm80/prefill_f16_kernel.ptx | FileCheck %s --check-prefix=BARS
// RUN: for f in %t/sm80/*.ptx; do %ptxas -arch=sm_80 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM80
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_90 fuse=false tensor-cores=off" -o %t/sm90.mlir
// RUN: %extract_gpu_objects %t/sm90.mlir %t/sm90 | FileCheck %s --check-prefix=FILES
// RUN: for f in %t/sm90/*.ptx; do %ptxas -arch=sm_90 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM90

// FILES-DAG: decode_f16_kernel.ptx
// FILES-DAG: decode_f16_kernel_0.ptx
// FILES-DAG: prefill_bf16_alibi_kernel.ptx
// FILES-DAG: prefill_f16_kernel.ptx
// FILES-DAG: prefill_f32_d64_kernel.ptx
// FILES-DAG: rope_f32_kernel.ptx
// FILES-DAG: sinusoidal_f32_kernel.ptx

// K/V tiles through shared memory, two barriers per tile (LLVM may rotate
// the trailing one to the top of the tile loop), f16 converted on load.
// PTX: .target sm_80
// PTX: .shared .align 4 .b8
// PTX: cvt.f32.f16
// PTX: st.shared.b32
// PTX: bar.sync {{[[:space:]]*}}0
// PTX: ld.shared.{{(v4.)?}}b32
// BARS: 2

// SM80: Compiling entry function 'decode_f16_kernel' for 'sm_80'
// SM90: Compiling entry function 'decode_f16_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for decode_f16_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The split-KV combine kernel (module decode_f16_kernel_0): no stack.
// SM80: Compiling entry function 'decode_f16_kernel' for 'sm_80'
// SM90: Compiling entry function 'decode_f16_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for decode_f16_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'prefill_bf16_alibi_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_bf16_alibi_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_bf16_alibi_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'prefill_f16_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_f16_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_f16_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'prefill_f32_d64_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_f32_d64_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_f32_d64_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'rope_f32_kernel' for 'sm_80'
// SM90: Compiling entry function 'rope_f32_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for rope_f32_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'sinusoidal_f32_kernel' for 'sm_80'
// SM90: Compiling entry function 'sinusoidal_f32_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for sinusoidal_f32_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Llama-3 prefill: f16, 32 query heads over 8 KV heads, D = 128, RoPE (half),
// causal.
func.func @prefill_f16(%q: tensor<1x32x?x128xf16>, %k: tensor<1x8x?x128xf16>, %v: tensor<1x8x?x128xf16>, %f: tensor<64xf64>) -> tensor<1x32x?x128xf16> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x32x?x128xf16>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x32x?x128xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<64xf64>) outs(%attn_init0 : tensor<1x32x?x128xf16>) {causal} : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
  return %0 : tensor<1x32x?x128xf16>
}
// Gemma-2 / Mistral style: bf16 in [B, S, H, D], ALiBi, sliding window, softcap.
func.func @prefill_bf16_alibi(%q: tensor<1x?x32x128xbf16>, %k: tensor<1x?x8x128xbf16>, %v: tensor<1x?x8x128xbf16>) -> tensor<1x?x32x128xbf16> {
  %attn_c1_1 = arith.constant 1 : index
  %attn_d0_1_1 = tensor.dim %q, %attn_c1_1 : tensor<1x?x32x128xbf16>
  %attn_init1 = tensor.empty(%attn_d0_1_1) : tensor<1x?x32x128xbf16>
  %0 = pe.attention %q, %k, %v alibi <symmetric> outs(%attn_init1 : tensor<1x?x32x128xbf16>) {causal, window = 4096 : i64, softcap = 50.0, layout = #pe<attention_layout bshd>} : tensor<1x?x32x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16> -> tensor<1x?x32x128xbf16>
  return %0 : tensor<1x?x32x128xbf16>
}
// f32 on the FMA units, D = 64, partial interleaved RoPE.
func.func @prefill_f32_d64(%q: tensor<?x16x?x64xf32>, %k: tensor<?x16x?x64xf32>, %v: tensor<?x16x?x64xf32>, %f: tensor<16xf64>) -> tensor<?x16x?x64xf32> {
  %attn_c0_2 = arith.constant 0 : index
  %attn_d0_0_2 = tensor.dim %q, %attn_c0_2 : tensor<?x16x?x64xf32>
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %q, %attn_c2_2 : tensor<?x16x?x64xf32>
  %attn_init2 = tensor.empty(%attn_d0_0_2, %attn_d0_2_2) : tensor<?x16x?x64xf32>
  %0 = pe.attention %q, %k, %v rope <interleaved, rotary_dim = 32> inv_freq(%f : tensor<16xf64>) outs(%attn_init2 : tensor<?x16x?x64xf32>) {causal} : tensor<?x16x?x64xf32>, tensor<?x16x?x64xf32>, tensor<?x16x?x64xf32> -> tensor<?x16x?x64xf32>
  return %0 : tensor<?x16x?x64xf32>
}
// Decode: one token per head, RoPE on the query only (the cache holds rotated
// keys), per-batch valid KV lengths.
func.func @decode_f16(%q: tensor<?x32x1x128xf16>, %k: tensor<?x8x?x128xf16>, %v: tensor<?x8x?x128xf16>, %f: tensor<64xf64>, %l: tensor<?xi32>, %p: index) -> tensor<?x32x1x128xf16> {
  %attn_c0_3 = arith.constant 0 : index
  %attn_d0_0_3 = tensor.dim %q, %attn_c0_3 : tensor<?x32x1x128xf16>
  %attn_init3 = tensor.empty(%attn_d0_0_3) : tensor<?x32x1x128xf16>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<?xi32>) rope <half, query_only> inv_freq(%f : tensor<64xf64>) query_offset(%p : index) outs(%attn_init3 : tensor<?x32x1x128xf16>) : tensor<?x32x1x128xf16>, tensor<?x8x?x128xf16>, tensor<?x8x?x128xf16> -> tensor<?x32x1x128xf16>
  return %0 : tensor<?x32x1x128xf16>
}
// Standalone RoPE.
func.func @rope_f32(%x: tensor<?x32x?x128xf32>, %f: tensor<64xf32>) -> tensor<?x32x?x128xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<?x32x?x128xf32>
  return %0 : tensor<?x32x?x128xf32>
}
// Standalone sinusoidal encoding (the sum in f64).
func.func @sinusoidal_f32(%x: tensor<?x?x1024xf32>, %p: index) -> tensor<?x?x1024xf32> {
  %0 = pe.add_sinusoidal interleaved %x offset(%p : index) : tensor<?x?x1024xf32>
  return %0 : tensor<?x?x1024xf32>
}
