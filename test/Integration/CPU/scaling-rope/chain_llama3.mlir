// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.llama3_scale (R = 32, L = 256: all three bands, f64) feeding a half
// pe.rope at offset 1000.
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_llama3 %t
// RUN: pe-run %s -e chain_llama3 --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_llama3(%x: tensor<1x4x8x32xf32>, %o: index) -> tensor<1x4x8x32xf32> {
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 256 : i64} : tensor<16xf64>
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf64>) attention_scaling(%m) offset(%o : index) : tensor<1x4x8x32xf32>
  return %0 : tensor<1x4x8x32xf32>
}
