// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// YaRN block: pe.yarn_scale (R = 16, factor 8, L = 64) with its
// attention_scaling on q and k (logits grow by its square), interleaved
// layout, [T] positions 100..105, MQA non-causal attention.
// Tolerance: rtol 1e-5, atol 2e-6: f32 rope (~1e-7) feeding f32 attention
// (~1e-7 each); the reference uses the f32-rounded inv_freq and
// attention_scaling that the frequency op produces.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_yarn_interleaved %t
// RUN: pe-run %s -e e2e_yarn_interleaved --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_yarn_interleaved(%q: tensor<1x4x6x16xf32>, %k: tensor<1x1x6x16xf32>, %v: tensor<1x1x6x16xf32>, %p: tensor<6xi64>) -> tensor<1x4x6x16xf32> {
  %f, %m = pe.yarn_scale {factor = 8.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<8xf32>
  %qr = pe.rope interleaved %q inv_freq(%f : tensor<8xf32>) attention_scaling(%m) positions(%p : tensor<6xi64>) : tensor<1x4x6x16xf32>
  %kr = pe.rope interleaved %k inv_freq(%f : tensor<8xf32>) attention_scaling(%m) positions(%p : tensor<6xi64>) : tensor<1x1x6x16xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x6x16xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x4x6x16xf32>) : tensor<1x4x6x16xf32>, tensor<1x1x6x16xf32>, tensor<1x1x6x16xf32> -> tensor<1x4x6x16xf32>
  return %0 : tensor<1x4x6x16xf32>
}
