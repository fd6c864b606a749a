// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// H = 12, symmetric; static_offset 3 plus an i32 offset operand 2: queries at
// 5..8.
// Tolerance: rtol 2.4e-7, atol 0: slope times an integer distance, at most two
// f32 roundings (slope, product).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_static_offset %t
// RUN: pe-run %s -e alibi_static_offset --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_static_offset(%o: i32) -> tensor<12x4x10xf32> {
  %0 = pe.alibi_bias symmetric offset(%o : i32) {static_offset = 3 : i64} : tensor<12x4x10xf32>
  return %0 : tensor<12x4x10xf32>
}
