// RUN: pe-opt %s --canonicalize --split-input-file | FileCheck %s

// A constant positions tensor that is an arange `p0, p0 + 1, ...` (in every
// row of a [B, T] one) is the offset form at static offset p0; any other
// tensor stays.

// CHECK-LABEL: func @attention_arange
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_offset = 5, key_offset = 2> inv_freq(%{{.*}} : tensor<8xf32>) outs(
// CHECK-NOT: positions(
func.func @attention_arange(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %f: tensor<8xf32>) -> tensor<2x4x8x16xf32> {
  %pq = arith.constant dense<[5, 6, 7, 8, 9, 10, 11, 12]> : tensor<8xi32>
  %pk = arith.constant dense<[[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]> : tensor<2x10xi64>
  %init = tensor.empty() : tensor<2x4x8x16xf32>
  %0 = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%pq : tensor<8xi32>) key_positions(%pk : tensor<2x10xi64>) outs(%init : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x16xf32> -> tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}

// -----

// Must not fold: not an arange (a repeated position); [B, T] rows that
// start at different positions (continuous batching); negative positions;
// an arange that runs past the cache's 10 rows (clamped at run time, a
// verifier error as a static offset).
// CHECK-LABEL: func @attention_no_fold
// CHECK: query_positions(%{{.*}} : tensor<8xi32>) key_positions(%{{.*}} : tensor<2x8xi64>)
// CHECK: query_positions(%{{.*}} : tensor<8xi32>) outs(
// CHECK: query_positions(%{{.*}} : tensor<8xi32>) outs(
func.func @attention_no_fold(%q: tensor<2x4x8x16xf32>, %f: tensor<8xf32>, %c: tensor<10x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) {
  %rep = arith.constant dense<[0, 1, 2, 3, 3, 4, 5, 6]> : tensor<8xi32>
  %rows = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 6, 7, 8, 9, 10]]> : tensor<2x8xi64>
  %neg = arith.constant dense<[-1, 0, 1, 2, 3, 4, 5, 6]> : tensor<8xi32>
  %past = arith.constant dense<[3, 4, 5, 6, 7, 8, 9, 10]> : tensor<8xi32>
  %init = tensor.empty() : tensor<2x4x8x16xf32>
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%rep : tensor<8xi32>) key_positions(%rows : tensor<2x8xi64>) outs(%init : tensor<2x4x8x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %1 = pe.attention %q, %q, %q rope <half, query_only> inv_freq(%f : tensor<8xf32>) query_positions(%neg : tensor<8xi32>) outs(%init : tensor<2x4x8x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %2 = pe.attention %q, %q, %q rope <half, query_only> cache(%c, %c : tensor<10x8xf32>, tensor<10x8xf32>) query_positions(%past : tensor<8xi32>) outs(%init : tensor<2x4x8x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  return %0, %1, %2 : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
}

// -----

// pe.rope alike: an arange folds (here inside the 10-row cache), a
// permutation does not.
// CHECK-LABEL: func @rope_arange
// CHECK: pe.rope half %{{.*}} cache(%{{.*}}, %{{.*}} : tensor<10x8xf32>, tensor<10x8xf32>) {static_offset = 2 : i64}
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<8xf32>) positions(%{{.*}} : tensor<8xi64>)
func.func @rope_arange(%x: tensor<2x4x8x16xf32>, %f: tensor<8xf32>, %c: tensor<10x8xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) {
  %p = arith.constant dense<[[2, 3, 4, 5, 6, 7, 8, 9], [2, 3, 4, 5, 6, 7, 8, 9]]> : tensor<2x8xi32>
  %perm = arith.constant dense<[1, 0, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %0 = pe.rope half %x cache(%c, %c : tensor<10x8xf32>, tensor<10x8xf32>) positions(%p : tensor<2x8xi32>) : tensor<2x4x8x16xf32>
  %1 = pe.rope half %x inv_freq(%f : tensor<8xf32>) positions(%perm : tensor<8xi64>) : tensor<2x4x8x16xf32>
  return %0, %1 : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
}
