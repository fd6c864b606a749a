// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout; [B, T] positions (i64) on a rank-4 input: row b applies
// to x[b, ...].
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_batch_positions %t
// RUN: pe-run %s -e sin_interleaved_batch_positions --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_batch_positions(%x: tensor<2x3x5x8xf32>, %p: tensor<2x5xi64>) -> tensor<2x3x5x8xf32> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<2x5xi64>) : tensor<2x3x5x8xf32>
  return %0 : tensor<2x3x5x8xf32>
}
