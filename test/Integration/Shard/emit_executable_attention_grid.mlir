// pe-run --emit-executable of a sharded attention on 4 ranks (a 2x2 grid,
// as attention_rows_keys_alibi.mlir): signed ALiBi bias plus causal GQA
// attention, query rows split on grid axis 0, keys on axis 1. The result is
// split on axis 0 only, so the two ranks of a row block hold the same block:
// rank 0 gathers all four (MPI_Gatherv) and checks that those replicas agree.
// Compared with the float64 reference (shard_cases.py
// attention_rows_keys_alibi; rtol 1e-4, atol 1e-5: f32 softmax with the CPU
// pipeline's polynomial exp) and with pe-run --ranks=4 (rtol 1e-6, atol
// 1e-7: the same per-rank program).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/shard_cases.py attention_rows_keys_alibi %t
// RUN: pe-run %s -e attention_rows_keys_alibi --pipeline=cpu --emit-executable=%t/exe | FileCheck %s --check-prefix=WROTE
// RUN: mpiexec.mpich -n 4 %t/exe --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// RUN: pe-run %s -e attention_rows_keys_alibi --ranks=4 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/ranks.npy
// RUN: %npycmp %t/out.npy %t/ranks.npy --rtol 1e-6 --atol 1e-7 | FileCheck %s
// RUN: echo "localhost:4" > %t/hosts
// RUN: mpiexec.mpich -n 4 -f %t/hosts %t/exe --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/hosts.npy
// RUN: %npycmp %t/hosts.npy %t/expected.npy --rtol 1e-4 --atol 1e-5 | FileCheck %s
// WROTE: pe-run: wrote '{{.*}}exe' (function 'attention_rows_keys_alibi', pipeline shard; needs MPICH's libmpich.so.12 (start it with 'mpiexec -n 4') at run time
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
