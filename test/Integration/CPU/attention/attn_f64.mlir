// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f64 attention with every option: GQA 4/2, causal (Tq = 6 < Tk = 8), [H, Tq,
// Tk] bias, [1, 1, Tq, Tk] mask, softcap 3 after the bias.
// Tolerance: rtol 1e-10, atol 1e-12: f64 math throughout.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_f64 %t
// RUN: pe-run %s -e attn_f64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-10 --atol 1e-12 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_f64(%q: tensor<1x4x6x16xf64>, %k: tensor<1x2x8x16xf64>, %v: tensor<1x2x8x16xf64>, %b: tensor<4x6x8xf32>, %m: tensor<1x1x6x8xi1>) -> tensor<1x4x6x16xf64> {
  %attn_init0 = tensor.empty() : tensor<1x4x6x16xf64>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<4x6x8xf32>) mask(%m : tensor<1x1x6x8xi1>) outs(%attn_init0 : tensor<1x4x6x16xf64>) {causal, softcap = 3.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<1x4x6x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64> -> tensor<1x4x6x16xf64>
  return %0 : tensor<1x4x6x16xf64>
}
