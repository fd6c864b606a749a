// RUN: pe-opt %s --split-input-file --verify-diagnostics --pe-lower-shard-collectives

// Collectives neither this pass nor convert-shard-to-mpi lowers are errors.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @broadcast(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shard.broadcast' is not lowered to MPI: MLIR 22's convert-shard-to-mpi has no pattern for it, and pe-lower-shard-collectives only lowers all_gather, all_to_all, reduce_scatter and all_slice on static shapes and grids}}
  %0 = shard.broadcast %x on @grid grid_axes = [0] root = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// A dynamic shape is not lowered.
func.func @gather_dynamic(%x: tensor<?x4xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{'shard.all_gather' is not lowered to MPI}}
  %0 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<?x4xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
