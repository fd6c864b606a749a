// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.longrope_scale (R = 8, L = 16, max 64) driven by a run-time sequence
// length n feeding a half pe.rope (R = 8 < D = 16) of the last 8 tokens with
// its attention_scaling: n = 12 (short factors) and 40 (long factors).
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_longrope_short %t/chain_longrope_short
// RUN: pe-run %s -e chain_longrope --input=%t/chain_longrope_short/x.npy --input=%t/chain_longrope_short/n.npy --input=%t/chain_longrope_short/p.npy --output=%t/chain_longrope_short/out.npy
// RUN: %npycmp %t/chain_longrope_short/out.npy %t/chain_longrope_short/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py chain_longrope_long %t/chain_longrope_long
// RUN: pe-run %s -e chain_longrope --input=%t/chain_longrope_long/x.npy --input=%t/chain_longrope_long/n.npy --input=%t/chain_longrope_long/p.npy --output=%t/chain_longrope_long/out.npy
// RUN: %npycmp %t/chain_longrope_long/out.npy %t/chain_longrope_long/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_longrope(%x: tensor<2x4x8x16xf32>, %n: index, %o: index) -> tensor<2x4x8x16xf32> {
  %f, %m = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.25, 1.5, 2.0>, long_factor = array<f64: 1.5, 3.0, 6.0, 12.0>, original_max_position_embeddings = 16 : i64, max_position_embeddings = 64 : i64} : tensor<4xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<4xf32>) attention_scaling(%m) offset(%o : index) {rotary_dim = 8 : i64} : tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}
