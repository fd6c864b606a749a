// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.ntk_scale (factor 2, f64) feeding a half pe.rope with R = 16 < D = 32.
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_ntk %t
// RUN: pe-run %s -e chain_ntk --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_ntk(%x: tensor<1x2x8x32xf32>, %o: index) -> tensor<1x2x8x32xf32> {
  %f, %m = pe.ntk_scale {factor = 2.0 : f64} : tensor<8xf64>
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf64>) attention_scaling(%m) offset(%o : index) {rotary_dim = 16 : i64} : tensor<1x2x8x32xf32>
  return %0 : tensor<1x2x8x32xf32>
}
