// 12 tokens split over 5 processes (ranks-errors.mlir).
shard.grid @grid(shape = 5) {sym_visibility = "private"}

func.func @f(%x: tensor<2x12x4xf32>) -> tensor<2x12x4xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x12x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x12x4xf32>
  %ys = shard.shard %y to %s : tensor<2x12x4xf32>
  return %ys : tensor<2x12x4xf32>
}
