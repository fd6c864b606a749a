// Execution test of the tensor-core attention kernel on the Vulkan target:
// pe-gpu-pipeline{target=spirv tensor-cores=emulate} builds the same
// fragment kernel as for NVVM (4 warps of 16 query rows, m16n8k16 fragments,
// online softmax across the 4 lanes of a fragment row) with each mma.sync and
// each shuffle emulated through workgroup memory in the PTX fragment layouts,
// and lavapipe runs it. The result is compared with the float64 numpy
// reference (test/Integration/lib/cases.py, pe_ref.py).
//
// GQA 8/2, D = 64, Tq = 37 queries after 40 cached keys (top-left causal,
// causal offset 40), Tk = 83 with kv_lengths 83, 41 and 0 (batch 2's rows
// see no key: output 0, lse -inf), partial interleaved RoPE (32 of 64
// channels, queries at 40 + i), and the lse result (the row sum over the 4
// lanes of a fragment row).
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).
// lse: rtol 2e-3, atol 1e-3 as well (f32, from scores of f16-rounded
// rotated operands).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_gqa_lengths_lse_d64 %t
// RUN: pe-run %s -e tc_gqa_lengths_lse_d64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --input=%t/lengths.npy --output=%t/out.npy --output=%t/lse_out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// RUN: %npycmp %t/lse_out.npy %t/lse.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_gqa_lengths_lse_d64(%q: tensor<3x8x37x64xf16>, %k: tensor<3x2x83x64xf16>, %v: tensor<3x2x83x64xf16>, %f: tensor<16xf64>, %l: tensor<3xi32>) -> (tensor<3x8x37x64xf16>, tensor<3x8x37xf32>) {
  %c40 = arith.constant 40 : index
  %attn_init0 = tensor.empty() : tensor<3x8x37x64xf16>
  %attn_lse_init0 = tensor.empty() : tensor<3x8x37xf32>
  %0, %1 = pe.attention %q, %k, %v kv_lengths(%l : tensor<3xi32>) causal_offset(%c40 : index) rope <interleaved, rotary_dim = 32, query_offset = 40> inv_freq(%f : tensor<16xf64>) outs(%attn_init0, %attn_lse_init0 : tensor<3x8x37x64xf16>, tensor<3x8x37xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<3x8x37x64xf16>, tensor<3x2x83x64xf16>, tensor<3x2x83x64xf16> -> tensor<3x8x37x64xf16>, tensor<3x8x37xf32>
  return %0, %1 : tensor<3x8x37x64xf16>, tensor<3x8x37xf32>
}
