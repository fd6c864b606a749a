// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Explicit f32 slopes [0.9, -0.5, 0.3, 2, 1e-3] replace the ALiBi slopes;
// symmetric, offset 2.
// Tolerance: rtol 2.4e-7, atol 0: slope times an integer distance, at most two
// f32 roundings (slope, product).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_slopes_f32 %t
// RUN: pe-run %s -e alibi_slopes_f32 --input=%t/s.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_slopes_f32(%s: tensor<5xf32>, %o: index) -> tensor<5x4x6xf32> {
  %0 = pe.alibi_bias symmetric slopes(%s : tensor<5xf32>) offset(%o : index) : tensor<5x4x6xf32>
  return %0 : tensor<5x4x6xf32>
}
