// Execution test of the tensor-core attention kernel on the Vulkan target:
// pe-gpu-pipeline{target=spirv tensor-cores=emulate} builds the same
// fragment kernel as for NVVM (4 warps of 16 query rows, m16n8k16 fragments,
// online softmax across the 4 lanes of a fragment row) with each mma.sync and
// each shuffle emulated through workgroup memory in the PTX fragment layouts,
// and lavapipe runs it. The result is compared with the float64 numpy
// reference (test/Integration/lib/cases.py, pe_ref.py).
//
// [B, S, H, D] operands, D = 128: symmetric ALiBi (queries at 32 + i), a
// softcap of 2 before the bias, bottom-right causal with a window of 24 keys
// (the block's first key tiles are skipped); 2 batches, GQA 4/2, Tq = 45,
// Tk = 77.
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_alibi_window_softcap_bshd_d128 %t
// RUN: pe-run %s -e tc_alibi_window_softcap_bshd_d128 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_alibi_window_softcap_bshd_d128(%q: tensor<2x45x4x128xf16>, %k: tensor<2x77x2x128xf16>, %v: tensor<2x77x2x128xf16>) -> tensor<2x45x4x128xf16> {
  %attn_init0 = tensor.empty() : tensor<2x45x4x128xf16>
  %0 = pe.attention %q, %k, %v alibi <symmetric, query_offset = 32> outs(%attn_init0 : tensor<2x45x4x128xf16>) {causal, window = 24 : i64, softcap = 2.0, layout = #pe<attention_layout bshd>} : tensor<2x45x4x128xf16>, tensor<2x77x2x128xf16>, tensor<2x77x2x128xf16> -> tensor<2x45x4x128xf16>
  return %0 : tensor<2x45x4x128xf16>
}
