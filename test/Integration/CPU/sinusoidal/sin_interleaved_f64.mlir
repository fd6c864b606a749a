// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f64; offset operand (i64) 123456; scale_input.
// Tolerance: rtol 1e-12, atol 1e-10: f64 throughout; another f64 formula for
// the angle p * base^(-2k/C) may differ by a few ulp of angles up to ~1e5 rad.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_f64 %t
// RUN: pe-run %s -e sin_interleaved_f64 --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-12 --atol 1e-10 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_f64(%x: tensor<2x8x16xf64>, %o: i64) -> tensor<2x8x16xf64> {
  %0 = pe.add_sinusoidal interleaved %x offset(%o : i64) {scale_input} : tensor<2x8x16xf64>
  return %0 : tensor<2x8x16xf64>
}
