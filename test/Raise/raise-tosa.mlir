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

// Rank-3 attention with the key stored transposed ([heads, D, T]): the key
// is transposed back to [heads, T, D] and viewed as [1, heads, T, D] like the
// other operands. The same with one value tensor broadcast over a batch of 2
// (the broadcast is the value), and with a causal mask written as
// -1e9 * cast<f32>(j > i) through an i1 -> f32 tosa.cast, which upstream
// tosa-to-linalg-pipeline rejects (UPSTREAM) and pe-tosa-to-linalg-pipeline
// lowers.
// RUN: not pe-opt --tosa-to-linalg-pipeline %S/Inputs/tosa_attention3d_kt.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: error: 'tosa.cast' op illegal: operation operand/result data types did not align with any profile or extension, got (i1,f32)
// RUN: pe-opt --pe-tosa-to-linalg-pipeline %S/Inputs/tosa_attention3d_kt.mlir | pe-opt --pe-raise-pipeline | FileCheck %s --check-prefix=KT
// KT-LABEL: func.func @tosa_attention3d_kt(
// KT-SAME: %[[Q:[^:]*]]: tensor<4x8x16xf32>, %[[KT:[^:]*]]: tensor<4x16x6xf32>, %[[V:[^:]*]]: tensor<4x6x16xf32>)
// KT-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 8, 16]
// KT-DAG: %[[K:.*]] = linalg.transpose ins(%[[KT]] : tensor<4x16x6xf32>) outs(%{{.*}} : tensor<4x6x16xf32>) permutation = [0, 2, 1]
// KT-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// KT-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// KT: %[[O:.*]] = pe.attention %[[Q4]], %[[K4]], %[[V4]] outs({{[^)]*}}) : tensor<1x4x8x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x8x16xf32>
// KT: %[[R:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x4x8x16xf32> into tensor<4x8x16xf32>
// KT: return %[[R]]
// KT-LABEL: func.func @tosa_shared_v(
// KT-SAME: %[[Q:[^:]*]]: tensor<2x4x8x16xf32>, %[[K:[^:]*]]: tensor<2x4x6x16xf32>, %{{[^:]*}}: tensor<4x6x16xf32>)
// KT: %[[VB:.*]] = linalg.generic
// KT: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[VB]] outs({{[^)]*}}) {scale = 1.000000e+00 : f64} : tensor<2x4x8x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32> -> tensor<2x4x8x16xf32>
// KT: return %[[O]]
// KT-LABEL: func.func @tosa_cast_mask(
// KT: pe.attention {{.*}} {causal, scale = 1.000000e+00 : f64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
// KT-NOT: linalg.batch_matmul
// KT: return
// KT-LABEL: func.func @tosa_cast_mask_rows(
// KT-NOT: pe.attention
// KT: linalg.batch_matmul
// Constant terms of the scores (2.0 added, a select on dense<false>) are
// dropped: no bias.
// KT-LABEL: func.func @tosa_constant_terms(
// KT: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) : tensor<1x4x8x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x8x16xf32>
// KT-NOT: linalg.batch_matmul
// KT: return
// RUN: pe-opt --pe-tosa-to-linalg-pipeline %S/Inputs/tosa_attention3d_kt.mlir | pe-opt --pe-raise-pipeline --remarks-filter=pe-raise -o /dev/null 2>&1 | FileCheck %s --check-prefix=KTMISS
// KTMISS: remark: [Missed] attention-not-raised | Category:pe-raise | Reason="the scores add a term that is neither a bias tensor read at [b, h, i, j] (broadcast), a causal mask select(j > i + k, -big, 0) nor an ALiBi slope[h] * distance (an unrecognised mask or bias)"
// KTMISS-NOT: remark
