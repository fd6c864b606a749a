// Sharded execution test: causal attention with per-batch valid key lengths
// (kv_lengths = [5, 8]), B = 2 split over 2 ranks. Only the queries are
// annotated; propagation splits the keys, values and lengths with them, and
// pe-run gives each rank the blocks propagation chose. pe-run --ranks=2
// gathers the result; --check=cpu compares it with the unsharded function
// through pe-cpu-pipeline, and it is compared with the float64 reference
// (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-4, atol 1e-5 against the reference (f32 softmax with
// the CPU pipeline's polynomial exp); rtol 1e-6, atol 1e-7 against the
// unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_batch_kv_lengths %t
// RUN: pe-run %s -e attention_batch_kv_lengths --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/l.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// MPI: pe-run: ran 'attention_batch_kv_lengths' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_batch_kv_lengths(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %l: tensor<2xi32>) -> tensor<2x4x8x16xf32> {
  %batch = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %batch : tensor<2x4x8x16xf32>
  %attn_init0 = tensor.empty() : tensor<2x4x8x16xf32>
  %o = pe.attention %qs, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %os = shard.shard %o to %batch : tensor<2x4x8x16xf32>
  return %os : tensor<2x4x8x16xf32>
}
