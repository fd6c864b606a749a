//===- RaiseRopeRewrite.cpp - a matched rotary embedding to pe.rope ------===//
//
// Part of the pe-mlir project.
//
// The rewrite of a rotary embedding RopeMatcher matched (RaiseRope.cpp): the
// frequency op or the table slices pe.rope reads, the positions, and the
// run-time checks of assume-duplicated-tables.
//
//===----------------------------------------------------------------------===//

#include "RaiseRope.h"

#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

/// The first channel of pair i.
static int64_t firstOfPair(RopeLayout layout, int64_t i) {
  return layout == RopeLayout::Half ? i : 2 * i;
}

/// Which root dimension a variable is, if it is one.
static std::optional<unsigned> rootDim(AffineExpr e, unsigned rank) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    if (d.getPosition() < rank)
      return d.getPosition();
  return std::nullopt;
}

/// A slice of `table` (rank-reduced to the non-constant dimensions), reading
/// `offsets` with the given `sizes` and `strides`.
static Value sliceTable(PatternRewriter &rewriter, bool dry, Location loc,
                        Value table, ArrayRef<int64_t> offsets,
                        ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> resultShape) {
  auto type = cast<RankedTensorType>(table.getType());
  bool identity = type.getShape() == resultShape &&
                  llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
                  llvm::all_of(strides, [](int64_t s) { return s == 1; });
  if (identity || dry)
    return table;
  auto resultType = RankedTensorType::get(resultShape, type.getElementType());
  SmallVector<OpFoldResult> o, s, st;
  for (auto [a, b, c] : llvm::zip(offsets, sizes, strides)) {
    o.push_back(rewriter.getIndexAttr(a));
    s.push_back(rewriter.getIndexAttr(b));
    st.push_back(rewriter.getIndexAttr(c));
  }
  return tensor::ExtractSliceOp::create(rewriter, loc, resultType, table, o, s,
                                        st);
}

/// Largest constant table slice compared at compile time.
constexpr int64_t kMaxComparedEntries = int64_t(1) << 22;

/// Whether the slices of `table` at offsets `a` and `b` (both with `sizes`
/// and `strides`) hold the same values; std::nullopt for a slice larger than
/// kMaxComparedEntries.
static std::optional<bool> sameSlices(DenseFPElementsAttr table,
                                      ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                      ArrayRef<int64_t> sizes,
                                      ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = table.getType().getShape();
  int64_t count = 1;
  for (int64_t s : sizes) {
    if (s <= 0)
      return true;
    count *= s;
    if (count > kMaxComparedEntries)
      return std::nullopt;
  }
  auto values = table.getValues<APFloat>();
  SmallVector<int64_t> at(sizes.size(), 0);
  auto flat = [&](ArrayRef<int64_t> offsets) {
    int64_t index = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      index = index * shape[d] + offsets[d] + at[d] * strides[d];
    return index;
  };
  for (int64_t n = 0; n < count; ++n) {
    if (values[flat(a)].compare(values[flat(b)]) != APFloat::cmpEqual)
      return false;
    for (int64_t d = sizes.size() - 1; d >= 0; --d) {
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
    }
  }
  return true;
}

/// On assume-duplicated-tables: checks that the entries of `tables`' table
/// that the second channels of the pairs read follow those of the first
/// channels (`firsts`, the slice of the first channels: offsets `start`,
/// channel dimension `channelAt`) with the same sizes and strides, and (not
/// dry) inserts a run-time check that the two slices are equal: pe.rope reads
/// only the first channels' entries, so a table whose halves differ must stop
/// the program instead of giving a different result.
LogicalResult
RopeMatcher::checkDuplicated(PatternRewriter &rewriter, bool dry, Location loc,
                             ArrayRef<TableFactor> tables, unsigned channelAt,
                             ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> shape,
                             Value firsts) {
  const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
  // Refusals give the remark's reason (whyRopeNotRaised asks the dry run).
  auto refuse = [&](const Twine &why) {
    reason = why.str();
    return rewriter.notifyMatchFailure(loc, reason);
  };
  std::optional<int64_t> base;
  int64_t half = rotaryDim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const Expr *first = tables[firstOfPair(layout, i)].leaf;
    const Expr *second = tables[partner(firstOfPair(layout, i))].leaf;
    if (!first || !second || second->value != l0->value ||
        second->indices.size() != first->indices.size())
      return refuse("assume-duplicated-tables: the second channels of the "
                    "pairs read another table than the first channels");
    for (auto [d, e] : llvm::enumerate(second->indices)) {
      if (d != channelAt) {
        if (tracer.simplify(e) != tracer.simplify(first->indices[d]))
          return refuse("assume-duplicated-tables: the second channels of "
                        "the pairs read other rows of the table than the "
                        "first channels");
        continue;
      }
      std::optional<int64_t> at = tracer.constantOf(e);
      if (at && !base)
        base = at;
      if (!at || *at != *base + i * strides[channelAt])
        return refuse("assume-duplicated-tables: the second channels of the "
                      "pairs do not read the table's channels with the "
                      "first channels' stride");
    }
  }
  SmallVector<int64_t> offsets(start);
  offsets[channelAt] = *base;
  // A constant table is compared here: equal halves need no run-time check,
  // and a table whose halves differ is not raised.
  if (auto cst = l0->value.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue()))
      if (std::optional<bool> same =
              sameSlices(dense, start, offsets, sizes, strides)) {
        if (*same)
          return success();
        return refuse(Twine("the constant ") +
                      (tables.data() == cosOf.data() ? "cos" : "sin") +
                      " table holds different values for the two channels "
                      "of a rotated pair");
      }
  if (dry)
    return success();

  Value seconds = sliceTable(rewriter, /*dry=*/false, loc, l0->value, offsets,
                             sizes, strides, shape);
  // all(firsts == seconds), then cf.assert.
  auto type = cast<RankedTensorType>(firsts.getType());
  unsigned rank = type.getRank();
  MLIRContext *ctx = rewriter.getContext();
  Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{},
                                        rewriter.getI1Type());
  Value yes =
      arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
  Value init =
      linalg::FillOp::create(rewriter, loc, ValueRange{yes}, ValueRange{empty})
          .getResult(0);
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto all = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{firsts, seconds},
      ValueRange{init}, ArrayRef<AffineMap>{identity, identity, scalar},
      iterators, [](OpBuilder &b, Location l, ValueRange args) {
        Value same = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                           args[0], args[1]);
        linalg::YieldOp::create(
            b, l, arith::AndIOp::create(b, l, args[2], same).getResult());
      });
  Value ok =
      tensor::ExtractOp::create(rewriter, loc, all.getResult(0), ValueRange{});

  std::string message;
  llvm::raw_string_ostream os(message);
  os << "pe-raise assume-duplicated-tables: the "
     << (tables.data() == cosOf.data() ? "cos" : "sin") << " table (";
  if (auto arg = dyn_cast<BlockArgument>(l0->value)) {
    os << "argument #" << arg.getArgNumber();
    if (auto func = dyn_cast_or_null<FunctionOpInterface>(
            arg.getOwner()->getParentOp()))
      os << " of @" << func.getName();
  } else {
    os << "the value at " << l0->value.getLoc();
  }
  os << ") of the rotary embedding at ";
  if (auto at = dyn_cast<FileLineColLoc>(loc))
    os << at.getFilename().getValue() << ":" << at.getLine() << ":"
       << at.getColumn();
  else
    os << loc;
  os << " holds different values for the two channels of a rotated pair ("
     << (layout == RopeLayout::Half ? "c and c + " + std::to_string(half)
                                    : std::string("2i and 2i + 1"))
     << "); the raised pe.rope would read only the first";
  cf::AssertOp::create(rewriter, loc, ok, message);
  return success();
}

/// Positions: an affine function t + c of one root dimension, or an integer
/// tensor read at the token (and batch) index.
LogicalResult RopeMatcher::matchRopePositions(PatternRewriter &rewriter,
                                              bool dry, const Expr *p,
                                              RopeOperands &ops) {
  Location loc = root.getLoc();
  PositionsMatch m;
  std::string why;
  if (failed(matchPositions(tracer, p, type, m, why)))
    return rewriter.notifyMatchFailure(loc, why);
  ops.sequenceDim = m.tokenDim;
  ops.staticOffset = m.staticOffset;
  ops.offset = m.offset;
  if (m.tensor)
    ops.positions = dry ? m.tensor : buildPositions(rewriter, loc, m);
  return success();
}

/// Constant frequencies: a frequency op that computes them (with
/// recover-scaling), else a constant table.
LogicalResult RopeMatcher::buildConstantFrequencies(PatternRewriter &rewriter,
                                                    bool dry, Type freqType,
                                                    RopeOperands &ops) {
  Location loc = root.getLoc();
  int64_t half = rotaryDim / 2;
  SmallVector<double> freqs;
  for (int64_t i = 0; i < half; ++i) {
    const TableFactor &f = cosOf[firstOfPair(layout, i)];
    if (!f.angle.frequency)
      return rewriter.notifyMatchFailure(loc, "mixed frequencies");
    freqs.push_back(*f.angle.frequency);
  }
  std::optional<FrequencyOpMatch> op;
  if (options.recoverScaling)
    op = matchFrequencyOp(freqs, rotaryDim, options.tolerance);
  if (op && dry) {
    ops.invFreq = root;
  } else if (op) {
    Operation *freqOp = op->build(rewriter, loc, freqType);
    ops.invFreq = freqOp->getResult(0);
    // The op's attention scaling when it is the IR's, else the IR's.
    if (scaling != 1 &&
        nearlyEqual(op->attentionScaling, scaling, options.tolerance))
      ops.attentionScaling = freqOp->getResult(1);
  } else if (dry) {
    ops.invFreq = root;
  } else {
    auto tableType = RankedTensorType::get({half}, freqType);
    SmallVector<Attribute> values;
    for (double f : freqs)
      values.push_back(rewriter.getFloatAttr(freqType, f));
    ops.invFreq = arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(tableType, values));
  }
  return success();
}

/// Frequencies read from a tensor: one element per pair, its index moving
/// with the pair along one dimension; inv_freq is that slice.
LogicalResult RopeMatcher::sliceFrequencyTensor(PatternRewriter &rewriter,
                                                bool dry, RopeOperands &ops) {
  Location loc = root.getLoc();
  int64_t half = rotaryDim / 2;
  const Expr *f0 = cosOf[firstOfPair(layout, 0)].angle.frequencyLeaf;
  auto table = dyn_cast<RankedTensorType>(f0->value.getType());
  if (!table || !isa<FloatType>(table.getElementType()) ||
      table.getElementTypeBitWidth() < 32)
    return rewriter.notifyMatchFailure(loc, "frequency tensor type");
  SmallVector<int64_t> start;
  for (AffineExpr e : f0->indices)
    start.push_back(*tracer.constantOf(e));
  std::optional<unsigned> moving;
  for (int64_t i = 0; i < half; ++i) {
    const Expr *fi = cosOf[firstOfPair(layout, i)].angle.frequencyLeaf;
    if (!fi || fi->value != f0->value)
      return rewriter.notifyMatchFailure(loc, "frequency tensors");
    for (auto [d, e] : llvm::enumerate(fi->indices)) {
      int64_t at = *tracer.constantOf(e);
      if (at == start[d])
        continue;
      if (moving && *moving != d)
        return rewriter.notifyMatchFailure(loc, "frequency indexing");
      moving = d;
      if (at != start[d] + i)
        return rewriter.notifyMatchFailure(loc, "frequency indexing");
    }
  }
  if (!moving && half > 1)
    return rewriter.notifyMatchFailure(loc, "frequency indexing");
  unsigned dim = moving ? *moving : table.getRank() - 1;
  SmallVector<int64_t> sizes(start.size(), 1), strides(start.size(), 1);
  sizes[dim] = half;
  ops.invFreq =
      sliceTable(rewriter, dry, loc, f0->value, start, sizes, strides, {half});
  return success();
}

/// Computed angles p * f: the positions p, then the frequencies f
/// (constants, maybe a frequency op, or a tensor's elements).
LogicalResult RopeMatcher::buildFrequencies(PatternRewriter &rewriter, bool dry,
                                            RopeOperands &ops) {
  Location loc = root.getLoc();
  const Expr *p = stripCasts(cosOf[0].angle.position);
  if (p->kind == ExprKind::IntToFp)
    p = p->operands[0];
  else if (!p->isConst())
    return rewriter.notifyMatchFailure(loc, "positions are not integers");
  if (failed(matchRopePositions(rewriter, dry, p, ops)))
    return failure();
  Type angleType =
      getElementTypeOrSelf(stripCasts(cosOf[0].angle.position)->type);
  Type freqType = angleType.isF64() ? Type(rewriter.getF64Type())
                                    : Type(rewriter.getF32Type());
  if (cosOf[0].angle.frequency)
    return buildConstantFrequencies(rewriter, dry, freqType, ops);
  return sliceFrequencyTensor(rewriter, dry, ops);
}

/// The table dimensions the first pair's entry `l0` reads: constants (the
/// slice's start), the batch, and the token: the token itself (+ an offset,
/// in `start`) along one root dimension, which becomes the sequence
/// dimension, or a position gathered from a tensor (`gatherPositions`, the
/// same for every table).
LogicalResult RopeMatcher::indexCacheRows(const Expr *l0, CacheIndexing &ix,
                                          const Expr *&gatherPositions,
                                          RopeOperands &ops) {
  unsigned rank = type.getRank();
  for (auto [i, e] : llvm::enumerate(l0->indices)) {
    AffineExpr s = tracer.simplify(e);
    if (auto c = dyn_cast<AffineConstantExpr>(s)) {
      ix.start.push_back(c.getValue());
      continue;
    }
    ix.start.push_back(0);
    if (const Expr *gathered = tracer.symbolValue(s)) {
      // Rows gathered at positions read from a tensor.
      if (ix.tokenAt ||
          (gatherPositions && !tracer.equal(gatherPositions, gathered)))
        return failure();
      ix.tokenAt = i;
      gatherPositions = gathered;
      continue;
    }
    AffineExpr var = s;
    if (auto add = dyn_cast<AffineBinaryOpExpr>(s);
        add && add.getKind() == AffineExprKind::Add &&
        isa<AffineConstantExpr>(add.getRHS())) {
      var = add.getLHS();
      ix.start.back() = cast<AffineConstantExpr>(add.getRHS()).getValue();
    }
    std::optional<unsigned> d = rootDim(var, rank);
    if (!d || *d == rank - 1)
      return failure();
    if (*d == 0 && rank > 2 && !ix.batchAt && !ix.tokenAt &&
        i + 2 < l0->indices.size()) {
      if (ix.start.back() != 0)
        return failure();
      ix.batchAt = i;
    } else if (!ix.tokenAt) {
      ix.tokenAt = i;
      if (ops.sequenceDim && *ops.sequenceDim != *d)
        return failure();
      ops.sequenceDim = *d;
    } else {
      return failure();
    }
  }
  return success();
}

/// The channel dimension of a table: the one index that moves with the pair,
/// by a positive stride, while every pair reads the row of the same token.
LogicalResult RopeMatcher::indexCacheChannels(ArrayRef<TableFactor> tables,
                                              CacheIndexing &ix) {
  int64_t half = rotaryDim / 2;
  const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
  for (int64_t i = 1; i < half; ++i) {
    const Expr *li = tables[firstOfPair(layout, i)].leaf;
    if (li->value != l0->value)
      return failure();
    if (li->indices.size() != l0->indices.size())
      return failure();
    for (auto [d, e] : llvm::enumerate(li->indices)) {
      if (ix.tokenAt == d || ix.batchAt == d) {
        // Every pair reads the row of the same token.
        if (tracer.simplify(e) != tracer.simplify(l0->indices[d]))
          return failure();
        continue;
      }
      std::optional<int64_t> c = tracer.constantOf(e);
      if (!c)
        return failure();
      int64_t at = *c;
      if (at == ix.start[d])
        continue;
      if (ix.channelAt && *ix.channelAt != d)
        return failure();
      if (!ix.channelAt) {
        ix.channelAt = d;
        ix.stride = at - ix.start[d];
        if (ix.stride <= 0)
          return failure();
      }
      if (at != ix.start[d] + i * ix.stride)
        return failure();
    }
  }
  return success();
}

/// A cos or sin table read from a tensor, cos[..., token, ..., k(i)] for pair
/// i, as the cache pe.rope reads (`cache`): [P, R / 2] rows by position from
/// `rowOffset`, or per-token [B, T, R / 2] rows (`perToken`).
LogicalResult RopeMatcher::sliceCache(PatternRewriter &rewriter, bool dry,
                                      std::vector<TableFactor> &tables,
                                      Value &cache, bool &perToken,
                                      int64_t &rowOffset,
                                      const Expr *&gatherPositions,
                                      RopeOperands &ops) {
  Location loc = root.getLoc();
  int64_t half = rotaryDim / 2;
  const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
  auto tableType = cast<RankedTensorType>(l0->value.getType());
  CacheIndexing ix;
  if (failed(indexCacheRows(l0, ix, gatherPositions, ops)) ||
      failed(indexCacheChannels(tables, ix)))
    return failure();
  SmallVector<int64_t> &start = ix.start;
  if (!ix.channelAt)
    ix.channelAt = tableType.getRank() - 1;
  unsigned channelAt = *ix.channelAt;
  if (!ix.tokenAt || channelAt == *ix.tokenAt || ix.batchAt == channelAt)
    return failure();
  unsigned tokenAt = *ix.tokenAt;
  std::optional<unsigned> batchAt = ix.batchAt;
  perToken = batchAt.has_value() && type.getDimSize(0) != 1;
  SmallVector<int64_t> sizes, strides, shape;
  for (unsigned d = 0; d < start.size(); ++d) {
    int64_t size = 1;
    if (d == channelAt)
      size = half;
    else if (d == tokenAt || (batchAt && d == *batchAt))
      size = tableType.getDimSize(d) - start[d];
    if (batchAt && d == *batchAt && !perToken)
      size = 1;
    sizes.push_back(size);
    strides.push_back(d == channelAt ? ix.stride : 1);
    if (size != 1 || d == channelAt || d == tokenAt)
      shape.push_back(size);
  }
  if (ShapedType::isDynamic(tableType.getDimSize(tokenAt)))
    return failure();
  // With per-token tables the row is the token; otherwise the row is
  // the position, token t reading row offset + t.
  rowOffset = start[tokenAt];
  if (perToken) {
    if (rowOffset != 0)
      return failure();
    // [B, T, h]: the token dimension must be the input's.
    sizes[tokenAt] = type.getDimSize(*ops.sequenceDim);
    shape = {type.getDimSize(0), type.getDimSize(*ops.sequenceDim), half};
  } else {
    start[tokenAt] = 0;
    sizes[tokenAt] = tableType.getDimSize(tokenAt);
    shape.clear();
    shape = {tableType.getDimSize(tokenAt), half};
  }
  cache =
      sliceTable(rewriter, dry, loc, l0->value, start, sizes, strides, shape);
  if (assumedDuplicated)
    return checkDuplicated(rewriter, dry, loc, tables, channelAt, start, sizes,
                           strides, shape, cache);
  return success();
}

/// Tables read from tensors: the cos and sin caches, read alike, and the
/// positions they are gathered at, if they are.
LogicalResult RopeMatcher::buildCaches(PatternRewriter &rewriter, bool dry,
                                       RopeOperands &ops) {
  Location loc = root.getLoc();
  const Expr *gatherPositions = nullptr;
  bool cosPerToken = false, sinPerToken = false;
  int64_t cosOffset = 0, sinOffset = 0;
  if (failed(sliceCache(rewriter, dry, cosOf, ops.cosCache, cosPerToken,
                        cosOffset, gatherPositions, ops)) ||
      failed(sliceCache(rewriter, dry, sinOf, ops.sinCache, sinPerToken,
                        sinOffset, gatherPositions, ops)) ||
      cosPerToken != sinPerToken || cosOffset != sinOffset ||
      ops.cosCache.getType() != ops.sinCache.getType())
    return rewriter.notifyMatchFailure(loc, "unsupported table indexing");
  ops.staticOffset = cosOffset;
  if (gatherPositions) {
    if (cosPerToken || cosOffset != 0 ||
        failed(matchRopePositions(rewriter, dry, gatherPositions, ops)))
      return rewriter.notifyMatchFailure(loc, "unsupported gather");
  }
  return success();
}

LogicalResult RopeMatcher::rewrite(PatternRewriter &rewriter, bool dry) {
  Location loc = root.getLoc();
  unsigned rank = type.getRank();
  MLIRContext *ctx = rewriter.getContext();
  RopeOperands ops;
  if (failed(cosOf[0].computed ? buildFrequencies(rewriter, dry, ops)
                               : buildCaches(rewriter, dry, ops)))
    return failure();
  if (!ops.attentionScaling && scaling != 1)
    ops.attentionScaling =
        dry ? root
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getF32FloatAttr(scaling))
                  .getResult();

  if (!ops.sequenceDim) {
    // Positions do not vary along any dimension (one token): take a
    // dimension of extent 1, the default one if it has.
    for (int64_t d = rank - 2; d >= 0; --d)
      if (type.getDimSize(d) == 1) {
        ops.sequenceDim = d;
        break;
      }
    if (!ops.sequenceDim)
      return rewriter.notifyMatchFailure(loc, "no token dimension");
  }
  if (dry)
    return success();
  IntegerAttr rotary = rotaryDim == channels
                           ? IntegerAttr()
                           : rewriter.getI64IntegerAttr(rotaryDim);
  IntegerAttr seq = *ops.sequenceDim == rank - 2
                        ? IntegerAttr()
                        : rewriter.getI64IntegerAttr(*ops.sequenceDim);
  auto rope = RopeOp::create(
      rewriter, loc, type, input, ops.invFreq, ops.cosCache, ops.sinCache,
      ops.attentionScaling, RopeLayoutAttr::get(ctx, layout), rotary, seq,
      ops.offset, ops.positions,
      ops.staticOffset ? rewriter.getI64IntegerAttr(ops.staticOffset)
                       : IntegerAttr());
  rewriter.replaceAllUsesWith(root, rope.getResult());
  return success();
}
