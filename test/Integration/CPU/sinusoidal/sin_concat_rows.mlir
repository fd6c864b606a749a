// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Concat layout, 150 tokens at static_offset 5, C = 96 (48 pairs), scale_input
// (x * sqrt(96)): three 64-token blocks, the last of 22 rows, through the CPU
// kernel's direct first rows, 8-row angle-addition passes and single rows.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_rows %t
// RUN: pe-run %s -e sin_concat_rows --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_concat_rows(%x: tensor<150x96xf32>) -> tensor<150x96xf32> {
  %0 = pe.add_sinusoidal concat %x {static_offset = 5 : i64, scale_input} : tensor<150x96xf32>
  return %0 : tensor<150x96xf32>
}
