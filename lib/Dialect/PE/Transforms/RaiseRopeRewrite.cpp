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

LogicalResult RopeMatcher::rewrite(PatternRewriter &rewriter, bool dry) {
  Location loc = root.getLoc();
  unsigned rank = type.getRank();
  int64_t half = rotaryDim / 2;
  Value invFreq, cosCache, sinCache, attentionScaling, positions, offset;
  int64_t staticOffset = 0;
  std::optional<unsigned> sequenceDim;
  MLIRContext *ctx = rewriter.getContext();

  // Positions: an affine function t + c of one root dimension, or an
  // integer tensor read at the token (and batch) index.
  auto positionsFrom = [&](const Expr *p) -> LogicalResult {
    PositionsMatch m;
    std::string why;
    if (failed(matchPositions(tracer, p, type, m, why)))
      return rewriter.notifyMatchFailure(loc, why);
    sequenceDim = m.tokenDim;
    staticOffset = m.staticOffset;
    offset = m.offset;
    if (m.tensor)
      positions = dry ? m.tensor : buildPositions(rewriter, loc, m);
    return success();
  };

  if (cosOf[0].computed) {
    const Expr *p = stripCasts(cosOf[0].angle.position);
    if (p->kind == ExprKind::IntToFp)
      p = p->operands[0];
    else if (!p->isConst())
      return rewriter.notifyMatchFailure(loc, "positions are not integers");
    if (failed(positionsFrom(p)))
      return failure();

    // Frequencies: constants (maybe a frequency op) or a tensor's elements.
    Type angleType =
        getElementTypeOrSelf(stripCasts(cosOf[0].angle.position)->type);
    Type freqType = angleType.isF64() ? Type(rewriter.getF64Type())
                                      : Type(rewriter.getF32Type());
    if (cosOf[0].angle.frequency) {
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
        invFreq = root;
      } else if (op) {
        Operation *freqOp = op->build(rewriter, loc, freqType);
        invFreq = freqOp->getResult(0);
        // The op's attention scaling when it is the IR's, else the IR's.
        if (scaling != 1 &&
            nearlyEqual(op->attentionScaling, scaling, options.tolerance))
          attentionScaling = freqOp->getResult(1);
      } else if (dry) {
        invFreq = root;
      } else {
        auto tableType = RankedTensorType::get({half}, freqType);
        SmallVector<Attribute> values;
        for (double f : freqs)
          values.push_back(rewriter.getFloatAttr(freqType, f));
        invFreq = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(tableType, values));
      }
    } else {
      // One frequency tensor element per pair, its index moving with i.
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
      invFreq = sliceTable(rewriter, dry, loc, f0->value, start, sizes, strides,
                           {half});
    }
  } else {
    // Tables read from tensors: cos[..., token, ..., k(i)] for pair i, the
    // token index either the token itself (+ an offset) or a position
    // gathered from a tensor.
    const Expr *gatherPositions = nullptr;
    auto cacheOf = [&](std::vector<TableFactor> &tables, Value &cache,
                       bool &perToken, int64_t &offset) -> LogicalResult {
      const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
      auto tableType = cast<RankedTensorType>(l0->value.getType());
      SmallVector<int64_t> start;
      std::optional<unsigned> tokenAt, batchAt, channelAt;
      for (auto [i, e] : llvm::enumerate(l0->indices)) {
        AffineExpr s = tracer.simplify(e);
        if (auto c = dyn_cast<AffineConstantExpr>(s)) {
          start.push_back(c.getValue());
          continue;
        }
        start.push_back(0);
        if (const Expr *gathered = tracer.symbolValue(s)) {
          // Rows gathered at positions read from a tensor.
          if (tokenAt ||
              (gatherPositions && !tracer.equal(gatherPositions, gathered)))
            return failure();
          tokenAt = i;
          gatherPositions = gathered;
          continue;
        }
        AffineExpr var = s;
        if (auto add = dyn_cast<AffineBinaryOpExpr>(s);
            add && add.getKind() == AffineExprKind::Add &&
            isa<AffineConstantExpr>(add.getRHS())) {
          var = add.getLHS();
          start.back() = cast<AffineConstantExpr>(add.getRHS()).getValue();
        }
        std::optional<unsigned> d = rootDim(var, rank);
        if (!d || *d == rank - 1)
          return failure();
        if (*d == 0 && rank > 2 && !batchAt && !tokenAt &&
            i + 2 < l0->indices.size()) {
          if (start.back() != 0)
            return failure();
          batchAt = i;
        } else if (!tokenAt) {
          tokenAt = i;
          if (sequenceDim && *sequenceDim != *d)
            return failure();
          sequenceDim = *d;
        } else {
          return failure();
        }
      }
      // The channel index: the one that moves with the pair.
      int64_t stride = 1;
      for (int64_t i = 1; i < half; ++i) {
        const Expr *li = tables[firstOfPair(layout, i)].leaf;
        if (li->value != l0->value)
          return failure();
        if (li->indices.size() != l0->indices.size())
          return failure();
        for (auto [d, e] : llvm::enumerate(li->indices)) {
          if (tokenAt == d || batchAt == d) {
            // Every pair reads the row of the same token.
            if (tracer.simplify(e) != tracer.simplify(l0->indices[d]))
              return failure();
            continue;
          }
          std::optional<int64_t> c = tracer.constantOf(e);
          if (!c)
            return failure();
          int64_t at = *c;
          if (at == start[d])
            continue;
          if (channelAt && *channelAt != d)
            return failure();
          if (!channelAt) {
            channelAt = d;
            stride = at - start[d];
            if (stride <= 0)
              return failure();
          }
          if (at != start[d] + i * stride)
            return failure();
        }
      }
      if (!channelAt)
        channelAt = tableType.getRank() - 1;
      if (!tokenAt || *channelAt == *tokenAt || batchAt == *channelAt)
        return failure();
      perToken = batchAt.has_value() && type.getDimSize(0) != 1;
      SmallVector<int64_t> sizes, strides, shape;
      for (unsigned d = 0; d < start.size(); ++d) {
        int64_t size = 1;
        if (d == *channelAt)
          size = half;
        else if (d == *tokenAt || (batchAt && d == *batchAt))
          size = tableType.getDimSize(d) - start[d];
        if (batchAt && d == *batchAt && !perToken)
          size = 1;
        sizes.push_back(size);
        strides.push_back(d == *channelAt ? stride : 1);
        if (size != 1 || d == *channelAt || d == *tokenAt)
          shape.push_back(size);
      }
      if (ShapedType::isDynamic(tableType.getDimSize(*tokenAt)))
        return failure();
      // With per-token tables the row is the token; otherwise the row is
      // the position, token t reading row offset + t.
      offset = start[*tokenAt];
      if (perToken) {
        if (offset != 0)
          return failure();
        // [B, T, h]: the token dimension must be the input's.
        sizes[*tokenAt] = type.getDimSize(*sequenceDim);
        shape = {type.getDimSize(0), type.getDimSize(*sequenceDim), half};
      } else {
        start[*tokenAt] = 0;
        sizes[*tokenAt] = tableType.getDimSize(*tokenAt);
        shape.clear();
        shape = {tableType.getDimSize(*tokenAt), half};
      }
      cache = sliceTable(rewriter, dry, loc, l0->value, start, sizes, strides,
                         shape);
      if (assumedDuplicated)
        return checkDuplicated(rewriter, dry, loc, tables, *channelAt, start,
                               sizes, strides, shape, cache);
      return success();
    };
    bool cosPerToken = false, sinPerToken = false;
    int64_t cosOffset = 0, sinOffset = 0;
    if (failed(cacheOf(cosOf, cosCache, cosPerToken, cosOffset)) ||
        failed(cacheOf(sinOf, sinCache, sinPerToken, sinOffset)) ||
        cosPerToken != sinPerToken || cosOffset != sinOffset ||
        cosCache.getType() != sinCache.getType())
      return rewriter.notifyMatchFailure(loc, "unsupported table indexing");
    staticOffset = cosOffset;
    if (gatherPositions) {
      if (cosPerToken || cosOffset != 0 ||
          failed(positionsFrom(gatherPositions)))
        return rewriter.notifyMatchFailure(loc, "unsupported gather");
    }
  }
  if (!attentionScaling && scaling != 1)
    attentionScaling =
        dry ? root
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getF32FloatAttr(scaling))
                  .getResult();

  if (!sequenceDim) {
    // Positions do not vary along any dimension (one token): take a
    // dimension of extent 1, the default one if it has.
    for (int64_t d = rank - 2; d >= 0; --d)
      if (type.getDimSize(d) == 1) {
        sequenceDim = d;
        break;
      }
    if (!sequenceDim)
      return rewriter.notifyMatchFailure(loc, "no token dimension");
  }
  if (dry)
    return success();
  IntegerAttr rotary = rotaryDim == channels
                           ? IntegerAttr()
                           : rewriter.getI64IntegerAttr(rotaryDim);
  IntegerAttr seq = *sequenceDim == rank - 2
                        ? IntegerAttr()
                        : rewriter.getI64IntegerAttr(*sequenceDim);
  auto rope = RopeOp::create(
      rewriter, loc, type, input, invFreq, cosCache, sinCache, attentionScaling,
      RopeLayoutAttr::get(ctx, layout), rotary, seq, offset, positions,
      staticOffset ? rewriter.getI64IntegerAttr(staticOffset) : IntegerAttr());
  rewriter.replaceAllUsesWith(root, rope.getResult());
  return success();
}
