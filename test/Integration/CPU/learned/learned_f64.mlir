// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f64 input and table; offset operand (i32) 2.
// Tolerance: rtol 0, atol 0: one f64 addition, bit-identical to the reference.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_f64 %t
// RUN: pe-run %s -e learned_f64 --input=%t/x.npy --input=%t/table.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_f64(%x: tensor<2x6x4xf64>, %t: tensor<10x4xf64>, %o: i32) -> tensor<2x6x4xf64> {
  %0 = pe.add_learned %x, %t offset(%o : i32) : tensor<2x6x4xf64>, tensor<10x4xf64>
  return %0 : tensor<2x6x4xf64>
}
