// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved, R = 6 < D = 10, f64 tables [12, 3], static_offset 6 (positions
// 6..10).
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_cache_static_offset %t
// RUN: pe-run %s -e rope_cache_static_offset --input=%t/x.npy --input=%t/cos.npy --input=%t/sin.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_cache_static_offset(%x: tensor<3x5x10xf32>, %c: tensor<12x3xf64>, %s: tensor<12x3xf64>) -> tensor<3x5x10xf32> {
  %0 = pe.rope interleaved %x cache(%c, %s : tensor<12x3xf64>, tensor<12x3xf64>) {static_offset = 6 : i64, rotary_dim = 6 : i64} : tensor<3x5x10xf32>
  return %0 : tensor<3x5x10xf32>
}
