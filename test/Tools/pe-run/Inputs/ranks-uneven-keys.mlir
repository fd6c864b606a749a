// An attention's 3 keys split over 2 processes (ranks-errors.mlir).
shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x2x4x8xf32> {
  %keys = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %keys : tensor<1x2x3x8xf32>
  %vs = shard.shard %v to %keys : tensor<1x2x3x8xf32>
  %init = tensor.empty() : tensor<1x2x4x8xf32>
  %o = pe.attention %q, %ks, %vs outs(%init : tensor<1x2x4x8xf32>) : tensor<1x2x4x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
