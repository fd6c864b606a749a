// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, 4096 tokens of 32 channels from position 1000
// (static): at least 16 x 256 rows, so the CPU kernel's parallel tasks
// are 256 tokens long, each row after a task's first one advanced by angle
// addition (255 steps), 8 rows per pass.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_long_tasks %t
// RUN: pe-run %s -e sin_interleaved_long_tasks --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_long_tasks(%x: tensor<4096x32xf32>) -> tensor<4096x32xf32> {
  %0 = pe.add_sinusoidal interleaved %x {static_offset = 1000 : i64} : tensor<4096x32xf32>
  return %0 : tensor<4096x32xf32>
}
