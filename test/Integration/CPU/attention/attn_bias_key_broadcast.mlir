// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A bias [1, H, Tq, 1] that broadcasts over the keys (one value per query row
// and head), with the softcap applied after it, over 40 keys (one partial key
// block).
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// tanh, exp, sums); outputs are convex combinations of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bias_key_broadcast %t
// RUN: pe-run %s -e attn_bias_key_broadcast --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bias_key_broadcast(%q: tensor<1x4x20x16xf32>, %k: tensor<1x4x40x16xf32>, %v: tensor<1x4x40x16xf32>, %b: tensor<1x4x20x1xf32>) -> tensor<1x4x20x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x20x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<1x4x20x1xf32>) outs(%attn_init0 : tensor<1x4x20x16xf32>) {softcap = 4.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<1x4x20x16xf32>, tensor<1x4x40x16xf32>, tensor<1x4x40x16xf32> -> tensor<1x4x20x16xf32>
  return %0 : tensor<1x4x20x16xf32>
}
