// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// H = 6, signed; dynamic [Tq, Tk] = [3, 7] from index operands, i64 offset 4.
// Tolerance: rtol 2.4e-7, atol 0: slope times an integer distance, at most two
// f32 roundings (slope, product).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_dynamic %t
// RUN: pe-run %s -e alibi_dynamic --input=%t/tq.npy --input=%t/tk.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_dynamic(%tq: index, %tk: index, %o: i64) -> tensor<6x?x?xf32> {
  %0 = pe.alibi_bias signed [%tq, %tk] offset(%o : i64) : tensor<6x?x?xf32>
  return %0 : tensor<6x?x?xf32>
}
