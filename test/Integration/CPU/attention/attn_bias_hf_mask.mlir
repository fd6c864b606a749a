// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A Hugging Face style additive mask [B, 1, Tq, Tk] (random bias, -inf for
// the causal future, for the padding keys of batch 1 and for all of row 3 of
// batch 0) on GQA 4/2 attention at the generated kernel's sizes: 70 query
// rows (two row blocks), 150 keys (three key blocks, the last partial), D 32.
// Row 3 of batch 0 has no allowed key and must be 0; the NaN in the value row
// of a padding key of batch 1 must reach no row.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bias_hf_mask %t
// RUN: pe-run %s -e attn_bias_hf_mask --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bias_hf_mask(%q: tensor<2x4x70x32xf32>, %k: tensor<2x2x150x32xf32>, %v: tensor<2x2x150x32xf32>, %b: tensor<2x1x70x150xf32>) -> tensor<2x4x70x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x70x32xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<2x1x70x150xf32>) outs(%attn_init0 : tensor<2x4x70x32xf32>) : tensor<2x4x70x32xf32>, tensor<2x2x150x32xf32>, tensor<2x2x150x32xf32> -> tensor<2x4x70x32xf32>
  return %0 : tensor<2x4x70x32xf32>
}
