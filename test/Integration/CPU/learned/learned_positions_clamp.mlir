// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// [T] positions (i32) [3, 0, 17, -2, 40, 19, 20] into a table of P = 20 rows
// (dynamic): -2 is clamped to row 0, 40 and 20 to the last row 19.
// Tolerance: rtol 1.2e-7, atol 0: one f32 addition of a gathered row, i.e. the
// exact sum rounded once (2^-24 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_positions_clamp %t
// RUN: pe-run %s -e learned_positions_clamp --input=%t/x.npy --input=%t/table.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_positions_clamp(%x: tensor<2x7x8xf32>, %t: tensor<?x8xf32>, %p: tensor<7xi32>) -> tensor<2x7x8xf32> {
  %0 = pe.add_learned %x, %t positions(%p : tensor<7xi32>) : tensor<2x7x8xf32>, tensor<?x8xf32>
  return %0 : tensor<2x7x8xf32>
}
