// PTX of the SIMT attention kernel at head dimensions 256 and 512 (f32, and
// f16/bf16, which keep the SIMT kernel above D = 128) for sm_80 and sm_90.
// Its K and V tiles are f32 static shared memory, key-tile x (D + Dv) x 4
// bytes: with the default key tile of 32 that is 64 KiB at D = Dv = 256 and
// 128 KiB at 512, which ptxas rejects (at most 48 KiB of static shared
// memory). convert-pe-to-gpu takes the largest key tile within
// shared-memory-bytes (49152 on nvvm) instead: 24 keys at D = 256, 12 at
// 512, both exactly 48 KiB. Every kernel assembles with 0 spill bytes (the
// registers, stack and shared memory ptxas reports are recorded in
// docs/CodegenGPU.md; the stack frame is the per-thread q / o / score
// arrays, not spills).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_80 fuse=false" -o %t/sm80.mlir
// RUN: %extract_gpu_objects %t/sm80.mlir %t/sm80 | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=PTX < %t/sm80/prefill_f16_d256_kernel.ptx
// RUN: for f in %t/sm80/*.ptx; do %ptxas -arch=sm_80 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM80
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_90 fuse=false" -o %t/sm90.mlir
// RUN: %extract_gpu_objects %t/sm90.mlir %t/sm90 | FileCheck %s --check-prefix=FILES
// RUN: for f in %t/sm90/*.ptx; do %ptxas -arch=sm_90 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM90

// FILES-DAG: decode_bf16_d512_kernel.ptx
// FILES-DAG: decode_bf16_d512_kernel_0.ptx
// FILES-DAG: prefill_f16_d256_kernel.ptx
// FILES-DAG: prefill_f32_d256_kernel.ptx
// FILES-DAG: prefill_f32_d512_kernel.ptx

// The SIMT kernel (no mma.sync), one row per thread.
// PTX: .maxntid 64, 1, 1
// PTX-NOT: mma.sync

// SM80: Compiling entry function 'decode_bf16_d512_kernel' for 'sm_80'
// SM90: Compiling entry function 'decode_bf16_d512_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for decode_bf16_d512_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The decode kernel: the group's 4 query rows, 9-key tiles (45300 bytes).
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes cumulative stack size, 45300 bytes smem
// Its split combine kernel (module decode_bf16_d512_kernel_0).
// SM80: Compiling entry function 'decode_bf16_d512_kernel' for 'sm_80'
// SM90: Compiling entry function 'decode_bf16_d512_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for decode_bf16_d512_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'prefill_f16_d256_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_f16_d256_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_f16_d256_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes cumulative stack size, 49152 bytes smem
// SM80: Compiling entry function 'prefill_f32_d256_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_f32_d256_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_f32_d256_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes cumulative stack size, 49152 bytes smem
// SM80: Compiling entry function 'prefill_f32_d512_kernel' for 'sm_80'
// SM90: Compiling entry function 'prefill_f32_d512_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for prefill_f32_d512_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes cumulative stack size, 49152 bytes smem

// Gemma-style f32 prefill, D = 256: 8 query heads over 4 KV heads, RoPE
// (half), causal.
func.func @prefill_f32_d256(%q: tensor<1x8x?x256xf32>, %k: tensor<1x4x?x256xf32>, %v: tensor<1x4x?x256xf32>, %f: tensor<128xf64>) -> tensor<1x8x?x256xf32> {
  %c2 = arith.constant 2 : index
  %t = tensor.dim %q, %c2 : tensor<1x8x?x256xf32>
  %init = tensor.empty(%t) : tensor<1x8x?x256xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<128xf64>) outs(%init : tensor<1x8x?x256xf32>) {causal} : tensor<1x8x?x256xf32>, tensor<1x4x?x256xf32>, tensor<1x4x?x256xf32> -> tensor<1x8x?x256xf32>
  return %0 : tensor<1x8x?x256xf32>
}
// f16 prefill, D = 256 (above the tensor-core kernel's 128: the SIMT kernel
// with tensor-cores=auto on sm_80), sliding window, softcap.
func.func @prefill_f16_d256(%q: tensor<1x8x?x256xf16>, %k: tensor<1x4x?x256xf16>, %v: tensor<1x4x?x256xf16>, %f: tensor<128xf64>) -> tensor<1x8x?x256xf16> {
  %c2 = arith.constant 2 : index
  %t = tensor.dim %q, %c2 : tensor<1x8x?x256xf16>
  %init = tensor.empty(%t) : tensor<1x8x?x256xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<128xf64>) outs(%init : tensor<1x8x?x256xf16>) {causal, window = 4096 : i64, softcap = 50.0} : tensor<1x8x?x256xf16>, tensor<1x4x?x256xf16>, tensor<1x4x?x256xf16> -> tensor<1x8x?x256xf16>
  return %0 : tensor<1x8x?x256xf16>
}
// f32 prefill, D = 512, ALiBi, causal.
func.func @prefill_f32_d512(%q: tensor<1x4x?x512xf32>, %k: tensor<1x4x?x512xf32>, %v: tensor<1x4x?x512xf32>) -> tensor<1x4x?x512xf32> {
  %c2 = arith.constant 2 : index
  %t = tensor.dim %q, %c2 : tensor<1x4x?x512xf32>
  %init = tensor.empty(%t) : tensor<1x4x?x512xf32>
  %0 = pe.attention %q, %k, %v alibi <key> outs(%init : tensor<1x4x?x512xf32>) {causal} : tensor<1x4x?x512xf32>, tensor<1x4x?x512xf32>, tensor<1x4x?x512xf32> -> tensor<1x4x?x512xf32>
  return %0 : tensor<1x4x?x512xf32>
}
// bf16 decode, D = 512: one token per head, RoPE on the query only,
// per-batch valid KV lengths.
func.func @decode_bf16_d512(%q: tensor<?x8x1x512xbf16>, %k: tensor<?x2x?x512xbf16>, %v: tensor<?x2x?x512xbf16>, %f: tensor<256xf64>, %l: tensor<?xi32>, %p: index) -> tensor<?x8x1x512xbf16> {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %q, %c0 : tensor<?x8x1x512xbf16>
  %init = tensor.empty(%b) : tensor<?x8x1x512xbf16>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<?xi32>) rope <half, query_only> inv_freq(%f : tensor<256xf64>) query_offset(%p : index) outs(%init : tensor<?x8x1x512xbf16>) : tensor<?x8x1x512xbf16>, tensor<?x2x?x512xbf16>, tensor<?x2x?x512xbf16> -> tensor<?x8x1x512xbf16>
  return %0 : tensor<?x8x1x512xbf16>
}
