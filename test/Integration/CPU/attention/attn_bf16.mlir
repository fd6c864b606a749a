// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 inputs and result (float32 .npy), rank-2 f32 bias.
// Tolerance: rtol 1e-2, atol 1e-2: bf16 inputs, f32 math, one rounding of
// outputs in [-1, 1) to bf16 (half an ulp <= 2^-9).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16 %t
// RUN: pe-run %s -e attn_bf16 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16(%q: tensor<1x4x6x16xbf16>, %k: tensor<1x4x6x16xbf16>, %v: tensor<1x4x6x16xbf16>, %b: tensor<6x6xf32>) -> tensor<1x4x6x16xbf16> {
  %attn_init0 = tensor.empty() : tensor<1x4x6x16xbf16>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<6x6xf32>) outs(%attn_init0 : tensor<1x4x6x16xbf16>) : tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xbf16>
  return %0 : tensor<1x4x6x16xbf16>
}
