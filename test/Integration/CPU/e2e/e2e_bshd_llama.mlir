// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A Llama block in [B, S, H, D]: pe.rope {sequence_dim = 1} on Q (8 heads)
// and K (2 heads), then a causal bshd pe.attention. Through pe-cpu-pipeline
// the ropes fuse into the attention, whose kernel reads [B, S, H, D] in place.
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math on rotated logits).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_bshd_llama %t
// RUN: pe-run %s -e e2e_bshd_llama --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_bshd_llama(%q: tensor<1x24x8x32xf32>, %k: tensor<1x24x2x32xf32>, %v: tensor<1x24x2x32xf32>, %f: tensor<16xf64>) -> tensor<1x24x8x32xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<16xf64>) {sequence_dim = 1 : i64} : tensor<1x24x8x32xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<16xf64>) {sequence_dim = 1 : i64} : tensor<1x24x2x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x24x8x32xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x24x8x32xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<1x24x8x32xf32>, tensor<1x24x2x32xf32>, tensor<1x24x2x32xf32> -> tensor<1x24x8x32xf32>
  return %0 : tensor<1x24x8x32xf32>
}
