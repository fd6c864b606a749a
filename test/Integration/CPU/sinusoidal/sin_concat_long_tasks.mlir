// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Concat layout, 2 x 2048 tokens of 64 channels from position 0
// (static): at least 16 x 256 rows, so the CPU kernel's parallel tasks
// are 256 tokens long, each row after a task's first one advanced by angle
// addition (255 steps), 8 rows per pass.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_long_tasks %t
// RUN: pe-run %s -e sin_concat_long_tasks --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_concat_long_tasks(%x: tensor<2x2048x64xf32>) -> tensor<2x2048x64xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<2x2048x64xf32>
  return %0 : tensor<2x2048x64xf32>
}
