// RUN: pe-opt %s --split-input-file --verify-diagnostics --pe-finalize-shard-to-mpi | FileCheck %s

// After convert-shard-to-mpi: the grids go, anything else of shard is an
// error.

// CHECK-LABEL: module
// CHECK-NOT: shard.grid
// CHECK: func @f
shard.grid @grid(shape = 2)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @left(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'shard.all_gather' was not lowered by convert-shard-to-mpi}}
  %0 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
  %1 = tensor.extract_slice %0[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}
