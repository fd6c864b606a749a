// Sharded execution test: top-left causal GQA attention (4 query heads over
// 2 KV heads, Tq = 8, Tk = 16, causal offset 8) with per-batch valid key
// lengths [11, 0], keys and values split over the key sequence on 2 ranks,
// returning the log-sum-exp too. Rank r's keys are valid below L - 8r (the
// op clamps it to its block) and its causal offset is 8 - 8r; in batch 1 no
// rank has a valid key, so every shard's rows are empty (output 0, lse -inf)
// and so is the combination. --check=cpu compares the gathered results with
// the unsharded function through pe-cpu-pipeline; they are compared with the
// float64 reference (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-5, atol 1e-6 against the
// unsharded program (another summation order). -inf must meet -inf.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_keys_kv_lengths %t
// RUN: pe-run %s -e attention_keys_kv_lengths --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/l.npy --output=%t/out.npy --output=%t/lse.npy --check=cpu --rtol=1e-5 --atol=1e-6 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/lse.npy %t/expected_lse.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_keys_kv_lengths' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// MPI: pe-run: check result 1: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_keys_kv_lengths(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x16x16xf32>, %v: tensor<2x2x16x16xf32>, %l: tensor<2xi64>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8xf32>) {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ks = shard.shard %k to %keys : tensor<2x2x16x16xf32>
  %vs = shard.shard %v to %keys : tensor<2x2x16x16xf32>
  %c8 = arith.constant 8 : index
  %attn_init0 = tensor.empty() : tensor<2x4x8x16xf32>
  %attn_lse_init0 = tensor.empty() : tensor<2x4x8xf32>
  %o, %lse = pe.attention %q, %ks, %vs kv_lengths(%l : tensor<2xi64>) causal_offset(%c8 : index) outs(%attn_init0, %attn_lse_init0 : tensor<2x4x8x16xf32>, tensor<2x4x8xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x4x8x16xf32>, tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
  %os = shard.shard %o to %rep : tensor<2x4x8x16xf32>
  %ls = shard.shard %lse to %rep : tensor<2x4x8xf32>
  return %os, %ls : tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
}
