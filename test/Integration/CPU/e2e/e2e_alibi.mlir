// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// ALiBi block: pe.alibi_bias (H = 6, symmetric, queries at 6..9) as the bias
// of causal attention with Tq = 4 < Tk = 10.
// Tolerance: rtol 1e-5, atol 2e-6: f32 rope (~1e-7) feeding f32 attention
// (~1e-7 each); the reference uses the f32-rounded inv_freq and
// attention_scaling that the frequency op produces.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_alibi %t
// RUN: pe-run %s -e e2e_alibi --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_alibi(%q: tensor<1x6x4x16xf32>, %k: tensor<1x6x10x16xf32>, %v: tensor<1x6x10x16xf32>) -> tensor<1x6x4x16xf32> {
  %b = pe.alibi_bias symmetric {static_offset = 6 : i64} : tensor<6x4x10xf32>
  %attn_init0 = tensor.empty() : tensor<1x6x4x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<6x4x10xf32>) outs(%attn_init0 : tensor<1x6x4x16xf32>) {causal} : tensor<1x6x4x16xf32>, tensor<1x6x10x16xf32>, tensor<1x6x10x16xf32> -> tensor<1x6x4x16xf32>
  return %0 : tensor<1x6x4x16xf32>
}
