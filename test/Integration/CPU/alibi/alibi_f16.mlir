// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// H = 12, signed, static_offset 2, f16 result.
// Tolerance: rtol 1e-3, atol 1e-3: the result is rounded once to f16 (half an
// ulp is 2^-11 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_f16 %t
// RUN: pe-run %s -e alibi_f16 --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_f16() -> tensor<12x4x6xf16> {
  %0 = pe.alibi_bias signed {static_offset = 2 : i64} : tensor<12x4x6xf16>
  return %0 : tensor<12x4x6xf16>
}
