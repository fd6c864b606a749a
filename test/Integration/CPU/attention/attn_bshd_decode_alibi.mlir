// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// layout = bshd decode: one query per head, ALiBi (symmetric, query at 15)
// over 16 cached keys with valid lengths 16 and 9, MQA 4/1 (the decode
// kernel reads [B, S, H, D] in place).
// Tolerance: rtol 1e-5, atol 1e-6 (f32 attention math).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bshd_decode_alibi %t
// RUN: pe-run %s -e attn_bshd_decode_alibi --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bshd_decode_alibi(%q: tensor<2x1x4x16xf32>, %k: tensor<2x16x1x16xf32>, %v: tensor<2x16x1x16xf32>, %lengths: tensor<2xi32>) -> tensor<2x1x4x16xf32> {
  %attn_init0 = tensor.empty() : tensor<2x1x4x16xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<2xi32>) alibi <symmetric, query_offset = 15> outs(%attn_init0 : tensor<2x1x4x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x1x4x16xf32>, tensor<2x16x1x16xf32>, tensor<2x16x1x16xf32> -> tensor<2x1x4x16xf32>
  return %0 : tensor<2x1x4x16xf32>
}
