// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout; static_offset 100 only, base 500.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_static %t
// RUN: pe-run %s -e sin_interleaved_static --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_static(%x: tensor<3x8x32xf32>) -> tensor<3x8x32xf32> {
  %0 = pe.add_sinusoidal interleaved %x {static_offset = 100 : i64, base = 500.0 : f64} : tensor<3x8x32xf32>
  return %0 : tensor<3x8x32xf32>
}
