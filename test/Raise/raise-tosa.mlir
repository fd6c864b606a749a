// A TOSA attention block (Inputs/tosa_llama.mlir) lowered by upstream
// tosa-to-linalg-pipeline (with tosa-to-tensor and tosa-to-arith for the
// reshapes, slices, concats and constants), then raised: the concats
// arrive as tensor.insert_slice chains, repeat_kv as a 10-d broadcast from
// tosa.tile, the broadcasts keep unit dimensions as loop indices, the
// softmax divides by tosa.reciprocal. Both ropes (default frequencies
// recovered from the constant table, positions from the i32 argument) and
// the GQA attention are raised.
// RUN: pe-opt --tosa-to-linalg-pipeline --tosa-to-tensor --tosa-to-arith %S/Inputs/tosa_llama.mlir | pe-opt --pe-raise | FileCheck %s

// CHECK-LABEL: func.func @tosa_llama(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8x16xf32>, %[[K:[^:]*]]: tensor<1x2x8x16xf32>, %[[V:[^:]*]]: tensor<1x2x8x16xf32>, %[[P:[^:]*]]: tensor<8xi32>)
// CHECK: %[[F:.*]], %{{.*}} = pe.rope_frequencies : tensor<8xf32>
// CHECK: %[[QR:.*]] = pe.rope half %[[Q]] inv_freq(%[[F]] : tensor<8xf32>) positions(%[[P]] : tensor<8xi32>) : tensor<1x4x8x16xf32>
// CHECK: %[[KR:.*]] = pe.rope half %[[K]] inv_freq(%{{.*}} : tensor<8xf32>) positions(%[[P]] : tensor<8xi32>) : tensor<1x2x8x16xf32>
// CHECK: %[[O:.*]] = pe.attention %[[QR]], %[[KR]], %[[V]] : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[O]]
