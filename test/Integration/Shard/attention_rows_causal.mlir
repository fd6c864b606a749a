// Sharded execution test: RoPE on queries and keys, then causal attention
// (bottom-right, Tq = Tk = 16, 4 query heads over 2 KV heads) with the query
// rows split over 2 ranks (keys and values whole on each rank): rank r's rows
// are rotated at positions 8r + i and see the keys j <= 8r + i. pe-run
// --ranks=2 gathers the result; --check=cpu compares it with the unsharded
// function through pe-cpu-pipeline, and it is compared with the float64
// reference (test/Integration/lib/shard_cases.py). It must not match shards
// that rotate and mask their rows as rows 0..7 (naive.npy), which differs
// from the reference.
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-6, atol 1e-7 against the
// unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_rows_causal %t
// RUN: pe-run %s -e attention_rows_causal --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'attention_rows_causal' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_rows_causal(%q: tensor<1x4x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x4x16x32xf32> {
  %rows = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %qs = shard.shard %q to %rows : tensor<1x4x16x32xf32>
  %ks = shard.shard %k to %rep : tensor<1x2x16x32xf32>
  %vs = shard.shard %v to %rep : tensor<1x2x16x32xf32>
  %f, %m = pe.rope_frequencies : tensor<16xf64>
  %qr = pe.rope half %qs inv_freq(%f : tensor<16xf64>) : tensor<1x4x16x32xf32>
  %kr = pe.rope half %ks inv_freq(%f : tensor<16xf64>) : tensor<1x2x16x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x16x32xf32>
  %o = pe.attention %qr, %kr, %vs outs(%attn_init0 : tensor<1x4x16x32xf32>) {causal} : tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x4x16x32xf32>
  %os = shard.shard %o to %rows : tensor<1x4x16x32xf32>
  return %os : tensor<1x4x16x32xf32>
}
