// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Per-token cos/sin caches [B, T, R/2] (ONNX RotaryEmbedding without
// position_ids): token t of batch b uses row [b, t]; interleaved, partial
// rotary R = 12 of D = 16, attention scaling 0.75.
// Tolerance: rtol 1e-6, atol 1e-7: one f32 rotation of table values.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_cache_per_token %t
// RUN: pe-run %s -e rope_cache_per_token --input=%t/x.npy --input=%t/c.npy --input=%t/s.npy --input=%t/m.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-6 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_cache_per_token(%x: tensor<2x3x5x16xf32>, %c: tensor<2x5x6xf32>, %s: tensor<2x5x6xf32>, %m: f32) -> tensor<2x3x5x16xf32> {
  %0 = pe.rope interleaved %x cache(%c, %s : tensor<2x5x6xf32>, tensor<2x5x6xf32>) attention_scaling(%m) {rotary_dim = 12 : i64} : tensor<2x3x5x16xf32>
  return %0 : tensor<2x3x5x16xf32>
}
