// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Half layout, 11 heads x 1030 tokens: at least 16 token blocks, so each
// parallel task (a 64-token block) rotates every head, in groups of 8 heads
// per token (8 + 3 here), and the last block has 6 tokens. Offset operand 5,
// dynamic T.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_half_head_groups %t
// RUN: pe-run %s -e rope_half_head_groups --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_half_head_groups(%x: tensor<1x11x?x32xf32>, %f: tensor<16xf32>, %o: index) -> tensor<1x11x?x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) offset(%o : index) : tensor<1x11x?x32xf32>
  return %0 : tensor<1x11x?x32xf32>
}
