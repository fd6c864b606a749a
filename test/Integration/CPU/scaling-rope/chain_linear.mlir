// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.linear_scale (factor 4, f32) feeding a half pe.rope at [T] positions
// (i32) up to 200.
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_linear %t
// RUN: pe-run %s -e chain_linear --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_linear(%x: tensor<2x6x16xf32>, %p: tensor<6xi32>) -> tensor<2x6x16xf32> {
  %f, %m = pe.linear_scale {factor = 4.0 : f64} : tensor<8xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) positions(%p : tensor<6xi32>) : tensor<2x6x16xf32>
  return %0 : tensor<2x6x16xf32>
}
