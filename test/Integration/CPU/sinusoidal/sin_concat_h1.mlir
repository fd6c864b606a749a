// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Concat layout with C = 3: h = 1 uses w_0 = 1 and the last channel is 0;
// static_offset 2.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_h1 %t
// RUN: pe-run %s -e sin_concat_h1 --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_concat_h1(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = pe.add_sinusoidal concat %x {static_offset = 2 : i64} : tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
