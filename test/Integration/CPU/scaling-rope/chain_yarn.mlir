// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.yarn_scale (R = 32, factor 4, L = 2048, f32) feeding a half pe.rope with
// its attention_scaling 0.1 ln 4 + 1, offset 30.
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_yarn %t
// RUN: pe-run %s -e chain_yarn --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_yarn(%x: tensor<2x8x32xf32>, %o: index) -> tensor<2x8x32xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 2048 : i64} : tensor<16xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) attention_scaling(%m) offset(%o : index) : tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}
