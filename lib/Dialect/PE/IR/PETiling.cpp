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
// has none) and, with GQA, the key/value heads of the group. The channel
// dimension of the encodings and the key dimension of attention are not
// tiled (a rotation pairs channels, the sinusoidal frequencies depend on the
// channel count, softmax runs over all keys); asking for such a tile fails.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pe;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The sizes of a ranked tensor value as OpFoldResults.
static SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

/// The iteration domain [0, d) of every dimension of `v`.
static SmallVector<Range> domainOf(OpBuilder &b, Location loc, Value v) {
  SmallVector<Range> domain;
  for (OpFoldResult size : getDims(b, loc, v))
    domain.push_back(Range{b.getIndexAttr(0), size, b.getIndexAttr(1)});
  return domain;
}

/// An extract_slice of `v` with unit strides.
static Value slice(OpBuilder &b, Location loc, Value v,
                   ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                   SmallVector<Operation *> &slices) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  auto op = tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
  slices.push_back(op);
  return op.getResult();
}

/// `dynamic` (an index or integer value, or null) plus `add`, as an index
/// value; null when the sum is the constant 0 and `dynamic` is null.
static Value addToOffset(OpBuilder &b, Location loc, Value dynamic,
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

/// True when a tile covers a dimension of `size` whole. A static dimension:
/// offset 0 and the same constant size. A dynamic one: offset 0 and a size
/// that is not a constant (an untiled loop passes the dimension's value; a
/// tiled one an induction variable as offset).
static bool coversWhole(OpFoldResult offset, OpFoldResult tileSize,
                        int64_t size) {
  if (!isZeroInteger(offset))
    return false;
  std::optional<int64_t> s = getConstantIntValue(tileSize);
  return ShapedType::isDynamic(size) ? !s : s && *s == size;
}

/// The iteration domain [0, d) of every dimension of result 0, as the op
/// reifies it.
static SmallVector<Range> domainOfResult(ReifyRankedShapedTypeOpInterface op,
                                         OpBuilder &b) {
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

/// The slope table of `heads` heads: the explicit one, or the paper's slopes
/// for `maxBias` as an f64 constant.
static Value slopeTable(OpBuilder &b, Location loc, Value explicitSlopes,
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

//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

// Loops: (b, h, i, e) over the result [B, H, Tq, Dv], all parallel.

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  return domainOfResult(*this, b);
}

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel);
}

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> layoutOffsets,
                                    ArrayRef<OpFoldResult> layoutSizes) {
  Location loc = getLoc();
  MLIRContext *ctx = getContext();
  // The loops follow the result's dimensions; below, everything is by
  // meaning (batch, head, query row, value column), and `inLayout` puts
  // (batch, head, token, channel) values back in the operands' order.
  SmallVector<int64_t> perm = getOperandPermutation();
  auto inLayout = [&](ArrayRef<OpFoldResult> meaning) {
    SmallVector<OpFoldResult> r;
    for (int64_t p = 0; p < 4; ++p)
      r.push_back(meaning[perm[p]]);
    return r;
  };
  SmallVector<OpFoldResult> offsets = inLayout(layoutOffsets);
  SmallVector<OpFoldResult> sizes = inLayout(layoutSizes);
  auto qType = getQuery().getType(), kType = getKey().getType();
  int64_t heads = qType.getDimSize(perm[1]);
  int64_t kvHeads = kType.getDimSize(perm[1]);
  bool wholeHeads = coversWhole(offsets[1], sizes[1], heads);
  // A head tile must map onto whole GQA groups, and keep a static head count
  // where the op needs one (ALiBi).
  std::optional<int64_t> headTile = getConstantIntValue(sizes[1]);
  int64_t group = 1;
  if (!wholeHeads) {
    if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads) ||
        !headTile)
      return failure();
    group = heads / kvHeads;
    if (*headTile % group != 0)
      return failure();
  }
  AffineExpr s0, s1, s2, s3;
  bindSymbols(ctx, s0, s1, s2, s3);
  auto apply = [&](AffineExpr e, ArrayRef<OpFoldResult> operands) {
    return affine::makeComposedFoldedAffineApply(b, loc, e, operands);
  };
  OpFoldResult kvOffset =
      wholeHeads ? offsets[1] : apply(s0.floorDiv(group), {offsets[1]});
  OpFoldResult kvSize = wholeHeads
                            ? OpFoldResult(getDims(b, loc, getKey())[perm[1]])
                            : OpFoldResult(b.getIndexAttr(*headTile / group));
  if (wholeHeads)
    kvOffset = b.getIndexAttr(0);

  TilingResult result;
  SmallVector<OpFoldResult> qDims = inLayout(getDims(b, loc, getQuery()));
  SmallVector<OpFoldResult> kDims = inLayout(getDims(b, loc, getKey()));
  SmallVector<OpFoldResult> vDims = inLayout(getDims(b, loc, getValue()));
  OpFoldResult zero = b.getIndexAttr(0);
  Value q = slice(b, loc, getQuery(),
                  inLayout({offsets[0], offsets[1], offsets[2], zero}),
                  inLayout({sizes[0], sizes[1], sizes[2], qDims[3]}),
                  result.generatedSlices);
  Value k = slice(
      b, loc, getKey(), inLayout({offsets[0], kvOffset, zero, zero}),
      inLayout({sizes[0], kvSize, kDims[2], kDims[3]}), result.generatedSlices);
  Value v = slice(
      b, loc, getValue(), inLayout({offsets[0], kvOffset, zero, offsets[3]}),
      inLayout({sizes[0], kvSize, vDims[2], sizes[3]}), result.generatedSlices);

  Operation *tiled = b.clone(*getOperation());
  auto op = cast<AttentionOp>(tiled);
  op.getQueryMutable().assign(q);
  op.getKeyMutable().assign(k);
  op.getValueMutable().assign(v);

  // Bias and mask: each non-broadcast dimension follows its loop; keys stay
  // whole.
  SmallVector<OpFoldResult> scoreOffsets = {offsets[0], offsets[1], offsets[2],
                                            zero};
  auto sliceScores = [&](Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<OpFoldResult> dims = getDims(b, loc, t);
    SmallVector<OpFoldResult> offs, szs;
    int64_t rank = type.getRank();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t loop = 4 - rank + d;
      if (type.getDimSize(d) == 1 || loop == 3) {
        offs.push_back(zero);
        szs.push_back(dims[d]);
      } else {
        offs.push_back(scoreOffsets[loop]);
        szs.push_back(sizes[loop]);
      }
    }
    return slice(b, loc, t, offs, szs, result.generatedSlices);
  };
  if (Value bias = getBias())
    op.getBiasMutable().assign(sliceScores(bias));
  if (Value mask = getMask())
    op.getMaskMutable().assign(sliceScores(mask));
  if (Value lengths = getKvLengths())
    op.getKvLengthsMutable().assign(slice(b, loc, lengths, {offsets[0]},
                                          {sizes[0]}, result.generatedSlices));

  // Query rows [r, r + n): positions and the causal offset follow.
  OpFoldResult r = offsets[2];
  if (getRopeAttr())
    if (Value o = addToOffset(b, loc, getQueryOffset(), r))
      op.getQueryOffsetMutable().assign(o);
  if (getAlibiAttr()) {
    if (Value o = addToOffset(b, loc, getAlibiOffset(), r))
      op.getAlibiOffsetMutable().assign(o);
    if (!wholeHeads) {
      Value table = slopeTable(b, loc, getAlibiSlopes(), heads,
                               getAlibiAttr().getMaxBias().convertToDouble());
      op.getAlibiSlopesMutable().assign(slice(
          b, loc, table, {offsets[1]}, {sizes[1]}, result.generatedSlices));
    }
  }
  if (getCausal()) {
    OpFoldResult shift = getCausalAlignment() == CausalAlignment::TopLeft
                             ? r
                             : apply(s0 + s1 - s2, {r, sizes[2], qDims[2]});
    if (Value o = addToOffset(b, loc, getCausalOffset(), shift))
      op.getCausalOffsetMutable().assign(o);
  }

  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(layoutSizes, dynamic, shape);
  tiled->getResult(0).setType(getResult().getType().clone(shape));
  if (Value lse = getLse()) {
    // [B, H, Tq] by meaning, whatever the layout.
    SmallVector<int64_t> lseShape;
    SmallVector<Value> lseDynamic;
    dispatchIndexOpFoldResults({sizes[0], sizes[1], sizes[2]}, lseDynamic,
                               lseShape);
    tiled->getResult(1).setType(
        cast<RankedTensorType>(lse.getType()).clone(lseShape));
  }
  // After the operand computations created above.
  tiled->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
  result.tiledOps.push_back(tiled);
  for (Value v : tiled->getResults())
    result.tiledValues.push_back(v);
  return result;
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  if (resultNumber == 0)
    return identityResultTile(offsets, sizes, resultOffsets, resultSizes);
  // lse [B, H, Tq]: the (batch, head, query row) loops, by meaning.
  SmallVector<int64_t> perm = getOperandPermutation();
  resultOffsets.clear();
  resultSizes.clear();
  for (int64_t m = 0; m < 3; ++m) {
    resultOffsets.push_back(offsets[perm[m]]);
    resultSizes.push_back(sizes[perm[m]]);
  }
  return success();
}

FailureOr<TilingResult>
AttentionOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  if (resultNumber == 0)
    return getTiledImplementation(b, offsets, sizes);
  // A tile of lse [B, H, Tq]: those rows with every value column.
  SmallVector<int64_t> perm = getOperandPermutation();
  OpFoldResult dv = getDims(b, getLoc(), getValue())[3];
  SmallVector<OpFoldResult> meaningOffsets = {offsets[0], offsets[1],
                                              offsets[2], b.getIndexAttr(0)};
  SmallVector<OpFoldResult> meaningSizes = {sizes[0], sizes[1], sizes[2], dv};
  SmallVector<OpFoldResult> loopOffsets, loopSizes;
  for (int64_t p = 0; p < 4; ++p) {
    loopOffsets.push_back(meaningOffsets[perm[p]]);
    loopSizes.push_back(meaningSizes[perm[p]]);
  }
  return getTiledImplementation(b, loopOffsets, loopSizes);
}

LogicalResult
AttentionOp::reifyResultShapes(OpBuilder &b,
                               ReifiedRankedShapedTypeDims &shapes) {
  Location loc = getLoc();
  // The query's shape with the value's channel count (same layout).
  SmallVector<OpFoldResult> dims = getDims(b, loc, getQuery());
  dims[3] = getDims(b, loc, getValue())[3];
  shapes.push_back(dims);
  if (getLse()) {
    SmallVector<int64_t> perm = getOperandPermutation();
    shapes.push_back({dims[0], dims[perm[1]], dims[perm[2]]});
  }
  return success();
}
