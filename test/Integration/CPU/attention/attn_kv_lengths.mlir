// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Per-batch valid KV lengths 5, 0 and 13 (clamped to Tk = 9), not causal; the
// batch without a valid key gives 0. MQA.
// The masks are computed from indices (no mask tensor); fully masked rows
// give 0.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1), so errors
// are ~1e-7 absolute.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_kv_lengths %t
// RUN: pe-run %s -e attn_kv_lengths --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_kv_lengths(%q: tensor<3x2x4x16xf32>, %k: tensor<3x1x9x16xf32>, %v: tensor<3x1x9x16xf32>, %lengths: tensor<3xi32>) -> tensor<3x2x4x16xf32> {
  %attn_init0 = tensor.empty() : tensor<3x2x4x16xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<3xi32>) outs(%attn_init0 : tensor<3x2x4x16xf32>) : tensor<3x2x4x16xf32>, tensor<3x1x9x16xf32>, tensor<3x1x9x16xf32> -> tensor<3x2x4x16xf32>
  return %0 : tensor<3x2x4x16xf32>
}
