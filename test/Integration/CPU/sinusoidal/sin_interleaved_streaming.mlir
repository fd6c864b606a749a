// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, 4100 tokens of 2048 channels from position 3 (static):
// a 33.6 MB result, so the CPU kernel stores it with non-temporal stores
// and each 8-row angle-addition pass prefetches the next pass's input rows
// (clamped to the task's last row); 17 tasks of 256 tokens, the last of 4.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_streaming %t
// RUN: pe-run %s -e sin_interleaved_streaming --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_streaming(%x: tensor<4100x2048xf32>) -> tensor<4100x2048xf32> {
  %0 = pe.add_sinusoidal interleaved %x {static_offset = 3 : i64} : tensor<4100x2048xf32>
  return %0 : tensor<4100x2048xf32>
}
