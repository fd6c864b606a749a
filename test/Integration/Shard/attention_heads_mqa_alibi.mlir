// Sharded execution test: attention with a symmetric ALiBi encoding (query
// offset 8), bottom-right causal, MQA (4 query heads over one KV head,
// Tq = 8, Tk = 16) with the query heads split over 2 ranks: each rank holds
// 2 query heads and the replicated KV head, and computes the ALiBi slopes of
// its global heads (the 4-head table sliced at 2r) inside the attention
// kernel. pe-run --ranks=2 gathers the result; --check=cpu compares it with
// the unsharded function through pe-cpu-pipeline, and it is compared with
// the float64 reference (test/Integration/lib/shard_cases.py). It must not
// match shards that use the slopes of 2 heads (naive.npy), which differs
// from the reference.
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-6, atol 1e-7 against the
// unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_heads_mqa_alibi %t
// RUN: pe-run %s -e attention_heads_mqa_alibi --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'attention_heads_mqa_alibi' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_heads_mqa_alibi(%q: tensor<1x4x8x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x4x8x16xf32> {
  %heads = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %heads : tensor<1x4x8x16xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qs, %k, %v alibi <symmetric, query_offset = 8> outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal} : tensor<1x4x8x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x4x8x16xf32>
  %os = shard.shard %o to %heads : tensor<1x4x8x16xf32>
  return %os : tensor<1x4x8x16xf32>
}
