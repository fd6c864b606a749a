// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.longrope_scale without a sequence length: the short factors; f64 result.
// Tolerance: rtol 1e-13, atol 0: computed in f64; another f64 formula (pow vs
// exp/log) differs by a few ulp.
// Tolerance: rtol 1.2e-7, atol 0: computed in f64 and rounded once to f32
// (half an ulp is 2^-24 relative; 2^-23 allows another f64 formula to round
// the other way).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py freq_longrope_noseq %t
// RUN: pe-run %s -e freq_longrope_noseq --output=%t/out_f.npy --output=%t/out_m.npy
// RUN: %npycmp %t/out_f.npy %t/expected_f.npy --rtol 1e-13 --atol 0 | FileCheck %s
// RUN: %npycmp %t/out_m.npy %t/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @freq_longrope_noseq() -> (tensor<4xf64>, tensor<1xf32>) {
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.25, 1.5, 2.0>, long_factor = array<f64: 1.5, 3.0, 6.0, 12.0>, original_max_position_embeddings = 16 : i64, max_position_embeddings = 64 : i64} : tensor<4xf64>
  %t = tensor.from_elements %m : tensor<1xf32>
  return %f, %t : tensor<4xf64>, tensor<1xf32>
}
