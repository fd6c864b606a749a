// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Explicit f64 slopes [1/3, 0.1, 7]; signed, no offset; f64 result.
// Tolerance: rtol 1e-14, atol 0: f64 slope times an integer distance.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_slopes_f64 %t
// RUN: pe-run %s -e alibi_slopes_f64 --input=%t/s.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-14 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_slopes_f64(%s: tensor<3xf64>) -> tensor<3x6x6xf64> {
  %0 = pe.alibi_bias signed slopes(%s : tensor<3xf64>) : tensor<3x6x6xf64>
  return %0 : tensor<3x6x6xf64>
}
