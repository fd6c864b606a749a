// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// ALiBi with an explicit slope table (key distance, BLOOM), causal, Tq = 32
// over Tk = 48. Through pe-cpu-pipeline the pe.alibi_bias and its slopes move
// into the attention's alibi encoding and the generated kernel reads the
// table; no [H, Tq, Tk] tensor exists.
// Tolerance: rtol 1e-5, atol 2e-6: f32 attention math; the bias reaches 0.5 *
// 47 = 23.5, so logits carry ~1e-6 absolute rounding.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_alibi_slopes %t
// RUN: pe-run %s -e e2e_alibi_slopes --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/s.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_alibi_slopes(%q: tensor<1x4x32x16xf32>, %k: tensor<1x4x48x16xf32>, %v: tensor<1x4x48x16xf32>, %s: tensor<4xf32>) -> tensor<1x4x32x16xf32> {
  %b = pe.alibi_bias key slopes(%s : tensor<4xf32>) : tensor<4x32x48xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x32x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<4x32x48xf32>) outs(%attn_init0 : tensor<1x4x32x16xf32>) {causal} : tensor<1x4x32x16xf32>, tensor<1x4x48x16xf32>, tensor<1x4x48x16xf32> -> tensor<1x4x32x16xf32>
  return %0 : tensor<1x4x32x16xf32>
}
