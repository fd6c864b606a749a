// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// [B, T] positions (i64) on a rank-4 input.
// Tolerance: rtol 1.2e-7, atol 0: one f32 addition of a gathered row, i.e. the
// exact sum rounded once (2^-24 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_batch_positions %t
// RUN: pe-run %s -e learned_batch_positions --input=%t/x.npy --input=%t/table.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_batch_positions(%x: tensor<2x2x5x8xf32>, %t: tensor<24x8xf32>, %p: tensor<2x5xi64>) -> tensor<2x2x5x8xf32> {
  %0 = pe.add_learned %x, %t positions(%p : tensor<2x5xi64>) : tensor<2x2x5x8xf32>, tensor<24x8xf32>
  return %0 : tensor<2x2x5x8xf32>
}
