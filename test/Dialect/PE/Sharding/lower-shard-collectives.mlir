// RUN: pe-opt %s --split-input-file --pe-lower-shard-collectives | FileCheck %s
// RUN: pe-opt %s --split-input-file --pe-lower-shard-collectives --convert-shard-to-mpi --pe-finalize-shard-to-mpi | FileCheck %s --check-prefix=MPI
// RUN: pe-opt %s --split-input-file --pe-lower-shard-collectives --convert-shard-to-mpi --pe-finalize-shard-to-mpi | FileCheck %s --check-prefix=NOSHARD

// The collectives MLIR 22's convert-shard-to-mpi leaves alone, in terms of
// shard.all_reduce; after convert-shard-to-mpi nothing of shard is left.
// NOSHARD-NOT: shard.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Gather along dim 1: this process's block at column 4 * idx of zeros, summed.
// CHECK-LABEL: func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x8xf32>)
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[X]] into %[[Z]][0, %[[OFF]]] [2, 4] [1, 1]
// CHECK: %[[R:.*]] = shard.all_reduce %[[INS]] on @grid grid_axes = [0] : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK: return %[[R]]
// MPI-LABEL: func @gather
// MPI: mpi.allreduce
func.func @gather(%x: tensor<2x4xf32>) -> tensor<2x8xf32> {
  %0 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<2x4xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// All-to-all: the gather along the concatenation axis, then rows 2 * idx.
// CHECK-LABEL: func @to_all
// CHECK: %[[G:.*]] = shard.all_reduce %{{.*}} on @grid grid_axes = [0] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[G]][%[[OFF]], 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
func.func @to_all(%x: tensor<4x2xf32>) -> tensor<2x4xf32> {
  %0 = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x2xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Reduce-scatter: the all-reduce with the same reduction, then rows 2 * idx.
// CHECK-LABEL: func @reduce_scatter
// CHECK: %[[R:.*]] = shard.all_reduce %{{.*}} on @grid grid_axes = [0] reduction = max : tensor<4x2xi32> -> tensor<4x2xi32>
// CHECK: tensor.extract_slice %[[R]][%{{.*}}, 0] [2, 2] [1, 1] : tensor<4x2xi32> to tensor<2x2xi32>
func.func @reduce_scatter(%x: tensor<4x2xi32>) -> tensor<2x2xi32> {
  %0 = shard.reduce_scatter %x on @grid grid_axes = [0] reduction = max scatter_axis = 0 : tensor<4x2xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// All-slice: upstream's lowering (the process's rows).
// CHECK-LABEL: func @slice
// CHECK-NOT: shard.all_slice
// CHECK: tensor.extract_slice
func.func @slice(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %0 = shard.all_slice %x on @grid grid_axes = [0] slice_axis = 0 : tensor<4x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// An all-reduce is left to convert-shard-to-mpi.
// CHECK-LABEL: func @reduce
// CHECK: shard.all_reduce %{{.*}} on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
func.func @reduce(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.all_reduce %x on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
