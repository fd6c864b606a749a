// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, partial rotary R = 16 < D = 32, f64 inv_freq, positions
// from 0; 2 x 5 leading rows x 1100 tokens: each 64-token task rotates all
// 10 rows, in groups of 8 and 2 per token; channels [16, 32) pass through.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_interleaved_head_groups %t
// RUN: pe-run %s -e rope_interleaved_head_groups --input=%t/x.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_interleaved_head_groups(%x: tensor<2x5x1100x32xf32>, %f: tensor<8xf64>) -> tensor<2x5x1100x32xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<8xf64>) {rotary_dim = 16 : i64} : tensor<2x5x1100x32xf32>
  return %0 : tensor<2x5x1100x32xf32>
}
