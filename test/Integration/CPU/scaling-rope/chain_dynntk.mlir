// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.dynamic_ntk_scale (R = 16, L = 32, factor 2) driven by a run-time
// sequence length n feeding a half pe.rope of the last 8 tokens (offset n -
// 8): n = 16 (below L), 32 (at L), 48 (above L).
// Tolerance: rtol 1e-5, atol 1e-6: the frequency op rounds inv_freq once to
// its result type and attention_scaling to f32, and the reference rotates with
// exactly those rounded values; the rope itself is f32 (see rope/*.mlir).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py chain_dynntk_below %t/chain_dynntk_below
// RUN: pe-run %s -e chain_dynntk --input=%t/chain_dynntk_below/x.npy --input=%t/chain_dynntk_below/n.npy --input=%t/chain_dynntk_below/p.npy --output=%t/chain_dynntk_below/out.npy
// RUN: %npycmp %t/chain_dynntk_below/out.npy %t/chain_dynntk_below/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py chain_dynntk_at %t/chain_dynntk_at
// RUN: pe-run %s -e chain_dynntk --input=%t/chain_dynntk_at/x.npy --input=%t/chain_dynntk_at/n.npy --input=%t/chain_dynntk_at/p.npy --output=%t/chain_dynntk_at/out.npy
// RUN: %npycmp %t/chain_dynntk_at/out.npy %t/chain_dynntk_at/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py chain_dynntk_above %t/chain_dynntk_above
// RUN: pe-run %s -e chain_dynntk --input=%t/chain_dynntk_above/x.npy --input=%t/chain_dynntk_above/n.npy --input=%t/chain_dynntk_above/p.npy --output=%t/chain_dynntk_above/out.npy
// RUN: %npycmp %t/chain_dynntk_above/out.npy %t/chain_dynntk_above/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @chain_dynntk(%x: tensor<2x8x16xf32>, %n: index, %o: index) -> tensor<2x8x16xf32> {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 32 : i64} : tensor<8xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) attention_scaling(%m) offset(%o : index) : tensor<2x8x16xf32>
  return %0 : tensor<2x8x16xf32>
}
