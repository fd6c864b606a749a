// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// The lse result of a decode step (one query per head: the decode kernel in
// pe-cpu-pipeline): GQA 8/2, valid lengths 32, 5 and 0 (the last batch has
// no valid key: lse -inf, output 0), causal, a window of 8 keys.
// Tolerance: rtol 1e-5, atol 2e-6 (f32 softmax math).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_lse_decode %t
// RUN: pe-run %s -e attn_lse_decode --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/l.npy --output=%t/out.npy --output=%t/lse.npy
// RUN: %npycmp %t/out.npy %t/o.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/lse.npy %t/s.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_lse_decode(%q: tensor<3x8x1x16xf32>, %k: tensor<3x2x32x16xf32>, %v: tensor<3x2x32x16xf32>, %l: tensor<3xi32>)
    -> (tensor<3x8x1x16xf32>, tensor<3x8x1xf32>) {
  %attn_init0 = tensor.empty() : tensor<3x8x1x16xf32>
  %attn_lse_init0 = tensor.empty() : tensor<3x8x1xf32>
  %o, %s = pe.attention %q, %k, %v kv_lengths(%l : tensor<3xi32>) outs(%attn_init0, %attn_lse_init0 : tensor<3x8x1x16xf32>, tensor<3x8x1xf32>) {causal, window = 8 : i64} : tensor<3x8x1x16xf32>, tensor<3x2x32x16xf32>, tensor<3x2x32x16xf32> -> tensor<3x8x1x16xf32>, tensor<3x8x1xf32>
  return %o, %s : tensor<3x8x1x16xf32>, tensor<3x8x1xf32>
}
