// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// static_offset 12 with T = 4 and P = 16 (the last rows of the table).
// Tolerance: rtol 1.2e-7, atol 0: one f32 addition of a gathered row, i.e. the
// exact sum rounded once (2^-24 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_static_offset %t
// RUN: pe-run %s -e learned_static_offset --input=%t/x.npy --input=%t/table.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_static_offset(%x: tensor<4x8xf32>, %t: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %0 = pe.add_learned %x, %t {static_offset = 12 : i64} : tensor<4x8xf32>, tensor<16x8xf32>
  return %0 : tensor<4x8xf32>
}
