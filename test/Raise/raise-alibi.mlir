// pe-raise on the ALiBi blocks of the corpus (Inputs/bloom_block.mlir,
// Inputs/mpt_block.mlir): slope[h] * distance added to the scores becomes a
// pe.alibi_bias (the paper's slopes recognised, so no slope table), the
// masks computed in the model become `causal`, and
// pe-fuse-encodings-into-attention then moves the bias into the attention.
// RUN: pe-opt --pe-raise %S/Inputs/bloom_block.mlir | FileCheck %s --check-prefix=BLOOM
// RUN: pe-opt --pe-raise %S/Inputs/mpt_block.mlir | FileCheck %s --check-prefix=MPT
// RUN: pe-opt --pe-raise --pe-fuse-encodings-into-attention %S/Inputs/bloom_block.mlir | FileCheck %s --check-prefix=FUSED
// RUN: pe-opt --pe-raise %S/Inputs/bloom_block_mask.mlir | FileCheck %s --check-prefix=MASK

// BLOOM, heads merged into the batch, alibi = slopes * key position (via
// baddbmm), the causal mask added: key distance, 6 heads (not a power of 2).
// BLOOM-LABEL: func.func @bloom_block(
// BLOOM: %[[B:.*]] = pe.alibi_bias key : tensor<6x5x5xf32>
// BLOOM: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%[[B]] : tensor<6x5x5xf32>) outs({{[^)]*}}) {causal} : tensor<1x6x5x16xf32>, tensor<1x6x5x16xf32>, tensor<1x6x5x16xf32> -> tensor<1x6x5x16xf32>
// BLOOM-NOT: linalg.batch_matmul

// MPT, K read as [B, H, D, T] (transposed back for the op), the bias
// slopes * arange(1 - T, 1) (a per-row shift of the key distance, which
// softmax ignores), the causal mask as masked_fill.
// MPT-LABEL: func.func @mpt_block(
// MPT-SAME: %{{[^:]*}}: tensor<1x6x64xf32>, %[[KP:[^:]*]]: tensor<1x6x64xf32>
// MPT: %[[KE:.*]] = tensor.expand_shape %[[KP]]
// MPT: %[[K:.*]] = linalg.transpose ins(%[[KE]] : tensor<1x6x4x16xf32>) outs(%{{.*}} : tensor<1x4x6x16xf32>) permutation = [0, 2, 1, 3]
// MPT: %[[B:.*]] = pe.alibi_bias key : tensor<4x6x6xf32>
// MPT: pe.attention %{{.*}}, %[[K]], %{{.*}} bias(%[[B]] : tensor<4x6x6xf32>) outs({{[^)]*}}) {causal}
// MPT-NOT: math.exp

// FUSED: pe.attention %{{.*}}, %{{.*}}, %{{.*}} alibi <key> outs({{[^)]*}}) {causal}
// FUSED-NOT: pe.alibi_bias

// BLOOM with the mask as an argument: pe.attention takes one bias, so the
// ALiBi bias and the mask are added (as the original adds them) into a
// [1, H, Tq, Tk] bias.
// MASK-LABEL: func.func @bloom_block_mask(
// MASK-SAME: %[[M:[^:]*]]: tensor<1x1x5x5xf32>)
// MASK: %[[A:.*]] = pe.alibi_bias key : tensor<6x5x5xf32>
// MASK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[M]] : tensor<6x5x5xf32>, tensor<1x1x5x5xf32>) outs(%{{.*}} : tensor<1x6x5x5xf32>)
// MASK: arith.addf
// MASK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%[[B]] : tensor<1x6x5x5xf32>) outs({{[^)]*}}) : tensor<1x6x5x16xf32>
