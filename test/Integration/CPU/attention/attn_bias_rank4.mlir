// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Additive f16 bias of rank 4 [B, 1, Tq, Tk] (broadcast over H) on f32
// attention.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1), so errors
// are ~1e-7 absolute.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bias_rank4 %t
// RUN: pe-run %s -e attn_bias_rank4 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bias_rank4(%q: tensor<2x4x5x16xf32>, %k: tensor<2x4x7x16xf32>, %v: tensor<2x4x7x16xf32>, %b: tensor<2x1x5x7xf16>) -> tensor<2x4x5x16xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x5x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<2x1x5x7xf16>) outs(%attn_init0 : tensor<2x4x5x16xf32>) : tensor<2x4x5x16xf32>, tensor<2x4x7x16xf32>, tensor<2x4x7x16xf32> -> tensor<2x4x5x16xf32>
  return %0 : tensor<2x4x5x16xf32>
}
