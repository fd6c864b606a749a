// GPT-2 embeddings, wte[input_ids] + wpe[position_ids] with position_ids =
// arange(T), in the spelling torch-mlir's TorchToLinalg emits (before
// canonicalization): each nn.Embedding lookup is ConvertAtenEmbeddingOp's
// linalg.generic, whose payload (createLinalgPayloadCalculationForGatherOps)
// checks the i64 index with two cf.assert bounds checks before the
// tensor.extract; aten.arange is a generic of linalg.index; aten.add.Tensor
// multiplies the second addend by alpha = 1.
// Source: llvm/torch-mlir, lib/Conversion/TorchToLinalg/IndirectDataMovement.cpp
// (ConvertAtenEmbeddingOp, createLinalgPayloadCalculationForGatherOps; Apache
// License v2.0 with LLVM Exceptions), payload spelled as in a published
// TorchToLinalg dump of an embedding model; edits: sizes (vocabulary 50,
// 16 positions, hidden 32, T = 8), value names.
func.func @torch_embed_asserts(%input_ids: tensor<1x8xi64>, %wte: tensor<50x32xf32>, %wpe: tensor<16x32xf32>) -> tensor<1x8x32xf32> {
  %c1_i64 = arith.constant 1 : i64
  %0 = tensor.empty() : tensor<8xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%0 : tensor<8xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    linalg.yield %ii : i64
  } -> tensor<8xi64>
  %position_ids = tensor.expand_shape %1 [[0, 1]] output_shape [1, 8] : tensor<8xi64> into tensor<1x8xi64>
  %2 = tensor.empty() : tensor<1x8x32xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%input_ids : tensor<1x8xi64>) outs(%2 : tensor<1x8x32xf32>) {
  ^bb0(%in: i64, %out: f32):
    %10 = arith.index_cast %in : i64 to index
    %11 = linalg.index 2 : index
    %12 = arith.index_cast %in : i64 to index
    %c0 = arith.constant 0 : index
    %c50 = arith.constant 50 : index
    %13 = arith.cmpi slt, %12, %c50 : index
    cf.assert %13, "index must be smaller than dim size"
    %c0_i64 = arith.constant 0 : i64
    %14 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %14, "index must be larger or equal to 0"
    %extracted = tensor.extract %wte[%10, %11] : tensor<50x32xf32>
    linalg.yield %extracted : f32
  } -> tensor<1x8x32xf32>
  %cast = tensor.cast %3 : tensor<1x8x32xf32> to tensor<1x8x32xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%position_ids : tensor<1x8xi64>) outs(%2 : tensor<1x8x32xf32>) {
  ^bb0(%in: i64, %out: f32):
    %10 = arith.index_cast %in : i64 to index
    %11 = linalg.index 2 : index
    %12 = arith.index_cast %in : i64 to index
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %13 = arith.cmpi slt, %12, %c16 : index
    cf.assert %13, "index must be smaller than dim size"
    %c0_i64 = arith.constant 0 : i64
    %14 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %14, "index must be larger or equal to 0"
    %extracted = tensor.extract %wpe[%10, %11] : tensor<16x32xf32>
    linalg.yield %extracted : f32
  } -> tensor<1x8x32xf32>
  %cast_0 = tensor.cast %4 : tensor<1x8x32xf32> to tensor<1x8x32xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cast, %cast_0 : tensor<1x8x32xf32>, tensor<1x8x32xf32>) outs(%2 : tensor<1x8x32xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %10 = arith.sitofp %c1_i64 : i64 to f32
    %11 = arith.mulf %in_1, %10 : f32
    %12 = arith.addf %in, %11 : f32
    linalg.yield %12 : f32
  } -> tensor<1x8x32xf32>
  return %5 : tensor<1x8x32xf32>
}
