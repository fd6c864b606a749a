// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// NaN and infinity semantics (a NaN key reaches the rows that see it; a +inf key the rows whose logit is +inf).
// Tolerance: rtol 1e-5, atol 1e-6 (f32 math, outputs are convex combinations
// of values in [-1, 1)); NaN must meet NaN and infinities match exactly
// (npycmp), so a NaN that reaches a row it must not, or is lost, fails.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_nan_k %t
// RUN: pe-run %s -e attn_nan_k --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_nan_k(%q: tensor<1x4x80x16xf32>, %k: tensor<1x2x80x16xf32>, %v: tensor<1x2x80x16xf32>) -> tensor<1x4x80x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x80x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x80x16xf32>) {causal} : tensor<1x4x80x16xf32>, tensor<1x2x80x16xf32>, tensor<1x2x80x16xf32> -> tensor<1x4x80x16xf32>
  return %0 : tensor<1x4x80x16xf32>
}
