// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.yarn_scale with mscale 0.707 but no mscale_all_dim: scaling
// get_mscale(8).
// Tolerance: rtol 1.2e-7, atol 0: computed in f64 and rounded once to f32
// (half an ulp is 2^-24 relative; 2^-23 allows another f64 formula to round
// the other way).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py freq_yarn_mscale_only %t
// RUN: pe-run %s -e freq_yarn_mscale_only --output=%t/out_f.npy --output=%t/out_m.npy
// RUN: %npycmp %t/out_f.npy %t/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/out_m.npy %t/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @freq_yarn_mscale_only() -> (tensor<16xf32>, tensor<1xf32>) {
  %f, %m = pe.yarn_scale {factor = 8.0 : f64, original_max_position_embeddings = 2048 : i64, mscale = 0.707 : f64} : tensor<16xf32>
  %t = tensor.from_elements %m : tensor<1xf32>
  return %f, %t : tensor<16xf32>, tensor<1xf32>
}
