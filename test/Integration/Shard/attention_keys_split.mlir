// Sharded execution test: RoPE on queries and keys, then causal GQA attention
// (4 query heads over 2 KV heads, Tq = Tk = 16) with the keys and values split
// over the key sequence on 2 ranks and the queries whole: each rank attends
// to its 8 keys (rotated at positions 8r + j, causal limit moved by 8r) and
// returns its log-sum-exp; the ranks combine with shard.all_reduce (max of
// the lse, then the sums of the weights and of the weighted outputs). pe-run
// --ranks=2 gathers the (replicated) result; --check=cpu compares it with the
// unsharded function through pe-cpu-pipeline, and it is compared with the
// float64 reference (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-5, atol 1e-6 against the
// unsharded program (the combination sums in another order and rounds the
// partial outputs to f32 once more).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_keys_split %t
// RUN: pe-run %s -e attention_keys_split --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_keys_split' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_keys_split(%q: tensor<1x4x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x4x16x32xf32> {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %qs = shard.shard %q to %rep : tensor<1x4x16x32xf32>
  %ks = shard.shard %k to %keys : tensor<1x2x16x32xf32>
  %vs = shard.shard %v to %keys : tensor<1x2x16x32xf32>
  %f, %m = pe.rope_frequencies : tensor<16xf64>
  %qr = pe.rope half %qs inv_freq(%f : tensor<16xf64>) : tensor<1x4x16x32xf32>
  %kr = pe.rope half %ks inv_freq(%f : tensor<16xf64>) : tensor<1x2x16x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x16x32xf32>
  %o = pe.attention %qr, %kr, %vs outs(%attn_init0 : tensor<1x4x16x32xf32>) {causal} : tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x4x16x32xf32>
  %os = shard.shard %o to %rep : tensor<1x4x16x32xf32>
  return %os : tensor<1x4x16x32xf32>
}
