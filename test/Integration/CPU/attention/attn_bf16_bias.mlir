// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 attention with an f32 result and a rank-2 f32 bias [Tq, Tk], causal,
// 80 x 80 (two blocks each way), D 64: pe-cpu-pipeline forms the products
// with bf16 dot products where the target has AVX512-BF16.
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel rounds the softmax weights P to bf16 before P V (each
// within 2^-9 relative, so the result within 2^-9 max|v| = 1.95e-3 of the f32
// math); the rest is f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_bias %t
// RUN: pe-run %s -e attn_bf16_bias --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_bias(%q: tensor<1x2x80x64xbf16>, %k: tensor<1x2x80x64xbf16>, %v: tensor<1x2x80x64xbf16>, %b: tensor<80x80xf32>) -> tensor<1x2x80x64xf32> {
  %attn_init0 = tensor.empty() : tensor<1x2x80x64xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<80x80xf32>) outs(%attn_init0 : tensor<1x2x80x64xf32>) {causal} : tensor<1x2x80x64xbf16>, tensor<1x2x80x64xbf16>, tensor<1x2x80x64xbf16> -> tensor<1x2x80x64xf32>
  return %0 : tensor<1x2x80x64xf32>
}
