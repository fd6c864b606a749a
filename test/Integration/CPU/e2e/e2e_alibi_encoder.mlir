// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Encoder ALiBi: signed distance, non-causal (where it differs from
// symmetric).
// Tolerance: rtol 1e-5, atol 2e-6: f32 rope (~1e-7) feeding f32 attention
// (~1e-7 each); the reference uses the f32-rounded inv_freq and
// attention_scaling that the frequency op produces.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_alibi_encoder %t
// RUN: pe-run %s -e e2e_alibi_encoder --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_alibi_encoder(%q: tensor<1x6x7x16xf32>, %k: tensor<1x6x7x16xf32>, %v: tensor<1x6x7x16xf32>) -> tensor<1x6x7x16xf32> {
  %b = pe.alibi_bias signed : tensor<6x7x7xf32>
  %attn_init0 = tensor.empty() : tensor<1x6x7x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<6x7x7xf32>) outs(%attn_init0 : tensor<1x6x7x16xf32>) : tensor<1x6x7x16xf32>, tensor<1x6x7x16xf32>, tensor<1x6x7x16xf32> -> tensor<1x6x7x16xf32>
  return %0 : tensor<1x6x7x16xf32>
}
