// Sharded execution test: attention with a symmetric ALiBi encoding (4 heads,
// Tq = 8, Tk = 16), top-left causal with causal_offset 3 and the ALiBi query
// offset 3, returning the log-sum-exp too; keys and values split over the key
// sequence on 2 ranks. Each rank's ALiBi distances and causal limit follow
// its first key (8r); the ranks combine outputs and lse through
// shard.all_reduce. pe-run --ranks=2 gathers both results; --check=cpu
// compares them with the unsharded function through pe-cpu-pipeline, and
// they are compared with the float64 reference
// (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-5, atol 1e-6 against the
// unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_keys_alibi_lse %t
// RUN: pe-run %s -e attention_keys_alibi_lse --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --output=%t/lse.npy --check=cpu --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/lse.npy %t/expected_lse.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_keys_alibi_lse' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// MPI: pe-run: check result 1: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_keys_alibi_lse(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x16x16xf32>, %v: tensor<1x4x16x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8xf32>) {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %qs = shard.shard %q to %rep : tensor<1x4x8x16xf32>
  %ks = shard.shard %k to %keys : tensor<1x4x16x16xf32>
  %vs = shard.shard %v to %keys : tensor<1x4x16x16xf32>
  %c3 = arith.constant 3 : index
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %attn_lse_init0 = tensor.empty() : tensor<1x4x8xf32>
  %o, %l = pe.attention %qs, %ks, %vs causal_offset(%c3 : index) alibi <symmetric, query_offset = 3> outs(%attn_init0, %attn_lse_init0 : tensor<1x4x8x16xf32>, tensor<1x4x8xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<1x4x8x16xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
  %os = shard.shard %o to %rep : tensor<1x4x8x16xf32>
  %ls = shard.shard %l to %rep : tensor<1x4x8xf32>
  return %os, %ls : tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
}
