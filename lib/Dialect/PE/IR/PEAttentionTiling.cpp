//===- PEAttentionTiling.cpp - TilingInterface for pe.attention ----------===//
//
// Part of the pe-mlir project.
//
// The tiling of pe.attention (TilingInterface) and of its keys as a
// reduction (PartialReductionOpInterface): a tile of (batch, heads, query
// rows, value columns) is the op on that tile with its offsets shifted
// (PETiling.cpp describes the rules); a key tile is the op on those keys with
// an lse result, merged into a running (output, log-sum-exp) state.
//
//===----------------------------------------------------------------------===//

#include "PETilingUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

// Loops: (b, h, i, e) over the result [B, H, Tq, Dv] in the order of its
// layout, all parallel, then the keys j, a reduction. A tile of (b, h, i, e)
// is the op on that tile; a tile of the keys is a partial softmax, which the
// PartialReductionOpInterface below combines.

/// The loop of the keys.
static constexpr unsigned kKeyLoop = 4;

/// The element type of the softmax statistics and of the key-tile
/// accumulator: f64 for f64 inputs, else f32 (the op's math type).
static Type attentionMathType(AttentionOp op) {
  Type e = op.getQuery().getType().getElementType();
  return e.isF64() ? e : Float32Type::get(op.getContext());
}

SmallVector<Range> AttentionOp::getIterationDomain(OpBuilder &b) {
  SmallVector<Range> domain = domainOfResult(*this, b);
  OpFoldResult tk = getDims(b, getLoc(), getKey())[getSequenceAxis()];
  domain.push_back(Range{b.getIndexAttr(0), tk, b.getIndexAttr(1)});
  return domain;
}

SmallVector<utils::IteratorType> AttentionOp::getLoopIteratorTypes() {
  SmallVector<utils::IteratorType> types(4, utils::IteratorType::parallel);
  types.push_back(utils::IteratorType::reduction);
  return types;
}

namespace {
/// What a key tile needs beyond the tiled op to be merged: with the `key`
/// ALiBi distance, the tile's scores lack the per-row constant
/// `m_h * j0` (the op measures key distances from its own first key), which
/// softmax ignores but the tile's log-sum-exp must get back.
struct KeyTileCorrection {
  Value slopes; // [h tile] f32 or f64, or null when no correction is needed
  Value keyOffset;
};
} // namespace

namespace {
/// Builds the attention on the tile `layoutOffsets`/`layoutSizes` of the
/// loops (b, h, i, e, j), with an lse result when `withLse` (the op's own, or
/// a new one of the math type). A tile of the keys [j0, j0 + n) of Tk sees
/// the keys where the untiled op sees them: the rope key offset grows by j0,
/// the ALiBi query offset drops by j0 (distances from the tile's first key),
/// the causal offset drops by j0 (plus Tk - n for bottom-right), kv_lengths
/// become max(L, 0) - j0, and bias and mask are sliced along the keys.
///
/// The loops follow the result's dimensions; the steps work by meaning
/// (batch, head, query row, value column), and `inLayout` puts (batch, head,
/// token, channel) values back in the operands' order. Each step creates its
/// IR in the order of the steps.
class AttentionTileBuilder {
public:
  AttentionTileBuilder(AttentionOp op, OpBuilder &b,
                       ArrayRef<OpFoldResult> layoutOffsets,
                       ArrayRef<OpFoldResult> layoutSizes)
      : op(op), b(b), loc(op.getLoc()), layoutOffsets(layoutOffsets),
        layoutSizes(layoutSizes), perm(op.getOperandPermutation()) {
    offsets = inLayout(layoutOffsets.take_front(4));
    sizes = inLayout(layoutSizes.take_front(4));
    bindSymbols(op.getContext(), s0, s1, s2, s3);
  }

  FailureOr<TilingResult> build(bool withLse, KeyTileCorrection *correction);

private:
  SmallVector<OpFoldResult> inLayout(ArrayRef<OpFoldResult> meaning) const {
    SmallVector<OpFoldResult> r;
    for (int64_t p = 0; p < 4; ++p)
      r.push_back(meaning[perm[p]]);
    return r;
  }
  OpFoldResult apply(AffineExpr e, ArrayRef<OpFoldResult> operands) {
    return affine::makeComposedFoldedAffineApply(b, loc, e, operands);
  }
  Value sliceOf(Value v, ArrayRef<OpFoldResult> sliceOffsets,
                ArrayRef<OpFoldResult> sliceSizes) {
    return slice(b, loc, v, sliceOffsets, sliceSizes, result.generatedSlices);
  }

  LogicalResult tileHeads();
  LogicalResult tileKeys();
  void cloneOnInputs();
  Value sliceScores(Value t);
  void tileKvLengths();
  void shiftRopePositions();
  void shiftAlibi(KeyTileCorrection *correction);
  void shiftCausalOffset();
  void setDestinations(bool withLse);

  AttentionOp op;
  OpBuilder &b;
  Location loc;
  ArrayRef<OpFoldResult> layoutOffsets, layoutSizes;
  SmallVector<int64_t> perm;
  /// The tile of (b, h, i, e) by meaning.
  SmallVector<OpFoldResult> offsets, sizes;
  AffineExpr s0, s1, s2, s3;
  /// Query heads and whether the tile has all of them; the key/value heads
  /// of the tile's GQA groups.
  int64_t heads = 0;
  bool wholeHeads = true;
  OpFoldResult kvOffset, kvSize;
  /// The sizes of query and key (batch, head, token, channel), and the
  /// tile's keys [j0, j0 + n).
  SmallVector<OpFoldResult> qDims, kDims;
  OpFoldResult zero, j0, n;
  bool wholeKeys = true;
  bool bottomRight = false;
  TilingResult result;
  Operation *tiled = nullptr;
  AttentionOp tiledOp;
  /// The tile's slice of kv_lengths (before the key shift), if any.
  Value lengths;
};
} // namespace

/// A head tile maps onto whole GQA groups, and keeps a static head count
/// where the op needs one (ALiBi): the key/value heads it reads.
LogicalResult AttentionTileBuilder::tileHeads() {
  auto qType = op.getQuery().getType(), kType = op.getKey().getType();
  heads = qType.getDimSize(perm[1]);
  int64_t kvHeads = kType.getDimSize(perm[1]);
  wholeHeads = coversWhole(offsets[1], sizes[1], heads);
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
  kvOffset = wholeHeads ? offsets[1] : apply(s0.floorDiv(group), {offsets[1]});
  kvSize = wholeHeads ? OpFoldResult(getDims(b, loc, op.getKey())[perm[1]])
                      : OpFoldResult(b.getIndexAttr(*headTile / group));
  if (wholeHeads)
    kvOffset = b.getIndexAttr(0);
  return success();
}

/// The tile's keys [j0, j0 + n) of Tk (all of them without a key loop).
LogicalResult AttentionTileBuilder::tileKeys() {
  qDims = inLayout(getDims(b, loc, op.getQuery()));
  kDims = inLayout(getDims(b, loc, op.getKey()));
  zero = b.getIndexAttr(0);
  j0 = zero;
  n = kDims[2];
  if (layoutOffsets.size() > kKeyLoop) {
    j0 = layoutOffsets[kKeyLoop];
    n = layoutSizes[kKeyLoop];
    wholeKeys = coversWhole(j0, n, op.getKey().getType().getDimSize(perm[2]));
  }
  bottomRight = op.getCausalAlignment() == CausalAlignment::BottomRight;
  // Bottom-right with kv_lengths has a causal offset per batch, which a key
  // tile's scalar offset expresses only for one batch at a time.
  std::optional<int64_t> batchTile = getConstantIntValue(sizes[0]);
  if (!wholeKeys && op.getCausal() && bottomRight && op.getKvLengths() &&
      batchTile != 1) {
    op->emitRemark("cannot tile the keys of a bottom-right causal attention "
                   "with kv_lengths over more than one batch: its causal "
                   "offset differs per batch; tile the batch loop by 1");
    return failure();
  }
  return success();
}

/// The op cloned onto the tile's query rows and keys/values.
void AttentionTileBuilder::cloneOnInputs() {
  Value q = sliceOf(op.getQuery(),
                    inLayout({offsets[0], offsets[1], offsets[2], zero}),
                    inLayout({sizes[0], sizes[1], sizes[2], qDims[3]}));
  Value k = sliceOf(op.getKey(), inLayout({offsets[0], kvOffset, j0, zero}),
                    inLayout({sizes[0], kvSize, n, kDims[3]}));
  Value v =
      sliceOf(op.getValue(), inLayout({offsets[0], kvOffset, j0, offsets[3]}),
              inLayout({sizes[0], kvSize, n, sizes[3]}));
  tiled = b.clone(*op.getOperation());
  tiledOp = cast<AttentionOp>(tiled);
  tiledOp.getQueryMutable().assign(q);
  tiledOp.getKeyMutable().assign(k);
  tiledOp.getValueMutable().assign(v);
}

/// A bias or mask [.., Tq, Tk]: each non-broadcast dimension follows its
/// loop.
Value AttentionTileBuilder::sliceScores(Value t) {
  SmallVector<OpFoldResult> scoreOffsets = {offsets[0], offsets[1], offsets[2],
                                            j0};
  SmallVector<OpFoldResult> scoreSizes = {sizes[0], sizes[1], sizes[2], n};
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<OpFoldResult> dims = getDims(b, loc, t);
  SmallVector<OpFoldResult> offs, szs;
  int64_t rank = type.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t loop = 4 - rank + d;
    bool whole = loop == 3 && wholeKeys;
    if (type.getDimSize(d) == 1 || whole) {
      offs.push_back(zero);
      szs.push_back(dims[d]);
    } else {
      offs.push_back(scoreOffsets[loop]);
      szs.push_back(scoreSizes[loop]);
    }
  }
  return sliceOf(t, offs, szs);
}

/// kv_lengths of the tile's batches, as lengths of the tile's keys.
void AttentionTileBuilder::tileKvLengths() {
  Value all = op.getKvLengths();
  if (!all)
    return;
  lengths = sliceOf(all, {offsets[0]}, {sizes[0]});
  Value tileLengths = lengths;
  if (!isZeroInteger(j0)) {
    // L' = max(L, 0) - j0: clamped to [0, n] by the tile, the keys of the
    // tile below the clamped length L (no overflow: j0 <= Tk).
    auto type = cast<RankedTensorType>(lengths.getType());
    Type it = type.getElementType();
    Value j0Int = arith::IndexCastOp::create(
        b, loc, it, getValueOrCreateConstantIndexOp(b, loc, j0));
    Value empty = tensor::EmptyOp::create(b, loc, getDims(b, loc, lengths), it);
    AffineMap id = b.getMultiDimIdentityMap(1);
    tileLengths =
        linalg::GenericOp::create(
            b, loc, TypeRange{type}, ValueRange{lengths}, ValueRange{empty},
            {id, id}, {utils::IteratorType::parallel},
            [&](OpBuilder &nb, Location l, ValueRange args) {
              Value zeroInt = arith::ConstantOp::create(
                  nb, l, it, nb.getIntegerAttr(it, 0));
              Value len = arith::MaxSIOp::create(nb, l, args[0], zeroInt);
              linalg::YieldOp::create(
                  nb, l, arith::SubIOp::create(nb, l, len, j0Int).getResult());
            })
            .getResult(0);
  }
  tiledOp.getKvLengthsMutable().assign(tileLengths);
}

/// Rope positions of query rows [r, r + t) and keys [j0, j0 + n): a
/// positions tensor ([T] or [B, T]) is sliced like the tokens it positions;
/// otherwise the offset moves to the tile's first token.
void AttentionTileBuilder::shiftRopePositions() {
  if (!op.getRopeAttr())
    return;
  OpFoldResult r = offsets[2];
  auto slicePositions = [&](Value positions, OpFoldResult first,
                            OpFoldResult count) {
    auto type = cast<RankedTensorType>(positions.getType());
    if (type.getRank() == 1)
      return sliceOf(positions, {first}, {count});
    return sliceOf(positions, {offsets[0], first}, {sizes[0], count});
  };
  if (Value positions = op.getQueryPositions())
    tiledOp.getQueryPositionsMutable().assign(
        slicePositions(positions, r, sizes[2]));
  else if (Value o = addToOffset(b, loc, op.getQueryOffset(), r))
    tiledOp.getQueryOffsetMutable().assign(o);
  if (Value positions = op.getKeyPositions())
    tiledOp.getKeyPositionsMutable().assign(slicePositions(positions, j0, n));
  else if (op.rotatesKey())
    if (Value o = addToOffset(b, loc, op.getKeyOffset(), j0))
      tiledOp.getKeyOffsetMutable().assign(o);
}

/// ALiBi distances from the tile's first key: q - j = (q - j0) - (j - j0)
/// for the symmetric and signed terms; the key term j = j0 + (j - j0) is
/// shifted by m_h * j0 per row, which `correction` hands to the merge. A
/// head tile reads its slice of the slope table.
void AttentionTileBuilder::shiftAlibi(KeyTileCorrection *correction) {
  AlibiEncodingAttr alibi = op.getAlibiAttr();
  if (!alibi)
    return;
  OpFoldResult r = offsets[2];
  bool keyTerm = alibi.getDistance() == AlibiDistance::Key;
  OpFoldResult shift =
      keyTerm || isZeroInteger(j0) ? r : apply(s0 - s1, {r, j0});
  if (Value o = addToOffset(b, loc, op.getAlibiOffset(), shift))
    tiledOp.getAlibiOffsetMutable().assign(o);
  Value table;
  if (!wholeHeads || (keyTerm && correction && !isZeroInteger(j0)))
    table = slopeTable(b, loc, op.getAlibiSlopes(), heads,
                       alibi.getMaxBias().convertToDouble());
  if (!wholeHeads) {
    table = sliceOf(table, {offsets[1]}, {sizes[1]});
    tiledOp.getAlibiSlopesMutable().assign(table);
  }
  if (keyTerm && correction && !isZeroInteger(j0)) {
    correction->slopes = table;
    correction->keyOffset = getValueOrCreateConstantIndexOp(b, loc, j0);
  }
}

/// The causal offset of query rows [r, r + t) and keys [j0, j0 + n).
void AttentionTileBuilder::shiftCausalOffset() {
  if (!op.getCausal())
    return;
  OpFoldResult r = offsets[2];
  if (!wholeKeys && bottomRight && lengths) {
    // One batch b: o = clamp(L[b], 0, Tk) - Tq + causal_offset, as a
    // top-left offset of the tile: o + r - j0.
    Value len = tensor::ExtractOp::create(
        b, loc, lengths, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
    len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
    len = arith::MaxSIOp::create(b, loc, len,
                                 arith::ConstantIndexOp::create(b, loc, 0));
    len = arith::MinSIOp::create(
        b, loc, len, getValueOrCreateConstantIndexOp(b, loc, kDims[2]));
    OpFoldResult shift = apply(s0 - s1 + s2 - s3, {len, qDims[2], r, j0});
    Value o = addToOffset(b, loc, op.getCausalOffset(), shift);
    tiledOp.getCausalOffsetMutable().assign(
        o ? o : getValueOrCreateConstantIndexOp(b, loc, shift));
    tiledOp.setCausalAlignment(CausalAlignment::TopLeft);
    return;
  }
  // Top-left: r - j0. Bottom-right, whose base is Tk - Tq for the op and
  // n - t for the tile: r + t - Tq + Tk - n - j0.
  OpFoldResult shift =
      bottomRight ? apply(s0 + s1 - s2, {r, sizes[2], qDims[2]}) : r;
  if (!wholeKeys)
    shift = bottomRight ? apply(s0 + s1 - s2 - s3, {shift, kDims[2], n, j0})
                        : apply(s0 - s1, {shift, j0});
  if (Value o = addToOffset(b, loc, op.getCausalOffset(), shift))
    tiledOp.getCausalOffsetMutable().assign(o);
}

/// The destinations. A tile of the op writes the tile of the op's own (the
/// result's loops (b, h, i, e) in the layout's order, lse's (b, h, i) by
/// meaning). A key tile (withLse) writes new tensors: its result is merged
/// into the running state, which the tiling driver may have made the op's
/// destinations.
void AttentionTileBuilder::setDestinations(bool withLse) {
  // lse [B, H, Tq] by meaning, whatever the layout.
  SmallVector<int64_t> lseShape;
  SmallVector<Value> lseDynamic;
  dispatchIndexOpFoldResults({sizes[0], sizes[1], sizes[2]}, lseDynamic,
                             lseShape);
  Value outInit, lseInit;
  if (withLse) {
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults(layoutSizes.take_front(4), dynamic, shape);
    outInit = tensor::EmptyOp::create(
        b, loc, op.getResult().getType().clone(shape), dynamic);
    lseInit = tensor::EmptyOp::create(
        b, loc, RankedTensorType::get(lseShape, attentionMathType(op)),
        lseDynamic);
  } else {
    outInit = sliceOf(op.getOutInit(), layoutOffsets.take_front(4),
                      layoutSizes.take_front(4));
    if (op.getLse())
      lseInit = sliceOf(op.getLseInit(), {offsets[0], offsets[1], offsets[2]},
                        {sizes[0], sizes[1], sizes[2]});
  }
  tiledOp.setInits(outInit, op.getLse() || withLse ? lseInit : Value());
  tiled->getResult(0).setType(outInit.getType());
  if (op.getLse()) {
    tiled->getResult(1).setType(lseInit.getType());
  } else if (withLse) {
    // The same op with an lse result.
    OperationState state(loc, tiled->getName());
    state.addOperands(tiled->getOperands());
    state.addAttributes(llvm::to_vector(tiled->getDiscardableAttrs()));
    state.propertiesAttr = tiled->getPropertiesAsAttribute();
    state.addTypes({tiled->getResult(0).getType(), lseInit.getType()});
    Operation *withLseOp = b.create(state);
    tiled->erase();
    tiled = withLseOp;
  }
}

FailureOr<TilingResult>
AttentionTileBuilder::build(bool withLse, KeyTileCorrection *correction) {
  if (failed(tileHeads()) || failed(tileKeys()))
    return failure();
  cloneOnInputs();
  if (Value bias = op.getBias())
    tiledOp.getBiasMutable().assign(sliceScores(bias));
  if (Value mask = op.getMask())
    tiledOp.getMaskMutable().assign(sliceScores(mask));
  tileKvLengths();
  shiftRopePositions();
  shiftAlibi(correction);
  shiftCausalOffset();
  setDestinations(withLse);
  // After the operand computations created above.
  tiled->moveBefore(b.getInsertionBlock(), b.getInsertionPoint());
  result.tiledOps.push_back(tiled);
  for (Value v : tiled->getResults())
    result.tiledValues.push_back(v);
  return std::move(result);
}

/// The attention on a tile of its loops (AttentionTileBuilder).
static FailureOr<TilingResult>
tileAttention(AttentionOp op, OpBuilder &b,
              ArrayRef<OpFoldResult> layoutOffsets,
              ArrayRef<OpFoldResult> layoutSizes, bool withLse,
              KeyTileCorrection *correction = nullptr) {
  return AttentionTileBuilder(op, b, layoutOffsets, layoutSizes)
      .build(withLse, correction);
}

FailureOr<TilingResult>
AttentionOp::getTiledImplementation(OpBuilder &b,
                                    ArrayRef<OpFoldResult> offsets,
                                    ArrayRef<OpFoldResult> sizes) {
  if (offsets.size() > kKeyLoop &&
      !coversWhole(offsets[kKeyLoop], sizes[kKeyLoop],
                   getKey().getType().getDimSize(getSequenceAxis()))) {
    emitRemark("a tile of the keys is a partial softmax: tile the key loop ")
        << kKeyLoop << " as a reduction (transform.structured."
        << "tile_reduction_using_for), which merges the tiles";
    return failure();
  }
  return tileAttention(*this, b, offsets, sizes, /*withLse=*/false);
}

/// The position of result `resultNumber`'s tile for the loop tile
/// `offsets`/`sizes`: the (b, h, i, e) loops for the result, (b, h, i) by
/// meaning for lse.
static void attentionResultTile(AttentionOp op, unsigned resultNumber,
                                ArrayRef<OpFoldResult> offsets,
                                ArrayRef<OpFoldResult> sizes,
                                SmallVector<OpFoldResult> &resultOffsets,
                                SmallVector<OpFoldResult> &resultSizes) {
  resultOffsets.clear();
  resultSizes.clear();
  if (resultNumber == 0) {
    resultOffsets.assign(offsets.begin(), offsets.begin() + 4);
    resultSizes.assign(sizes.begin(), sizes.begin() + 4);
    return;
  }
  SmallVector<int64_t> perm = op.getOperandPermutation();
  for (int64_t m = 0; m < 3; ++m) {
    resultOffsets.push_back(offsets[perm[m]]);
    resultSizes.push_back(sizes[perm[m]]);
  }
}

LogicalResult AttentionOp::getResultTilePosition(
    OpBuilder &, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  attentionResultTile(*this, resultNumber, offsets, sizes, resultOffsets,
                      resultSizes);
  return success();
}

FailureOr<TilingResult>
AttentionOp::generateResultTileValue(OpBuilder &b, unsigned resultNumber,
                                     ArrayRef<OpFoldResult> offsets,
                                     ArrayRef<OpFoldResult> sizes) {
  // Every key.
  Range keys = getIterationDomain(b)[kKeyLoop];
  if (resultNumber == 0) {
    SmallVector<OpFoldResult> loopOffsets(offsets), loopSizes(sizes);
    loopOffsets.push_back(keys.offset);
    loopSizes.push_back(keys.size);
    return getTiledImplementation(b, loopOffsets, loopSizes);
  }
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
  loopOffsets.push_back(keys.offset);
  loopSizes.push_back(keys.size);
  return getTiledImplementation(b, loopOffsets, loopSizes);
}

//===----------------------------------------------------------------------===//
// pe.attention: key tiles (PartialReductionOpInterface)
//===----------------------------------------------------------------------===//

// A key tile's partial result is the tile's attention and log-sum-exp (the
// op's lse result). The state carried across key tiles is the pair
// (acc [B, H, Tq, Dv] in the result's layout, lse [B, H, Tq]), in the math
// type, starting at (0, -inf): the attention and log-sum-exp of the keys
// seen so far. A tile (o_t, l_t) updates it exactly (the op description):
//   l' = log(exp(l) + exp(l_t)),  acc' = exp(l - l') acc + exp(l_t - l') o_t
// with a key tile that no row key sees (l_t = -inf) adding nothing, and the
// state of a row that has seen no allowed key staying (0, -inf). This is
// online softmax with the running maximum and sum folded into l = max +
// log(sum) and the accumulator kept normalised; the merge after the loop
// only rounds acc to the result type.

FailureOr<SmallVector<Value>>
AttentionOp::generateInitialTensorForPartialReduction(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult>,
    const SetVector<unsigned> &reductionDims) {
  if (reductionDims.size() != 1 || reductionDims[0] != kKeyLoop)
    return failure();
  Type mt = attentionMathType(*this);
  ReifiedRankedShapedTypeDims shapes;
  if (failed(reifyResultShapes(b, shapes)))
    return failure();
  SmallVector<int64_t> perm = getOperandPermutation();
  SmallVector<OpFoldResult> lseSizes = {shapes[0][0], shapes[0][perm[1]],
                                        shapes[0][perm[2]]};
  auto filled = [&](ArrayRef<OpFoldResult> sizes, double value) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, mt);
    Value c = arith::ConstantOp::create(b, loc, mt, b.getFloatAttr(mt, value));
    return linalg::FillOp::create(b, loc, ValueRange{c}, ValueRange{empty})
        .getResult(0);
  };
  return SmallVector<Value>{
      filled(shapes[0], 0.0),
      filled(lseSizes, -std::numeric_limits<double>::infinity())};
}

FailureOr<TilingResult> AttentionOp::tileToPartialReduction(
    OpBuilder &b, Location loc, ReductionTilingStrategy tilingStrategy,
    ValueRange init, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, const SetVector<unsigned> &reductionDims,
    ArrayRef<OpFoldResult>) {
  if (tilingStrategy !=
      ReductionTilingStrategy::PartialReductionOuterReduction) {
    emitRemark("key tiles merge into one running softmax state, in sequence: "
               "tile the keys with transform.structured."
               "tile_reduction_using_for");
    return failure();
  }
  if (reductionDims.size() != 1 || reductionDims[0] != kKeyLoop ||
      init.size() != 2)
    return failure();
  KeyTileCorrection correction;
  FailureOr<TilingResult> tile =
      tileAttention(*this, b, offsets, sizes, /*withLse=*/true, &correction);
  if (failed(tile))
    return failure();
  TilingResult result = std::move(*tile);
  Value tileOut = result.tiledValues[0], tileLse = result.tiledValues[1];
  result.tiledValues.clear();

  // The state's slices.
  SmallVector<OpFoldResult> accOffsets, accSizes, rowOffsets, rowSizes;
  attentionResultTile(*this, 0, offsets, sizes, accOffsets, accSizes);
  attentionResultTile(*this, 1, offsets, sizes, rowOffsets, rowSizes);
  Value acc =
      slice(b, loc, init[0], accOffsets, accSizes, result.generatedSlices);
  Value lse =
      slice(b, loc, init[1], rowOffsets, rowSizes, result.generatedSlices);
  auto accType = cast<RankedTensorType>(acc.getType());
  auto rowType = cast<RankedTensorType>(lse.getType());
  Type mt = rowType.getElementType();
  MLIRContext *ctx = getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineMap rows = b.getMultiDimIdentityMap(3);

  // 1. Per row: the tile's log-sum-exp (with the key-distance correction),
  // the new one and the weights of the old state and of the tile.
  // The new log-sum-exp overwrites the old one in place (the loop yields
  // the state it was given).
  SmallVector<Value> inputs = {tileLse};
  SmallVector<AffineMap> maps = {rows};
  Value keyShift;
  if (correction.slopes) {
    inputs.push_back(correction.slopes);
    maps.push_back(AffineMap::get(3, 0, {d(1)}, ctx));
    Value j0 = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                          correction.keyOffset);
    keyShift = arith::SIToFPOp::create(b, loc, b.getF64Type(), j0);
  }
  Value rowEmpty = tensor::EmptyOp::create(b, loc, getDims(b, loc, lse), mt);
  maps.append(3, rows);
  auto weights = linalg::GenericOp::create(
      b, loc, TypeRange{rowType, rowType, rowType}, inputs,
      ValueRange{lse, rowEmpty, rowEmpty}, maps,
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        auto cst = [&](double x) {
          return arith::ConstantOp::create(nb, l, mt, nb.getFloatAttr(mt, x))
              .getResult();
        };
        Value lt = args[0], la = args[inputs.size()];
        if (keyShift) {
          Value slope = args[1];
          if (!slope.getType().isF64())
            slope = arith::ExtFOp::create(nb, l, nb.getF64Type(), slope);
          Value shift = arith::MulFOp::create(nb, l, slope, keyShift);
          if (mt != shift.getType())
            shift = arith::TruncFOp::create(nb, l, mt, shift);
          lt = arith::AddFOp::create(nb, l, lt, shift);
        }
        Value negInf = cst(-std::numeric_limits<double>::infinity());
        // log(exp(a) + exp(b)) = max + log1p(exp(min - max)); -inf when
        // both are.
        Value hi = arith::MaximumFOp::create(nb, l, la, lt);
        Value lo = arith::MinimumFOp::create(nb, l, la, lt);
        Value none =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, hi, negInf);
        Value sum = arith::AddFOp::create(
            nb, l, hi,
            math::Log1pOp::create(
                nb, l,
                math::ExpOp::create(nb, l,
                                    arith::SubFOp::create(nb, l, lo, hi))));
        Value next = arith::SelectOp::create(nb, l, none, negInf, sum);
        auto weight = [&](Value x) -> Value {
          Value w =
              math::ExpOp::create(nb, l, arith::SubFOp::create(nb, l, x, next));
          return arith::SelectOp::create(nb, l, none, cst(0.0), w);
        };
        linalg::YieldOp::create(nb, l,
                                ValueRange{next, weight(la), weight(lt)});
      });

  // 2. acc' = w_acc acc + w_tile o_t over the (b, h, i, e) loops; a zero
  // weight adds nothing (not 0 * inf).
  SmallVector<int64_t> perm = getOperandPermutation();
  AffineMap out = b.getMultiDimIdentityMap(4);
  AffineMap row = AffineMap::get(4, 0, {d(0), d(perm[1]), d(perm[2])}, ctx);
  Value accNext =
      linalg::GenericOp::create(
          b, loc, TypeRange{accType},
          ValueRange{tileOut, weights.getResult(1), weights.getResult(2)},
          ValueRange{acc}, {out, row, row, out},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value zero =
                arith::ConstantOp::create(nb, l, mt, nb.getFloatAttr(mt, 0.0));
            auto term = [&](Value w, Value x) -> Value {
              Value isZero = arith::CmpFOp::create(
                  nb, l, arith::CmpFPredicate::OEQ, w, zero);
              Value t = arith::MulFOp::create(nb, l, w, x);
              return arith::SelectOp::create(nb, l, isZero, zero, t);
            };
            Value o = args[0];
            if (o.getType() != mt)
              o = arith::ExtFOp::create(nb, l, mt, o);
            linalg::YieldOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, term(args[1], args[3]),
                                      term(args[2], o))
                    .getResult());
          })
          .getResult(0);
  // The tiled op is the key tile's attention (transform ops hand it out as
  // the split op); the two updates above follow it in the loop body.
  result.tiledValues = {accNext, weights.getResult(0)};
  return result;
}

LogicalResult AttentionOp::getPartialResultTilePosition(
    OpBuilder &, unsigned resultNumber, ReductionTilingStrategy,
    ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
    const SetVector<unsigned> &, ArrayRef<OpFoldResult>,
    SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  attentionResultTile(*this, resultNumber, offsets, sizes, resultOffsets,
                      resultSizes);
  return success();
}

FailureOr<MergeResult>
AttentionOp::mergeReductions(OpBuilder &b, Location loc,
                             ValueRange partialReduce,
                             const SetVector<unsigned> &) {
  if (partialReduce.size() != 2)
    return failure();
  // The state is the attention of all keys: round acc to the result type.
  // The op's destination receives it.
  Value acc = partialReduce[0];
  Type elementType = getResult().getType().getElementType();
  AffineMap id = b.getMultiDimIdentityMap(4);
  auto round = linalg::GenericOp::create(
      b, loc, TypeRange{getOutInit().getType()}, ValueRange{acc},
      ValueRange{getOutInit()}, {id, id},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0];
        if (x.getType() != elementType)
          x = arith::TruncFOp::create(nb, l, elementType, x);
        linalg::YieldOp::create(nb, l, x);
      });
  MergeResult merge;
  merge.mergeOps.push_back(round);
  auto castTo = [&](Value v, Type t) -> Value {
    return v.getType() == t ? v : tensor::CastOp::create(b, loc, t, v);
  };
  merge.replacements.push_back(
      castTo(round.getResult(0), getResult().getType()));
  if (Value lse = getLse())
    merge.replacements.push_back(castTo(partialReduce[1], lse.getType()));
  return merge;
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
