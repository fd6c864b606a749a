// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// The lse result: one attention split over its key halves (split-KV
// decoding, key-sequence sharding). Each half returns its output and its
// log-sum-exp; rows of batch 1 in the second half have no valid key (lse
// -inf, output 0). The combination of the halves is the whole attention
// (selftest_pe_ref.py, attention_lse_combines_key_splits).
// Tolerance: rtol 1e-5, atol 2e-6 (f32 softmax math; lse is a log of a sum
// of up to 24 terms).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_lse_split %t
// RUN: pe-run %s -e attn_lse_split --input=%t/q.npy --input=%t/k1.npy --input=%t/v1.npy --input=%t/l1.npy --input=%t/k2.npy --input=%t/v2.npy --input=%t/l2.npy --output=%t/out1.npy --output=%t/lse1.npy --output=%t/out2.npy --output=%t/lse2.npy
// RUN: %npycmp %t/out1.npy %t/o1.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/lse1.npy %t/s1.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/out2.npy %t/o2.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/lse2.npy %t/s2.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_lse_split(%q: tensor<2x4x20x16xf32>, %k1: tensor<2x2x24x16xf32>, %v1: tensor<2x2x24x16xf32>, %l1: tensor<2xi32>,
                          %k2: tensor<2x2x24x16xf32>, %v2: tensor<2x2x24x16xf32>, %l2: tensor<2xi32>)
    -> (tensor<2x4x20x16xf32>, tensor<2x4x20xf32>, tensor<2x4x20x16xf32>, tensor<2x4x20xf32>) {
  %c24 = arith.constant 24 : index
  %attn_init0 = tensor.empty() : tensor<2x4x20x16xf32>
  %attn_lse_init0 = tensor.empty() : tensor<2x4x20xf32>
  %o1, %s1 = pe.attention %q, %k1, %v1 kv_lengths(%l1 : tensor<2xi32>) causal_offset(%c24 : index) outs(%attn_init0, %attn_lse_init0 : tensor<2x4x20x16xf32>, tensor<2x4x20xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x4x20x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x16xf32> -> tensor<2x4x20x16xf32>, tensor<2x4x20xf32>
  %attn_init1 = tensor.empty() : tensor<2x4x20x16xf32>
  %attn_lse_init1 = tensor.empty() : tensor<2x4x20xf32>
  %o2, %s2 = pe.attention %q, %k2, %v2 kv_lengths(%l2 : tensor<2xi32>) outs(%attn_init1, %attn_lse_init1 : tensor<2x4x20x16xf32>, tensor<2x4x20xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x4x20x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x16xf32> -> tensor<2x4x20x16xf32>, tensor<2x4x20xf32>
  return %o1, %s1, %o2, %s2 : tensor<2x4x20x16xf32>, tensor<2x4x20xf32>, tensor<2x4x20x16xf32>, tensor<2x4x20xf32>
}
