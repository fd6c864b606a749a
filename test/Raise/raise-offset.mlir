// Positions arange(past, past + T) with a run-time `past` (the KV cache
// length of a decode step, Inputs/rope_decode.mlir) raise to pe.rope with
// offset(past); one token (T = 1) and a chunk of 4.
// RUN: pe-opt --pe-raise %S/Inputs/rope_decode.mlir | FileCheck %s

// CHECK-LABEL: func.func @rope_decode(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x1x16xf32>, %[[PAST:[^:]*]]: index)
// CHECK: pe.rope half %[[X]] inv_freq(%{{.*}} : tensor<8xf32>) offset(%[[PAST]] : index) : tensor<1x2x1x16xf32>
// CHECK-LABEL: func.func @rope_chunk(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xf32>, %[[PAST:[^:]*]]: index)
// CHECK: pe.rope half %[[X]] inv_freq(%{{.*}} : tensor<8xf32>) offset(%[[PAST]] : index) : tensor<1x2x4x16xf32>
// CHECK-NOT: math.cos
