// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Half layout, R = 8 < D = 16, f64 tables [20, 4] (dynamic P), [T] positions
// (i32) [5, -1, 19, 25, 0, 7]: -1 reads row 0 and 25 row 19 (clamped).
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_cache_positions_clamp %t
// RUN: pe-run %s -e rope_cache_positions_clamp --input=%t/x.npy --input=%t/cos.npy --input=%t/sin.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_cache_positions_clamp(%x: tensor<1x2x6x16xf32>, %c: tensor<?x4xf64>, %s: tensor<?x4xf64>, %p: tensor<6xi32>) -> tensor<1x2x6x16xf32> {
  %0 = pe.rope half %x cache(%c, %s : tensor<?x4xf64>, tensor<?x4xf64>) positions(%p : tensor<6xi32>) {rotary_dim = 8 : i64} : tensor<1x2x6x16xf32>
  return %0 : tensor<1x2x6x16xf32>
}
