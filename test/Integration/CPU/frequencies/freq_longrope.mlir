// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.longrope_scale, R = 8, L = 16, max_position_embeddings 64 (factor 4,
// scaling sqrt(1 + ln 4 / ln 16)), run-time sequence length (index) 8 and 16
// (short factors), 17 and 64 (long factors).
// Tolerance: rtol 1.2e-7, atol 0: computed in f64 and rounded once to f32
// (half an ulp is 2^-24 relative; 2^-23 allows another f64 formula to round
// the other way).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py freq_longrope_short %t/freq_longrope_short
// RUN: pe-run %s -e freq_longrope --input=%t/freq_longrope_short/n.npy --output=%t/freq_longrope_short/out_f.npy --output=%t/freq_longrope_short/out_m.npy
// RUN: %npycmp %t/freq_longrope_short/out_f.npy %t/freq_longrope_short/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_longrope_short/out_m.npy %t/freq_longrope_short/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_longrope_at %t/freq_longrope_at
// RUN: pe-run %s -e freq_longrope --input=%t/freq_longrope_at/n.npy --output=%t/freq_longrope_at/out_f.npy --output=%t/freq_longrope_at/out_m.npy
// RUN: %npycmp %t/freq_longrope_at/out_f.npy %t/freq_longrope_at/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_longrope_at/out_m.npy %t/freq_longrope_at/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_longrope_long %t/freq_longrope_long
// RUN: pe-run %s -e freq_longrope --input=%t/freq_longrope_long/n.npy --output=%t/freq_longrope_long/out_f.npy --output=%t/freq_longrope_long/out_m.npy
// RUN: %npycmp %t/freq_longrope_long/out_f.npy %t/freq_longrope_long/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_longrope_long/out_m.npy %t/freq_longrope_long/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_longrope_long64 %t/freq_longrope_long64
// RUN: pe-run %s -e freq_longrope --input=%t/freq_longrope_long64/n.npy --output=%t/freq_longrope_long64/out_f.npy --output=%t/freq_longrope_long64/out_m.npy
// RUN: %npycmp %t/freq_longrope_long64/out_f.npy %t/freq_longrope_long64/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_longrope_long64/out_m.npy %t/freq_longrope_long64/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @freq_longrope(%n: index) -> (tensor<4xf32>, tensor<1xf32>) {
  %f, %m = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.25, 1.5, 2.0>, long_factor = array<f64: 1.5, 3.0, 6.0, 12.0>, original_max_position_embeddings = 16 : i64, max_position_embeddings = 64 : i64} : tensor<4xf32>
  %t = tensor.from_elements %m : tensor<1xf32>
  return %f, %t : tensor<4xf32>, tensor<1xf32>
}
