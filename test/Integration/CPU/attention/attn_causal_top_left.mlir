// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Top-left causal (PyTorch is_causal) with Tq = 5 < Tk = 9: query i sees keys
// j <= i; GQA 4/2.
// The masks are computed from indices (no mask tensor); fully masked rows
// give 0.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1), so errors
// are ~1e-7 absolute.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_causal_top_left %t
// RUN: pe-run %s -e attn_causal_top_left --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_causal_top_left(%q: tensor<1x4x5x16xf32>, %k: tensor<1x2x9x16xf32>, %v: tensor<1x2x9x16xf32>) -> tensor<1x4x5x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x5x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x5x16xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<1x4x5x16xf32>, tensor<1x2x9x16xf32>, tensor<1x2x9x16xf32> -> tensor<1x4x5x16xf32>
  return %0 : tensor<1x4x5x16xf32>
}
