// PTX of the tensor-core attention kernels (f16/bf16 prefill, chip sm_80 and
// above: convert-pe-to-gpu{tensor-cores=auto}) for sm_80 and sm_90: every
// kernel assembles with ptxas with no stack frame and 0 spill bytes (the
// fragments stay in registers; the registers and shared memory ptxas
// reports are recorded in docs/CodegenGPU.md), and the PTX has the
// m16n8k16 mma.sync with f32 accumulators for f16 and for bf16 and the
// cp.async staging of the two-stage K/V buffers, and ldmatrix for the B
// fragments (from XOR-swizzled rows).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_80 fuse=false" -o %t/sm80.mlir
// RUN: %extract_gpu_objects %t/sm80.mlir %t/sm80 | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=F16 < %t/sm80/tc_f16_rope_kernel.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t/sm80/tc_bf16_alibi_kernel.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t/sm80/tc_f16_d64_lse_kernel.ptx
// RUN: for f in %t/sm80/*.ptx; do FileCheck %s --check-prefix=CPASYNC < $f || exit 1; done
// RUN: for f in %t/sm80/*.ptx; do FileCheck %s --check-prefix=LDMATRIX < $f || exit 1; done
// RUN: grep -c 'ldmatrix.sync.aligned.m8n8.x2.trans' %t/sm80/tc_f16_rope_kernel.ptx | FileCheck %s --check-prefix=LDCOUNT128
// RUN: grep -c 'mma.sync.aligned' %t/sm80/tc_f16_rope_kernel.ptx | FileCheck %s --check-prefix=COUNT128
// RUN: grep -c 'mma.sync.aligned' %t/sm80/tc_f16_d64_lse_kernel.ptx | FileCheck %s --check-prefix=COUNT64
// RUN: for f in %t/sm80/*.ptx; do %ptxas -arch=sm_80 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM80
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_90 fuse=false" -o %t/sm90.mlir
// RUN: %extract_gpu_objects %t/sm90.mlir %t/sm90 | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=BF16 < %t/sm90/tc_bf16_alibi_kernel.ptx
// RUN: for f in %t/sm90/*.ptx; do FileCheck %s --check-prefix=CPASYNC < $f || exit 1; done
// RUN: for f in %t/sm90/*.ptx; do FileCheck %s --check-prefix=LDMATRIX < $f || exit 1; done
// RUN: for f in %t/sm90/*.ptx; do %ptxas -arch=sm_90 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM90
// Below sm_80 the same ops keep the SIMT kernel (no mma.sync in the PTX).
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_75 features=+ptx80 fuse=false" -o %t/sm75.mlir
// RUN: %extract_gpu_objects %t/sm75.mlir %t/sm75
// RUN: cat %t/sm75/*.ptx | FileCheck %s --check-prefix=SM75

// FILES-DAG: tc_bf16_alibi_kernel.ptx
// FILES-DAG: tc_f16_d64_lse_kernel.ptx
// FILES-DAG: tc_f16_rope_kernel.ptx

// Fragments: 4 warps of 16 rows (128 threads), the row max and sum over the
// 4 lanes of a fragment row by shuffles (xor 1, 2), K/V tiles in shared memory.
// F16: .maxntid 128, 1, 1
// F16: .shared .align 16 .b8
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// F16: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// BF16-NOT: f16.f16
// Two stages of K/V tiles (16-byte aligned .shared arrays of 2 x 32 keys):
// the first tile's 16-byte cp.async (zero-filled past L[b]: a source size
// operand) and commit group before the loop; per tile the wait for them,
// the barrier, and the next tile's copies and commit group.
// CPASYNC: .shared .align 16 .b8 {{.*}}[{{8192|16384}}];
// CPASYNC: .shared .align 16 .b8 {{.*}}[{{8192|16384}}];
// CPASYNC: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CPASYNC: cp.async.commit_group;
// CPASYNC: cp.async.wait_group 0;
// CPASYNC-NEXT: bar.sync 0;
// CPASYNC: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CPASYNC: cp.async.commit_group;
// The B fragments by ldmatrix: K's x2 (one per n-tile and k-step of S),
// V's x2.trans (one per n-tile and k-step of P V): 32 each at D = 128.
// LDMATRIX-DAG: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// LDMATRIX-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// LDCOUNT128: 32
// D = 128, key tile 32: S = Q K^T 4 n-tiles x 8 k-steps, O += P V 16 n-tiles
// x 2 k-steps; D = 64: 4 x 4 and 8 x 2.
// COUNT128: 64
// COUNT64: 32

// SM80: Compiling entry function 'tc_bf16_alibi_kernel' for 'sm_80'
// SM90: Compiling entry function 'tc_bf16_alibi_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for tc_bf16_alibi_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'tc_f16_d64_lse_kernel' for 'sm_80'
// SM90: Compiling entry function 'tc_f16_d64_lse_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for tc_f16_d64_lse_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// SM80: Compiling entry function 'tc_f16_rope_kernel' for 'sm_80'
// SM90: Compiling entry function 'tc_f16_rope_kernel' for 'sm_90'
// PTXAS-NEXT: Function properties for tc_f16_rope_kernel
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// SM75-NOT: mma.sync

// Llama-3 prefill: f16, 32 query heads over 8 KV heads, D = 128, RoPE (half),
// causal.
func.func @tc_f16_rope(%q: tensor<1x32x?x128xf16>, %k: tensor<1x8x?x128xf16>, %v: tensor<1x8x?x128xf16>, %f: tensor<64xf64>) -> tensor<1x32x?x128xf16> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x32x?x128xf16>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x32x?x128xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<64xf64>) outs(%attn_init0 : tensor<1x32x?x128xf16>) {causal} : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
  return %0 : tensor<1x32x?x128xf16>
}
// Gemma-2 / Mistral style: bf16 in [B, S, H, D], ALiBi, sliding window, softcap.
func.func @tc_bf16_alibi(%q: tensor<1x?x32x128xbf16>, %k: tensor<1x?x8x128xbf16>, %v: tensor<1x?x8x128xbf16>) -> tensor<1x?x32x128xbf16> {
  %attn_c1_1 = arith.constant 1 : index
  %attn_d0_1_1 = tensor.dim %q, %attn_c1_1 : tensor<1x?x32x128xbf16>
  %attn_init1 = tensor.empty(%attn_d0_1_1) : tensor<1x?x32x128xbf16>
  %0 = pe.attention %q, %k, %v alibi <symmetric> outs(%attn_init1 : tensor<1x?x32x128xbf16>) {causal, window = 4096 : i64, softcap = 50.0, layout = #pe<attention_layout bshd>} : tensor<1x?x32x128xbf16>, tensor<1x?x8x128xbf16>, tensor<1x?x8x128xbf16> -> tensor<1x?x32x128xbf16>
  return %0 : tensor<1x?x32x128xbf16>
}
// D = 64, partial interleaved RoPE, kv_lengths, top-left causal with an
// offset, the lse result.
func.func @tc_f16_d64_lse(%q: tensor<?x16x?x64xf16>, %k: tensor<?x4x?x64xf16>, %v: tensor<?x4x?x64xf16>, %f: tensor<16xf64>, %l: tensor<?xi32>, %o: index) -> (tensor<?x16x?x64xf16>, tensor<?x16x?xf32>) {
  %attn_c0_2 = arith.constant 0 : index
  %attn_d0_0_2 = tensor.dim %q, %attn_c0_2 : tensor<?x16x?x64xf16>
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %q, %attn_c2_2 : tensor<?x16x?x64xf16>
  %attn_init2 = tensor.empty(%attn_d0_0_2, %attn_d0_2_2) : tensor<?x16x?x64xf16>
  %attn_d1_0_2 = tensor.dim %q, %attn_c0_2 : tensor<?x16x?x64xf16>
  %attn_d1_2_2 = tensor.dim %q, %attn_c2_2 : tensor<?x16x?x64xf16>
  %attn_lse_init2 = tensor.empty(%attn_d1_0_2, %attn_d1_2_2) : tensor<?x16x?xf32>
  %0, %1 = pe.attention %q, %k, %v kv_lengths(%l : tensor<?xi32>) causal_offset(%o : index) rope <interleaved, rotary_dim = 32> inv_freq(%f : tensor<16xf64>) outs(%attn_init2, %attn_lse_init2 : tensor<?x16x?x64xf16>, tensor<?x16x?xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<?x16x?x64xf16>, tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16> -> tensor<?x16x?x64xf16>, tensor<?x16x?xf32>
  return %0, %1 : tensor<?x16x?x64xf16>, tensor<?x16x?xf32>
}
