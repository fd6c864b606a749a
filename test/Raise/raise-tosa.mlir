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
// CHECK: %[[O:.*]] = pe.attention %[[QR]], %[[KR]], %[[V]] outs({{[^)]*}}) : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[O]]

// Rank-3 attention ([heads, T, D], no batch dimension): raised on the
// [1, heads, T, D] views of the operands, the result collapsed back.
// RUN: pe-opt --tosa-to-linalg-pipeline --tosa-to-tensor --tosa-to-arith %S/Inputs/tosa_attention3d.mlir | pe-opt --pe-raise | FileCheck %s --check-prefix=RANK3
// RANK3-LABEL: func.func @tosa_attention3d(
// RANK3-SAME: %[[Q:[^:]*]]: tensor<4x8x16xf32>, %[[K:[^:]*]]: tensor<4x6x16xf32>, %[[V:[^:]*]]: tensor<4x6x16xf32>)
// RANK3-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 8, 16]
// RANK3-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// RANK3-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// RANK3: %[[O:.*]] = pe.attention %[[Q4]], %[[K4]], %[[V4]] outs({{[^)]*}}) : tensor<1x4x8x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x8x16xf32>
// RANK3: %[[R:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// RANK3: return %[[R]]
