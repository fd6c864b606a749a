// Sharded execution test on 4 ranks (a 2x2 grid): a signed ALiBi bias
// (pe.alibi_bias, query offset 8) added to causal GQA attention (4 query
// heads over 2 KV heads, Tq = 8, Tk = 16), with the query rows split on grid
// axis 0 and the keys on axis 1. Each rank computes its [4, 4, 8] block of
// the bias (query offset + 4 r0, minus its first key 8 r1), attends to its
// keys, and the ranks of a row block combine over axis 1 through the
// log-sum-exp. --check=cpu compares the gathered result with the unsharded
// function through pe-cpu-pipeline; it is compared with the float64
// reference (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-5, atol 1e-6 against the
// unsharded program (another summation order).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_rows_keys_alibi %t
// RUN: pe-run %s -e attention_rows_keys_alibi --ranks=4 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_rows_keys_alibi' on 4 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2x2) {sym_visibility = "private"}

func.func @attention_rows_keys_alibi(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x16xf32>) -> tensor<1x4x8x16xf32> {
  %rows = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %keys = shard.sharding @grid split_axes = [[], [], [1]] : !shard.sharding
  %qs = shard.shard %q to %rows : tensor<1x4x8x16xf32>
  %ks = shard.shard %k to %keys : tensor<1x2x16x16xf32>
  %vs = shard.shard %v to %keys : tensor<1x2x16x16xf32>
  %b = pe.alibi_bias signed {static_offset = 8 : i64} : tensor<4x8x16xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qs, %ks, %vs bias(%b : tensor<4x8x16xf32>) outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal} : tensor<1x4x8x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x4x8x16xf32>
  %os = shard.shard %o to %rows : tensor<1x4x8x16xf32>
  return %os : tensor<1x4x8x16xf32>
}
