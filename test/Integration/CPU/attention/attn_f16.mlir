// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 inputs and result (math in f32); GQA 8/2, causal.
// Tolerance: rtol 2e-3, atol 1e-3: f16 inputs, f32 math, one rounding of
// outputs in [-1, 1) to f16 (half an ulp <= 2^-12).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_f16 %t
// RUN: pe-run %s -e attn_f16 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_f16(%q: tensor<1x8x8x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x8x8x16xf16> {
  %attn_init0 = tensor.empty() : tensor<1x8x8x16xf16>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x8x8x16xf16>) {causal} : tensor<1x8x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x8x8x16xf16>
  return %0 : tensor<1x8x8x16xf16>
}
