// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// layout = bshd: query, key, value and result are [B, S, heads, D]. RoPE
// (half, f64 table, query offset 7) on Q and K, causal, GQA 8/2, Tq = 40 <
// Tk = 72. The reference lowering transposes around the rotation; the
// generated kernel reads the operands in place through strided views.
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math on rotated logits).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bshd_rope_gqa %t
// RUN: pe-run %s -e attn_bshd_rope_gqa --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bshd_rope_gqa(%q: tensor<2x40x8x32xf32>, %k: tensor<2x72x2x32xf32>, %v: tensor<2x72x2x32xf32>, %f: tensor<16xf64>) -> tensor<2x40x8x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x40x8x32xf32>
  %0 = pe.attention %q, %k, %v rope <half, query_offset = 7> inv_freq(%f : tensor<16xf64>) outs(%attn_init0 : tensor<2x40x8x32xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<2x40x8x32xf32>, tensor<2x72x2x32xf32>, tensor<2x72x2x32xf32> -> tensor<2x40x8x32xf32>
  return %0 : tensor<2x40x8x32xf32>
}
