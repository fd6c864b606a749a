// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.yarn_scale (factor 8, mscale 1, mscale_all_dim 0.5, no truncation, f64)
// feeding an interleaved pe.rope with its attention_scaling.
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_yarn_mscale %t
// RUN: pe-run %s -e chain_yarn_mscale --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_yarn_mscale(%x: tensor<2x8x32xf32>, %o: index) -> tensor<2x8x32xf32> {
  %f, %m = pe.yarn_scale {factor = 8.0 : f64, original_max_position_embeddings = 2048 : i64, mscale = 1.0 : f64, mscale_all_dim = 0.5 : f64, truncate = false} : tensor<16xf64>
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<16xf64>) attention_scaling(%m) offset(%o : index) : tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}
