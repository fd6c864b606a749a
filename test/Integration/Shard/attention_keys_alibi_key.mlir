// Sharded execution test: BLOOM's ALiBi (the `key` distance, b = j) as an
// encoding of causal GQA attention (6 heads, not a power of two, over 2 KV
// heads, Tq = Tk = 16, D = 32), keys and values split over the key sequence
// on 2 ranks. Rank r's op sees its keys at b = j (its block), so each of its
// rows' scores are m_h * 8r lower than the global ones; its lse is raised by
// m_h * 8r before the ranks combine. --check=cpu compares the gathered result
// with the unsharded function through pe-cpu-pipeline; it is compared with
// the float64 reference (test/Integration/lib/shard_cases.py), and must not
// match the combination without that shift (naive.npy), which differs from
// the reference.
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-5, atol 1e-6 against the
// unsharded program (another summation order).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_keys_alibi_key %t
// RUN: pe-run %s -e attention_keys_alibi_key --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'attention_keys_alibi_key' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_keys_alibi_key(%q: tensor<1x6x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x6x16x32xf32> {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %qs = shard.shard %q to %rep : tensor<1x6x16x32xf32>
  %ks = shard.shard %k to %keys : tensor<1x2x16x32xf32>
  %vs = shard.shard %v to %keys : tensor<1x2x16x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x6x16x32xf32>
  %o = pe.attention %qs, %ks, %vs alibi <key> outs(%attn_init0 : tensor<1x6x16x32xf32>) {causal} : tensor<1x6x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x6x16x32xf32>
  %os = shard.shard %o to %rep : tensor<1x6x16x32xf32>
  return %os : tensor<1x6x16x32xf32>
}
