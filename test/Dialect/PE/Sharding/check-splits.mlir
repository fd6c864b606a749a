// RUN: pe-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(pe-shard-check-splits))'
// RUN: not pe-opt %s --split-input-file --pe-shard-pipeline 2>&1 | FileCheck %s --check-prefix=PIPE

// Splits that MLIR 22's shard-partition would partition wrongly (blocks of
// size 0 for a missing grid axis, a dropped remainder for an uneven split)
// are errors at the annotation. pe-shard-pipeline stops at them.

// 12 tokens on 5 processes.
shard.grid @grid5(shape = 5) {sym_visibility = "private"}

func.func @uneven_tokens(%x: tensor<2x12x32xf32>) -> tensor<2x12x32xf32> {
  %seq = shard.sharding @grid5 split_axes = [[], [0]] : !shard.sharding
  // expected-error@+1 {{splits dimension 1 of size 12 over 5 processes (axes [0] of grid @grid5), which do not divide it: shard-partition supports even splits only (give the dimension a multiple of 5 elements, or split another dimension)}}
  %xs = shard.shard %x to %seq : tensor<2x12x32xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x12x32xf32>
  // expected-error@+1 {{splits dimension 1 of size 12 over 5 processes}}
  %ys = shard.shard %y to %seq : tensor<2x12x32xf32>
  return %ys : tensor<2x12x32xf32>
}
// PIPE: check-splits.mlir:[[@LINE-6]]:{{[0-9]+}}: error: 'shard.shard' op splits dimension 1 of size 12 over 5 processes

// -----

// 3 keys on 2 processes (the key sequence of an attention).
shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @uneven_keys(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x4x8xf32> {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  // expected-error@+1 {{splits dimension 2 of size 3 over 2 processes (axes [0] of grid @grid), which do not divide it}}
  %ks = shard.shard %k to %keys : tensor<1x2x3x8xf32>
  // expected-error@+1 {{splits dimension 2 of size 3 over 2 processes}}
  %vs = shard.shard %v to %keys : tensor<1x2x3x8xf32>
  %init = tensor.empty() : tensor<1x2x4x8xf32>
  %o = pe.attention %q, %ks, %vs outs(%init : tensor<1x2x4x8xf32>) : tensor<1x2x4x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
// PIPE: check-splits.mlir:[[@LINE-7]]:{{[0-9]+}}: error: 'shard.shard' op splits dimension 2 of size 3 over 2 processes

// -----

// A grid axis the grid does not have.
shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @missing_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'shard.sharding' op splits dimension 0 over grid axis 1, but grid @grid has 1 axis (shape [2])}}
  %s = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x8xf32>
  return %xs : tensor<4x8xf32>
}
// PIPE: check-splits.mlir:[[@LINE-4]]:{{[0-9]+}}: error: 'shard.sharding' op splits dimension 0 over grid axis 1

// -----

// Two axes of a 2x3 grid: 6 processes do not divide 8.
shard.grid @grid(shape = 2x3) {sym_visibility = "private"}

func.func @uneven_two_axes(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  // expected-error@+1 {{splits dimension 0 of size 8 over 6 processes (axes [0, 1] of grid @grid)}}
  %xs = shard.shard %x to %s : tensor<8x8xf32>
  return %xs : tensor<8x8xf32>
}
