// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Llama 3.1 block: pe.llama3_scale (base 500000, factor 8, 1, 4, 8192; R = 32)
// feeding a half pe.rope of q (H = 8) and k (Hkv = 2) at positions 0..15, then
// GQA causal pe.attention.
// Tolerance: rtol 1e-5, atol 2e-6: f32 rope (~1e-7) feeding f32 attention
// (~1e-7 each); the reference uses the f32-rounded inv_freq and
// attention_scaling that the frequency op produces.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_llama3_prefill %t
// RUN: pe-run %s -e e2e_llama3_prefill --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_llama3_prefill(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %f, %one = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<16xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<16xf32>) attention_scaling(%one) : tensor<1x8x16x32xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<16xf32>) attention_scaling(%one) : tensor<1x2x16x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x16x32xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x16x32xf32>) {causal} : tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x8x16x32xf32>
  return %0 : tensor<1x8x16x32xf32>
}
