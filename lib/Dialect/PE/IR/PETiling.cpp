//===- PETiling.cpp - TilingInterface and shape reification for pe ops ----===//
//
// Part of the pe-mlir project.
//
// A tile of a pe op is the same op on slices of its operands, with the
// positions of the tile's first token carried by the op's offsets: a tile of
// rows [t0, t0 + n) of pe.rope / pe.add_sinusoidal / pe.add_learned adds t0
// to the offset (or slices the positions tensor); a tile of query rows of
// pe.attention adds r to the rope query offset and the ALiBi query offset and
// r (top-left) or r + n - Tq (bottom-right) to the causal offset; a tile of
// heads slices the ALiBi slope table (materialised from max_bias when the op
// has none) and, with GQA, the key/value heads of the group. The keys of
// pe.attention are a reduction loop: a key tile is the op on those keys with
// an lse result, merged into a running (output, log-sum-exp) state
// (PartialReductionOpInterface, docs/PE.md "Key tiles"). The channel
// dimension of the encodings is not tiled (a rotation pairs channels, the
// sinusoidal frequencies depend on the channel count); asking for such a
// tile fails. This file holds the helpers the tilings share
// (PETilingUtils.h) and the tilings of the encoding ops; pe.attention's is
// in PEAttentionTiling.cpp.
//
//===----------------------------------------------------------------------===//

#include "PETilingUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> pe::detail::getDims(OpBuilder &b, Location loc,
                                              Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

/// The iteration domain [0, d) of every dimension of `v`.
static SmallVector<Range> domainOf(OpBuilder &b, Location loc, Value v) {
  SmallVector<Range> domain;
  for (OpFoldResult size : getDims(b, loc, v))
    domain.push_back(Range{b.getIndexAttr(0), size, b.getIndexAttr(1)});
  return domain;
}

Value pe::detail::slice(OpBuilder &b, Location loc, Value v,
                        ArrayRef<OpFoldResult> offsets,
                        ArrayRef<OpFoldResult> sizes,
                        SmallVector<Operation *> &slices) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto op = tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
  slices.push_back(op);
  return op.getResult();
}

Value pe::detail::addToOffset(OpBuilder &b, Location loc, Value dynamic,
                              OpFoldResult add) {
  if (!dynamic && isZeroInteger(add))
    return Value();
  Value base = dynamic;
  if (base && !base.getType().isIndex())
    base = arith::IndexCastOp::create(b, loc, b.getIndexType(), base);
  if (!base)
    return getValueOrCreateConstantIndexOp(b, loc, add);
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  return getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(b, loc, s0 + s1,
                                            {OpFoldResult(base), add}));
}

bool pe::detail::coversWhole(OpFoldResult offset, OpFoldResult tileSize,
                             int64_t size) {
  if (!isZeroInteger(offset))
    return false;
  std::optional<int64_t> s = getConstantIntValue(tileSize);
  return ShapedType::isDynamic(size) ? !s : s && *s == size;
}

SmallVector<Range>
pe::detail::domainOfResult(ReifyRankedShapedTypeOpInterface op, OpBuilder &b) {
  ReifiedRankedShapedTypeDims shapes;
  (void)op.reifyResultShapes(b, shapes);
  SmallVector<Range> domain;
  for (OpFoldResult size : shapes[0])
    domain.push_back(Range{b.getIndexAttr(0), size, b.getIndexAttr(1)});
  return domain;
}

/// Result tile = iteration tile (ops whose loops are their result's
/// dimensions).
static LogicalResult
identityResultTile(ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                   SmallVector<OpFoldResult> &resultOffsets,
                   SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.assign(offsets.begin(), offsets.end());
  resultSizes.assign(sizes.begin(), sizes.end());
  return success();
}

/// The reified shape of a result that has the shape of `v`.
static LogicalResult reifyAs(OpBuilder &b, Value v,
                             ReifiedRankedShapedTypeDims &shapes) {
  shapes.push_back(getDims(b, v.getLoc(), v));
  return success();
}

//===----------------------------------------------------------------------===//
// Sequence ops: pe.rope, pe.add_sinusoidal, pe.add_learned
//===----------------------------------------------------------------------===//

namespace {
/// The tiling shared by the ops that encode `input : [..., T, C]` at token
/// positions `static_offset + offset + t` or `positions[(b,) t]`.
template <typename OpTy> struct SequenceTiling {
  static FailureOr<TilingResult> tile(OpTy op, OpBuilder &b,
                                      ArrayRef<OpFoldResult> offsets,
                                      ArrayRef<OpFoldResult> sizes) {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = type.getRank();
    int64_t seqDim = rank - 2;
    if constexpr (std::is_same_v<OpTy, RopeOp>)
      seqDim = op.getSequenceDimOrDefault();
    // The channel dimension stays whole.
    if (!coversWhole(offsets[rank - 1], sizes[rank - 1],
                     type.getDimSize(rank - 1)))
      return failure();
    TilingResult result;
    Value input =
        slice(b, loc, op.getInput(), offsets, sizes, result.generatedSlices);
    Operation *tiled = b.clone(*op.getOperation());
    auto tiledOp = cast<OpTy>(tiled);
    tiledOp.getInputMutable().assign(input);
    tiled->getResult(0).setType(input.getType());
    bool perTokenCaches = false;
    if constexpr (std::is_same_v<OpTy, RopeOp>) {
      if (op.hasPerTokenCaches()) {
        // One cache row per token: the tile's rows.
        perTokenCaches = true;
        auto cosType = cast<RankedTensorType>(op.getCosCache().getType());
        SmallVector<OpFoldResult> cacheOffsets = {offsets[0], offsets[seqDim],
                                                  b.getIndexAttr(0)};
        SmallVector<OpFoldResult> cacheSizes = {
            sizes[0], sizes[seqDim], b.getIndexAttr(cosType.getDimSize(2))};
        tiledOp.getCosCacheMutable().assign(slice(b, loc, op.getCosCache(),
                                                  cacheOffsets, cacheSizes,
                                                  result.generatedSlices));
        tiledOp.getSinCacheMutable().assign(slice(b, loc, op.getSinCache(),
                                                  cacheOffsets, cacheSizes,
                                                  result.generatedSlices));
      }
    }
    if (perTokenCaches) {
      // The sliced caches are the tile's positions.
    } else if (Value positions = op.getPositions()) {
      auto posType = cast<RankedTensorType>(positions.getType());
      SmallVector<OpFoldResult> posOffsets, posSizes;
      if (posType.getRank() == 2) {
        posOffsets.push_back(offsets[0]);
        posSizes.push_back(sizes[0]);
      }
      posOffsets.push_back(offsets[seqDim]);
      posSizes.push_back(sizes[seqDim]);
      tiledOp.getPositionsMutable().assign(slice(
          b, loc, positions, posOffsets, posSizes, result.generatedSlices));
    } else if (Value offset =
                   addToOffset(b, loc, op.getOffset(), offsets[seqDim])) {
      tiledOp.getOffsetMutable().assign(offset);
    }
    // After the operand computations created above.
    tiled->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
    result.tiledOps.push_back(tiled);
    result.tiledValues.push_back(tiled->getResult(0));
    return result;
  }
};
} // namespace

#define PE_SEQUENCE_OP_TILING(OpTy)                                            \
  SmallVector<Range> OpTy::getIterationDomain(OpBuilder &b) {                  \
    return domainOf(b, getLoc(), getInput());                                  \
  }                                                                            \
  SmallVector<utils::IteratorType> OpTy::getLoopIteratorTypes() {              \
    return SmallVector<utils::IteratorType>(getInput().getType().getRank(),    \
                                            utils::IteratorType::parallel);    \
  }                                                                            \
  FailureOr<TilingResult> OpTy::getTiledImplementation(                        \
      OpBuilder &b, ArrayRef<OpFoldResult> offsets,                            \
      ArrayRef<OpFoldResult> sizes) {                                          \
    return SequenceTiling<OpTy>::tile(*this, b, offsets, sizes);               \
  }                                                                            \
  LogicalResult OpTy::getResultTilePosition(                                   \
      OpBuilder &, unsigned, ArrayRef<OpFoldResult> offsets,                   \
      ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,  \
      SmallVector<OpFoldResult> &resultSizes) {                                \
    return identityResultTile(offsets, sizes, resultOffsets, resultSizes);     \
  }                                                                            \
  FailureOr<TilingResult> OpTy::generateResultTileValue(                       \
      OpBuilder &b, unsigned, ArrayRef<OpFoldResult> offsets,                  \
      ArrayRef<OpFoldResult> sizes) {                                          \
    return getTiledImplementation(b, offsets, sizes);                          \
  }                                                                            \
  LogicalResult OpTy::reifyResultShapes(OpBuilder &b,                          \
                                        ReifiedRankedShapedTypeDims &shapes) { \
    return reifyAs(b, getInput(), shapes);                                     \
  }

PE_SEQUENCE_OP_TILING(RopeOp)
PE_SEQUENCE_OP_TILING(AddSinusoidalOp)
PE_SEQUENCE_OP_TILING(AddLearnedOp)

//===----------------------------------------------------------------------===//
// pe.alibi_bias
//===----------------------------------------------------------------------===//

Value pe::detail::slopeTable(OpBuilder &b, Location loc, Value explicitSlopes,
                             int64_t heads, double maxBias) {
  if (explicitSlopes)
    return explicitSlopes;
  std::vector<double> slopes = formula::alibiSlopes(heads, maxBias);
  auto type = RankedTensorType::get({heads}, b.getF64Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<double>(slopes)));
}

SmallVector<Range> AlibiBiasOp::getIterationDomain(OpBuilder &b) {
  return domainOfResult(*this, b);
}

SmallVector<utils::IteratorType> AlibiBiasOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel);
}

FailureOr<TilingResult>
AlibiBiasOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  auto type = getResult().getType();
  // Keys stay whole: the `key` distance has no key offset to shift. Heads
  // must keep a static count (the verifier requires one).
  if (!coversWhole(offsets[2], sizes[2], type.getDimSize(2)))
    return failure();
  std::optional<int64_t> headTile = getConstantIntValue(sizes[0]);
  if (!headTile)
    return failure();
  TilingResult result;
  Operation *tiled = b.clone(*getOperation());
  auto tiledOp = cast<AlibiBiasOp>(tiled);
  if (!coversWhole(offsets[0], sizes[0], type.getDimSize(0))) {
    Value table = slopeTable(b, loc, getSlopes(), type.getDimSize(0),
                             getMaxBias().convertToDouble());
    tiledOp.getSlopesMutable().assign(
        slice(b, loc, table, {offsets[0]}, {sizes[0]}, result.generatedSlices));
  }
  if (Value offset = addToOffset(b, loc, getOffset(), offsets[1]))
    tiledOp.getOffsetMutable().assign(offset);
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  dispatchIndexOpFoldResults(sizes, dynamicSizes, shape);
  tiledOp.getDynamicSizesMutable().assign(dynamicSizes);
  tiled->getResult(0).setType(type.clone(shape));
  // After the operand computations created above.
  tiled->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
  result.tiledOps.push_back(tiled);
  result.tiledValues.push_back(tiled->getResult(0));
  return result;
}

LogicalResult AlibiBiasOp::getResultTilePosition(
    OpBuilder &, unsigned, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  return identityResultTile(offsets, sizes, resultOffsets, resultSizes);
}

FailureOr<TilingResult>
AlibiBiasOp::generateResultTileValue(OpBuilder &b, unsigned,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  return getTiledImplementation(b, offsets, sizes);
}

LogicalResult
AlibiBiasOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  auto type = getResult().getType();
  SmallVector<OpFoldResult> dims;
  unsigned next = 0;
  for (int64_t i = 0; i < 3; ++i)
    dims.push_back(type.isDynamicDim(i)
                       ? OpFoldResult(getDynamicSizes()[next++])
                       : OpFoldResult(b.getIndexAttr(type.getDimSize(i))));
  shapes.push_back(dims);
  return success();
}
