// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// ALiBi slopes of H = 40 heads (not a power of two), key distance b = j; Tq =
// 5 queries at positions 4..8 (offset operand 4), Tk = 9 keys.
// Tolerance: rtol 2.4e-7, atol 0: slope times an integer distance, at most two
// f32 roundings (slope, product).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_h40_key %t
// RUN: pe-run %s -e alibi_h40_key --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_h40_key(%o: index) -> tensor<40x5x9xf32> {
  %0 = pe.alibi_bias key offset(%o : index) : tensor<40x5x9xf32>
  return %0 : tensor<40x5x9xf32>
}
