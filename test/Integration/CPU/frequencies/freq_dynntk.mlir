// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.dynamic_ntk_scale, R = 16, L = max_position_embeddings = 32, factor 2,
// with the sequence length a run-time index: 10 (below L: default table), 32
// (at L: default), 33, 50 (above) and 1000.
// Tolerance: rtol 1.2e-7, atol 0: computed in f64 and rounded once to f32
// (half an ulp is 2^-24 relative; 2^-23 allows another f64 formula to round
// the other way).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py freq_dynntk_below %t/freq_dynntk_below
// RUN: pe-run %s -e freq_dynntk --input=%t/freq_dynntk_below/n.npy --output=%t/freq_dynntk_below/out_f.npy --output=%t/freq_dynntk_below/out_m.npy
// RUN: %npycmp %t/freq_dynntk_below/out_f.npy %t/freq_dynntk_below/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_dynntk_below/out_m.npy %t/freq_dynntk_below/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_dynntk_at %t/freq_dynntk_at
// RUN: pe-run %s -e freq_dynntk --input=%t/freq_dynntk_at/n.npy --output=%t/freq_dynntk_at/out_f.npy --output=%t/freq_dynntk_at/out_m.npy
// RUN: %npycmp %t/freq_dynntk_at/out_f.npy %t/freq_dynntk_at/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_dynntk_at/out_m.npy %t/freq_dynntk_at/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_dynntk_above %t/freq_dynntk_above
// RUN: pe-run %s -e freq_dynntk --input=%t/freq_dynntk_above/n.npy --output=%t/freq_dynntk_above/out_f.npy --output=%t/freq_dynntk_above/out_m.npy
// RUN: %npycmp %t/freq_dynntk_above/out_f.npy %t/freq_dynntk_above/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_dynntk_above/out_m.npy %t/freq_dynntk_above/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_dynntk_above50 %t/freq_dynntk_above50
// RUN: pe-run %s -e freq_dynntk --input=%t/freq_dynntk_above50/n.npy --output=%t/freq_dynntk_above50/out_f.npy --output=%t/freq_dynntk_above50/out_m.npy
// RUN: %npycmp %t/freq_dynntk_above50/out_f.npy %t/freq_dynntk_above50/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_dynntk_above50/out_m.npy %t/freq_dynntk_above50/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py freq_dynntk_far %t/freq_dynntk_far
// RUN: pe-run %s -e freq_dynntk --input=%t/freq_dynntk_far/n.npy --output=%t/freq_dynntk_far/out_f.npy --output=%t/freq_dynntk_far/out_m.npy
// RUN: %npycmp %t/freq_dynntk_far/out_f.npy %t/freq_dynntk_far/expected_f.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %npycmp %t/freq_dynntk_far/out_m.npy %t/freq_dynntk_far/expected_m.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @freq_dynntk(%n: index) -> (tensor<8xf32>, tensor<1xf32>) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 32 : i64} : tensor<8xf32>
  %t = tensor.from_elements %m : tensor<1xf32>
  return %f, %t : tensor<8xf32>, tensor<1xf32>
}
