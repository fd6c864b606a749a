// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A random boolean mask [B, 1, Tq, Tk] with a rank-2 bias and a softcap after
// the bias, at the generated kernel's sizes (70 query rows, 150 keys: two row
// blocks, three key blocks, partial tails; GQA 4/2, D 32). The mask disallows
// keys whatever their capped score; row 5 of batch 1 has no allowed key and
// must be 0; key 100 of batch 0 is masked for every row and the NaN in its
// value row must reach no row.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// tanh, exp, sums); outputs are convex combinations of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_mask_blocks %t
// RUN: pe-run %s -e attn_mask_blocks --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_mask_blocks(%q: tensor<2x4x70x32xf32>, %k: tensor<2x2x150x32xf32>, %v: tensor<2x2x150x32xf32>, %b: tensor<70x150xf32>, %m: tensor<2x1x70x150xi1>) -> tensor<2x4x70x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x70x32xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<70x150xf32>) mask(%m : tensor<2x1x70x150xi1>) outs(%attn_init0 : tensor<2x4x70x32xf32>) {softcap = 5.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<2x4x70x32xf32>, tensor<2x2x150x32xf32>, tensor<2x2x150x32xf32> -> tensor<2x4x70x32xf32>
  return %0 : tensor<2x4x70x32xf32>
}
