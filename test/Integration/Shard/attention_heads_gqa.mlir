// Sharded execution test: RoPE on queries and keys, then causal GQA attention
// (8 query heads over 2 KV heads, T = 16, D = 32) with the heads split over 2
// ranks: each rank holds 4 query heads and their KV head. pe-shard-pipeline
// fuses the rotations into the attention kernel on each rank. pe-run
// --ranks=2 gathers the result; --check=cpu compares it with the unsharded
// function through pe-cpu-pipeline, and it is compared with the float64
// reference (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-6, atol 1e-7 against the
// unsharded program (the same kernel on the same heads).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_heads_gqa %t
// RUN: pe-run %s -e attention_heads_gqa --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_heads_gqa' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_heads_gqa(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %heads = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %heads : tensor<1x8x16x32xf32>
  %ks = shard.shard %k to %heads : tensor<1x2x16x32xf32>
  %vs = shard.shard %v to %heads : tensor<1x2x16x32xf32>
  %f, %m = pe.rope_frequencies : tensor<16xf64>
  %qr = pe.rope half %qs inv_freq(%f : tensor<16xf64>) : tensor<1x8x16x32xf32>
  %kr = pe.rope half %ks inv_freq(%f : tensor<16xf64>) : tensor<1x2x16x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x16x32xf32>
  %o = pe.attention %qr, %kr, %vs outs(%attn_init0 : tensor<1x8x16x32xf32>) {causal} : tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x8x16x32xf32>
  %os = shard.shard %o to %heads : tensor<1x8x16x32xf32>
  return %os : tensor<1x8x16x32xf32>
}
