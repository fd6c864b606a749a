// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// max_bias 4 (ggml's generalisation; 8 is the paper's), H = 12, key distance.
// Tolerance: rtol 2.4e-7, atol 0: slope times an integer distance, at most two
// f32 roundings (slope, product).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py alibi_max_bias %t
// RUN: pe-run %s -e alibi_max_bias --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_max_bias() -> tensor<12x4x8xf32> {
  %0 = pe.alibi_bias key {max_bias = 4.0 : f64} : tensor<12x4x8xf32>
  return %0 : tensor<12x4x8xf32>
}
