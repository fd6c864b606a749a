// RUN: pe-opt %s --verify-diagnostics --pass-pipeline='builtin.module(func.func(sharding-propagation,pe-shard-unfold-constants{max-elements=3}))'

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @too_large(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  // expected-error@+1 {{a non-splat tensor constant of 4 elements cannot be partitioned by shard-partition, and is larger than pe-shard-unfold-constants' max-elements (3)}}
  %f = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}
