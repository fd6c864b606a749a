// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// cos/sin cache tables [32, 8] holding arbitrary values in [-1.5, 1.5);
// interleaved; offset 4; dynamic T. Second run: offset 28 with T = 9 and P =
// 32, so positions 32..36 are clamped to the last row.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_cache_offset %t/rope_cache_offset
// RUN: pe-run %s -e rope_cache_offset --input=%t/rope_cache_offset/x.npy --input=%t/rope_cache_offset/cos.npy --input=%t/rope_cache_offset/sin.npy --input=%t/rope_cache_offset/p.npy --output=%t/rope_cache_offset/out.npy
// RUN: %npycmp %t/rope_cache_offset/out.npy %t/rope_cache_offset/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py rope_cache_offset_clamp %t/rope_cache_offset_clamp
// RUN: pe-run %s -e rope_cache_offset --input=%t/rope_cache_offset_clamp/x.npy --input=%t/rope_cache_offset_clamp/cos.npy --input=%t/rope_cache_offset_clamp/sin.npy --input=%t/rope_cache_offset_clamp/p.npy --output=%t/rope_cache_offset_clamp/out.npy
// RUN: %npycmp %t/rope_cache_offset_clamp/out.npy %t/rope_cache_offset_clamp/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_cache_offset(%x: tensor<2x?x16xf32>, %c: tensor<32x8xf32>, %s: tensor<32x8xf32>, %o: index) -> tensor<2x?x16xf32> {
  %0 = pe.rope interleaved %x cache(%c, %s : tensor<32x8xf32>, tensor<32x8xf32>) offset(%o : index) : tensor<2x?x16xf32>
  return %0 : tensor<2x?x16xf32>
}
