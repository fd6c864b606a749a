// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Fully masked rows (query 2 of head 1, and query 4 of every head) give 0, not
// NaN (ONNX opset 24).
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1), so errors
// are ~1e-7 absolute.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_masked_row %t
// RUN: pe-run %s -e attn_masked_row --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_masked_row(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x4x6x8xi1>) -> tensor<1x4x6x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x6x16xf32>
  %0 = pe.attention %q, %k, %v mask(%m : tensor<1x4x6x8xi1>) outs(%attn_init0 : tensor<1x4x6x16xf32>) : tensor<1x4x6x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x6x16xf32>
  return %0 : tensor<1x4x6x16xf32>
}
