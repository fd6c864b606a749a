// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 input and table; offset operand (i64) 9 with T = 3, P = 12.
// Tolerance: rtol 1e-3, atol 1e-3: the result is rounded once to f16 (half an
// ulp is 2^-11 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_f16 %t
// RUN: pe-run %s -e learned_f16 --input=%t/x.npy --input=%t/table.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_f16(%x: tensor<3x8xf16>, %t: tensor<12x8xf16>, %o: i64) -> tensor<3x8xf16> {
  %0 = pe.add_learned %x, %t offset(%o : i64) : tensor<3x8xf16>, tensor<12x8xf16>
  return %0 : tensor<3x8xf16>
}
