// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, partial rotary R = 4 < D = 12, f64 inv_freq, offset
// operand i32 40.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_interleaved_partial %t
// RUN: pe-run %s -e rope_interleaved_partial --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_interleaved_partial(%x: tensor<3x8x12xf32>, %f: tensor<2xf64>, %o: i32) -> tensor<3x8x12xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<2xf64>) offset(%o : i32) {rotary_dim = 4 : i64} : tensor<3x8x12xf32>
  return %0 : tensor<3x8x12xf32>
}
