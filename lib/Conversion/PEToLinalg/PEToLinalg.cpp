//===- PEToLinalg.cpp - lower pe ops to linalg ----------------------------===//
//
// Part of the pe-mlir project.
//
// Each pattern spells out the formula of its op's description (PEOps.td) as
// a linalg.generic on tensors. Values that depend only on attributes
// (sinusoidal frequencies, ALiBi slopes, folded frequency tables) come from
// pe/Support/PEMath.h, the same code the folders use; everything that depends
// on run-time values is computed in the generic bodies:
//
// * angles (position x frequency) and sin/cos of RoPE and the sinusoidal
//   encoding are evaluated in f64, then rounded once;
// * the rest of the arithmetic runs in f32 (f64 for f64 tensors), and the
//   result is rounded once to the element type.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToLinalg/PEToLinalg.h"
#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOLINALG
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// The type the arithmetic of a `elementType` tensor runs in.
Type computeType(Type elementType) {
  if (elementType.isF64())
    return elementType;
  return Float32Type::get(elementType.getContext());
}

Value fconst(OpBuilder &b, Location loc, Type type, double v) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
}

Value iconst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Extends or truncates a float to `to` (no-op when equal).
Value castFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// Converts an index or integer to `index`.
Value toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// Converts an index or signless integer to f64 (signed).
Value toF64(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), v);
}

/// The sizes of `tensor`, as static integers or tensor.dim values.
SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (type.isDynamicDim(i))
      sizes.push_back(tensor::DimOp::create(b, loc, tensor, i).getResult());
    else
      sizes.push_back(b.getIndexAttr(type.getDimSize(i)));
  }
  return sizes;
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value sizeValue(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto v = dyn_cast<Value>(size))
    return v;
  return iconst(b, loc, cast<IntegerAttr>(cast<Attribute>(size)).getInt());
}

SmallVector<utils::IteratorType> parallel(int64_t n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

/// A constant 1-D tensor of f64 values.
Value f64Tensor(OpBuilder &b, Location loc, ArrayRef<double> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getF64Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

/// How a sequence op gets the position of token `t`: from a positions tensor
/// (a generic input, see `positionsMap`) or as `base + t` with `base` the
/// static plus dynamic offset.
struct PositionSource {
  Value positions;          // tensor<[B,] T x iN>, or null
  Value base;               // index, when positions is null
  bool mayOverflow = false; // whether base + t may pass INT64_MAX
  int64_t seqDim = -1;      // the tokens' dimension, -1 for rank - 2
  int64_t tokenDim(int64_t rank) const {
    return seqDim >= 0 ? seqDim : rank - 2;
  }

  static PositionSource get(OpBuilder &b, Location loc, Value positions,
                            Value offset, int64_t staticOffset,
                            int64_t seqLen) {
    PositionSource src;
    src.positions = positions;
    int64_t end;
    src.mayOverflow =
        offset ||
        (staticOffset > 0 && (ShapedType::isDynamic(seqLen) ||
                              llvm::AddOverflow(staticOffset, seqLen, end)));
    if (!positions) {
      src.base = iconst(b, loc, staticOffset);
      if (offset)
        src.base = saturatingAdd(b, loc, src.base, toIndex(b, loc, offset),
                                 /*lhsNonNegative=*/true);
    }
    return src;
  }

  /// `lhs + rhs` where one of them (`lhs` if `lhsNonNegative`, else `rhs`)
  /// is >= 0, saturated at INT64_MAX instead of wrapping to a negative
  /// position (which a table clamp would send to row 0 instead of the last
  /// row). With one term >= 0 the sum overflows only upwards, and exactly
  /// when it is smaller than the other term.
  static Value saturatingAdd(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             bool lhsNonNegative) {
    Value sum = arith::AddIOp::create(b, loc, lhs, rhs);
    Value wrapped = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          sum, lhsNonNegative ? rhs : lhs);
    return arith::SelectOp::create(
        b, loc, wrapped, iconst(b, loc, std::numeric_limits<int64_t>::max()),
        sum);
  }

  /// Indexing map of the positions tensor in a generic over [..., T, C].
  AffineMap positionsMap(MLIRContext *ctx, int64_t rank) const {
    auto posType = cast<RankedTensorType>(positions.getType());
    SmallVector<AffineExpr> exprs;
    if (posType.getRank() == 2)
      exprs.push_back(getAffineDimExpr(0, ctx));
    exprs.push_back(getAffineDimExpr(tokenDim(rank), ctx));
    return AffineMap::get(rank, 0, exprs, ctx);
  }

  /// The position (index) of the current token inside a generic body.
  /// `posArg` is the block argument of the positions input, if any.
  Value position(OpBuilder &b, Location loc, int64_t rank, Value posArg) const {
    if (positions)
      return toIndex(b, loc, posArg);
    // base + t, t >= 0: saturated like the base (base may be negative, from
    // a negative run-time offset, but then base + t cannot overflow).
    Value t = linalg::IndexOp::create(b, loc, tokenDim(rank));
    if (!mayOverflow)
      return arith::AddIOp::create(b, loc, base, t);
    return saturatingAdd(b, loc, base, t, /*lhsNonNegative=*/false);
  }
};

/// Clamps an index into [0, rows).
Value clampRow(OpBuilder &b, Location loc, Value idx, Value rows) {
  Value zero = iconst(b, loc, 0);
  Value last = arith::SubIOp::create(b, loc, rows, iconst(b, loc, 1));
  idx = arith::MaxSIOp::create(b, loc, idx, zero);
  return arith::MinSIOp::create(b, loc, idx, last);
}

/// The elementwise linalg.generic of a sequence op over `input` ([..., T, C])
/// with the same shape: its inputs are `input`, the `extra` tensors (with
/// their indexing maps) and the positions tensor, if `pos` has one. `body`
/// receives the input element, the extra elements and the token's position
/// (an index), and returns the result element.
Value buildSequenceGeneric(
    OpBuilder &rewriter, Location loc, Value input, const PositionSource &pos,
    ArrayRef<std::pair<Value, AffineMap>> extra,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange, Value)> body) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  AffineMap id = rewriter.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {id};
  for (auto [value, map] : extra) {
    inputs.push_back(value);
    maps.push_back(map);
  }
  if (pos.positions) {
    inputs.push_back(pos.positions);
    maps.push_back(pos.positionsMap(rewriter.getContext(), rank));
  }
  maps.push_back(id);
  Value init = emptyTensor(rewriter, loc, getSizes(rewriter, loc, input),
                           type.getElementType());
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
      parallel(rank), [&](OpBuilder &b, Location l, ValueRange args) {
        Value posArg = pos.positions ? args[1 + extra.size()] : Value();
        Value position = pos.position(b, l, rank, posArg);
        linalg::YieldOp::create(
            b, l, body(b, l, args[0], args.slice(1, extra.size()), position));
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// pe.add_sinusoidal
//===----------------------------------------------------------------------===//

struct AddSinusoidalLowering : OpConversionPattern<AddSinusoidalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddSinusoidalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto type = op.getInput().getType();
    int64_t rank = type.getRank();
    int64_t channels = type.getDimSize(rank - 1);
    double base = op.getBase().convertToDouble();
    auto layout = op.getLayout() == SinusoidalLayout::Interleaved
                      ? formula::SinusoidalLayout::Interleaved
                      : formula::SinusoidalLayout::Concat;

    // Per channel: its frequency and whether it is sin (0), cos (1) or the
    // zero padding column (2).
    SmallVector<double> freq, kind;
    for (int64_t c = 0; c < channels; ++c) {
      freq.push_back(formula::sinusoidalFrequency(c, channels, base, layout));
      kind.push_back(formula::sinusoidalIsPad(c, channels, layout)   ? 2.0
                     : formula::sinusoidalIsCos(c, channels, layout) ? 1.0
                                                                     : 0.0);
    }
    Value freqT = f64Tensor(rewriter, loc, freq);
    Value kindT = f64Tensor(rewriter, loc, kind);
    auto pos = PositionSource::get(
        rewriter, loc, adaptor.getPositions(), adaptor.getOffset(),
        static_cast<int64_t>(op.getStaticOffset()), type.getDimSize(rank - 2));

    AffineMap channelMap =
        AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx);
    double inputScale = op.getScaleInput() ? std::sqrt(double(channels)) : 1.0;
    Value result = buildSequenceGeneric(
        rewriter, loc, adaptor.getInput(), pos,
        {{freqT, channelMap}, {kindT, channelMap}},
        [&](OpBuilder &b, Location l, Value in, ValueRange table,
            Value position) -> Value {
          Type f64 = b.getF64Type();
          Value angle =
              arith::MulFOp::create(b, l, toF64(b, l, position), table[0]);
          Value s = math::SinOp::create(b, l, angle);
          Value c = math::CosOp::create(b, l, angle);
          Value isCos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              table[1], fconst(b, l, f64, 1.0));
          Value isPad = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                              table[1], fconst(b, l, f64, 2.0));
          Value pe = arith::SelectOp::create(b, l, isCos, c, s);
          pe = arith::SelectOp::create(b, l, isPad, fconst(b, l, f64, 0.0), pe);
          Value x = castFloat(b, l, in, f64);
          if (inputScale != 1.0)
            x = arith::MulFOp::create(b, l, x, fconst(b, l, f64, inputScale));
          return castFloat(b, l, arith::AddFOp::create(b, l, x, pe),
                           type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.add_learned
//===----------------------------------------------------------------------===//

struct AddLearnedLowering : OpConversionPattern<AddLearnedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddLearnedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getInput().getType();
    int64_t rank = type.getRank();
    Value table = adaptor.getTable();
    Value rows = sizeValue(rewriter, loc, getSizes(rewriter, loc, table)[0]);
    auto pos = PositionSource::get(
        rewriter, loc, adaptor.getPositions(), adaptor.getOffset(),
        static_cast<int64_t>(op.getStaticOffset()), type.getDimSize(rank - 2));
    Type ct = computeType(type.getElementType());
    Value result = buildSequenceGeneric(
        rewriter, loc, adaptor.getInput(), pos, {},
        [&](OpBuilder &b, Location l, Value in, ValueRange,
            Value position) -> Value {
          Value row = clampRow(b, l, position, rows);
          Value col = linalg::IndexOp::create(b, l, rank - 1);
          Value w =
              tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
          Value y = arith::AddFOp::create(b, l, castFloat(b, l, in, ct),
                                          castFloat(b, l, w, ct));
          return castFloat(b, l, y, type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.rope
//===----------------------------------------------------------------------===//

struct RopeLowering : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getInput().getType();
    int64_t rank = type.getRank();
    int64_t headDim = type.getDimSize(rank - 1);
    int64_t rotary = op.getRotaryDimOrHeadDim();
    int64_t pairs = rotary / 2;
    bool half = op.getLayout() == RopeLayout::Half;
    Value input = adaptor.getInput();
    Value invFreq = adaptor.getInvFreq();
    Value cosCache = adaptor.getCosCache(), sinCache = adaptor.getSinCache();
    Value scaling = adaptor.getAttentionScaling();
    Value rows;
    if (cosCache)
      rows = sizeValue(rewriter, loc, getSizes(rewriter, loc, cosCache)[0]);
    int64_t seqDim = op.getSequenceDimOrDefault();
    auto pos = PositionSource::get(
        rewriter, loc, adaptor.getPositions(), adaptor.getOffset(),
        static_cast<int64_t>(op.getStaticOffset()), type.getDimSize(seqDim));
    pos.seqDim = seqDim;
    Type elementType = type.getElementType();
    Type ct = computeType(elementType);

    Value result = buildSequenceGeneric(
        rewriter, loc, input, pos, {},
        [&](OpBuilder &b, Location l, Value in, ValueRange, Value p) -> Value {
          Type f64 = b.getF64Type();
          Value c = linalg::IndexOp::create(b, l, rank - 1);
          // Pair index i, partner channel, and whether c is the first
          // element (a) of its pair (a, b).
          Value i, partner, first;
          if (half) {
            Value p = iconst(b, l, pairs);
            first =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, c, p);
            Value lo = arith::SubIOp::create(b, l, c, p);
            Value hi = arith::AddIOp::create(b, l, c, p);
            i = arith::SelectOp::create(b, l, first, c, lo);
            partner = arith::SelectOp::create(b, l, first, hi, lo);
          } else {
            Value two = iconst(b, l, 2);
            Value rem = arith::RemUIOp::create(b, l, c, two);
            first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, rem,
                                          iconst(b, l, 0));
            i = arith::DivUIOp::create(b, l, c, two);
            partner = arith::SelectOp::create(
                b, l, first, arith::AddIOp::create(b, l, c, iconst(b, l, 1)),
                arith::SubIOp::create(b, l, c, iconst(b, l, 1)));
          }
          Value rotated;
          if (rotary < headDim) {
            // Pass-through channels: keep the reads in bounds.
            rotated = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, c,
                                            iconst(b, l, rotary));
            partner = arith::SelectOp::create(b, l, rotated, partner, c);
            i = arith::SelectOp::create(b, l, rotated, i, iconst(b, l, 0));
          }
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank - 1; ++d)
            idx.push_back(linalg::IndexOp::create(b, l, d));
          idx.push_back(partner);
          Value xp = tensor::ExtractOp::create(b, l, input, idx);

          Value cosV, sinV;
          if (invFreq) {
            Value f = tensor::ExtractOp::create(b, l, invFreq, ValueRange{i});
            Value angle = arith::MulFOp::create(b, l, toF64(b, l, p),
                                                castFloat(b, l, f, f64));
            cosV = castFloat(b, l, math::CosOp::create(b, l, angle), ct);
            sinV = castFloat(b, l, math::SinOp::create(b, l, angle), ct);
          } else if (op.hasPerTokenCaches()) {
            // cos[b, t, i]: the token's own row.
            SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0),
                                     linalg::IndexOp::create(b, l, seqDim), i};
            cosV = castFloat(b, l,
                             tensor::ExtractOp::create(b, l, cosCache, at), ct);
            sinV = castFloat(b, l,
                             tensor::ExtractOp::create(b, l, sinCache, at), ct);
          } else {
            Value row = clampRow(b, l, p, rows);
            cosV = castFloat(
                b, l,
                tensor::ExtractOp::create(b, l, cosCache, ValueRange{row, i}),
                ct);
            sinV = castFloat(
                b, l,
                tensor::ExtractOp::create(b, l, sinCache, ValueRange{row, i}),
                ct);
          }
          if (scaling) {
            Value m = castFloat(b, l, scaling, ct);
            cosV = arith::MulFOp::create(b, l, cosV, m);
            sinV = arith::MulFOp::create(b, l, sinV, m);
          }
          Value x = castFloat(b, l, in, ct);
          Value xpc = castFloat(b, l, xp, ct);
          // a' = a cos - b sin (c is a);  b' = b cos + a sin (c is b).
          Value xc = arith::MulFOp::create(b, l, x, cosV);
          Value ps = arith::MulFOp::create(b, l, xpc, sinV);
          Value y = arith::SelectOp::create(
              b, l, first, arith::SubFOp::create(b, l, xc, ps),
              arith::AddFOp::create(b, l, xc, ps));
          if (rotated)
            y = arith::SelectOp::create(b, l, rotated, y, x);
          return castFloat(b, l, y, elementType);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

/// Replaces a frequency op whose operands are constants by the constants its
/// folder computes (the PEMath formulas).
LogicalResult replaceByFold(Operation *op,
                            ConversionPatternRewriter &rewriter) {
  return foldFrequencyOp(op, rewriter);
}

/// Any frequency op whose operands are constants: its folded table. The ops
/// with a run-time operand (dynamic NTK, LongRoPE) have lowerings of their
/// own below for when the fold does not apply.
struct FoldedFrequencyLowering
    : OpInterfaceConversionPattern<FrequencyOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;
  LogicalResult
  matchAndRewrite(FrequencyOpInterface op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override {
    return replaceByFold(op, rewriter);
  }
};

/// Dynamic NTK with a run-time sequence length:
///   s = max(seq_len, L), base' = base * ((factor s / L) - (factor -
///   1))^(R/(R-2)), inv_freq[i] = 1 / base'^(2i/R), in f64.
struct DynamicNtkLowering : OpConversionPattern<DynamicNtkScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicNtkScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (succeeded(replaceByFold(op, rewriter)))
      return success();
    Location loc = op.getLoc();
    auto type = op.getInvFreq().getType();
    int64_t rotary = op.getRotaryDim();
    double factor = op.getFactor().convertToDouble();
    double maxPos = static_cast<double>(
        static_cast<int64_t>(op.getMaxPositionEmbeddings()));
    Type f64 = rewriter.getF64Type();
    Value seq = toF64(rewriter, loc, adaptor.getSeqLen());
    Value s = arith::MaximumFOp::create(rewriter, loc, seq,
                                        fconst(rewriter, loc, f64, maxPos));
    Value inner = arith::SubFOp::create(
        rewriter, loc,
        arith::MulFOp::create(rewriter, loc, s,
                              fconst(rewriter, loc, f64, factor / maxPos)),
        fconst(rewriter, loc, f64, factor - 1.0));
    Value newBase = arith::MulFOp::create(
        rewriter, loc,
        fconst(rewriter, loc, f64, op.getBase().convertToDouble()),
        math::PowFOp::create(
            rewriter, loc, inner,
            fconst(rewriter, loc, f64, double(rotary) / double(rotary - 2))));
    Value lnBase = math::LogOp::create(rewriter, loc, newBase);
    Value init = emptyTensor(rewriter, loc, {rewriter.getIndexAttr(rotary / 2)},
                             type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        rewriter.getMultiDimIdentityMap(1), parallel(1),
        [&](OpBuilder &b, Location l, ValueRange) {
          Value i = toF64(b, l, linalg::IndexOp::create(b, l, 0));
          Value e =
              arith::MulFOp::create(b, l, i, fconst(b, l, f64, -2.0 / rotary));
          Value v =
              math::ExpOp::create(b, l, arith::MulFOp::create(b, l, e, lnBase));
          linalg::YieldOp::create(b, l,
                                  castFloat(b, l, v, type.getElementType()));
        });
    Value one = fconst(rewriter, loc, rewriter.getF32Type(), 1.0);
    rewriter.replaceOp(op, {generic.getResult(0), one});
    return success();
  }
};

/// LongRoPE with a run-time sequence length: both tables are constants (the
/// folder's values for a short and a long length); seq_len > L selects.
struct LongRopeLowering : OpConversionPattern<LongRopeScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LongRopeScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (succeeded(replaceByFold(op, rewriter)))
      return success();
    Location loc = op.getLoc();
    int64_t original =
        static_cast<int64_t>(op.getOriginalMaxPositionEmbeddings());
    auto constant = [&](OpFoldResult f) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       cast<TypedAttr>(cast<Attribute>(f)));
    };
    SmallVector<Attribute> shortOperands = {rewriter.getIndexAttr(original)};
    SmallVector<OpFoldResult> shortFold, longFold;
    int64_t longLen;
    if (llvm::AddOverflow(original, int64_t(1), longLen)) {
      // L = INT64_MAX: no run-time length exceeds it, the short table is it.
      if (failed(op->fold(shortOperands, shortFold)))
        return rewriter.notifyMatchFailure(op, "cannot evaluate the table");
      rewriter.replaceOp(op, {constant(shortFold[0]), constant(shortFold[1])});
      return success();
    }
    SmallVector<Attribute> longOperands = {rewriter.getIndexAttr(longLen)};
    if (failed(op->fold(shortOperands, shortFold)) ||
        failed(op->fold(longOperands, longFold)))
      return rewriter.notifyMatchFailure(op, "cannot evaluate the tables");
    Value seq = toIndex(rewriter, loc, adaptor.getSeqLen());
    Value isLong =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, seq,
                              iconst(rewriter, loc, original));
    Value inv = arith::SelectOp::create(
        rewriter, loc, isLong, constant(longFold[0]), constant(shortFold[0]));
    Value scaling = arith::SelectOp::create(
        rewriter, loc, isLong, constant(longFold[1]), constant(shortFold[1]));
    rewriter.replaceOp(op, {inv, scaling});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.alibi_bias
//===----------------------------------------------------------------------===//

struct AlibiBiasLowering : OpConversionPattern<AlibiBiasOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AlibiBiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getResult().getType();
    int64_t heads = type.getDimSize(0);
    Value slopes = adaptor.getSlopes();
    if (!slopes)
      slopes = f64Tensor(
          rewriter, loc,
          formula::alibiSlopes(heads, op.getMaxBias().convertToDouble()));
    SmallVector<OpFoldResult> sizes;
    auto dyn = adaptor.getDynamicSizes();
    unsigned next = 0;
    for (int64_t d = 0; d < 3; ++d)
      sizes.push_back(type.isDynamicDim(d)
                          ? OpFoldResult(dyn[next++])
                          : rewriter.getIndexAttr(type.getDimSize(d)));
    Value init = emptyTensor(rewriter, loc, sizes, type.getElementType());
    Value qBase =
        iconst(rewriter, loc, static_cast<int64_t>(op.getStaticOffset()));
    if (Value offset = adaptor.getOffset())
      qBase = arith::AddIOp::create(rewriter, loc, qBase,
                                    toIndex(rewriter, loc, offset));
    MLIRContext *ctx = op.getContext();
    AffineMap headMap = AffineMap::get(3, 0, getAffineDimExpr(0, ctx), ctx);
    AlibiDistance distance = op.getDistance();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{slopes}, ValueRange{init},
        {headMap, rewriter.getMultiDimIdentityMap(3)}, parallel(3),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type f64 = b.getF64Type();
          Value q = toF64(b, l,
                          arith::AddIOp::create(
                              b, l, qBase, linalg::IndexOp::create(b, l, 1)));
          Value k = toF64(b, l, linalg::IndexOp::create(b, l, 2));
          Value dist;
          switch (distance) {
          case AlibiDistance::Symmetric:
            dist = arith::NegFOp::create(
                b, l,
                math::AbsFOp::create(b, l, arith::SubFOp::create(b, l, q, k)));
            break;
          case AlibiDistance::Signed:
            dist = arith::SubFOp::create(b, l, k, q);
            break;
          case AlibiDistance::Key:
            dist = k;
            break;
          }
          Value v =
              arith::MulFOp::create(b, l, castFloat(b, l, args[0], f64), dist);
          linalg::YieldOp::create(b, l,
                                  castFloat(b, l, v, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

/// The unfused composition: S = scale QK^T (+ softcap, bias, masks), a
/// max-subtracted softmax whose fully masked rows give 0, O = P V / sum(P).
struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.hasEncodings())
      return rewriter.notifyMatchFailure(op, "decomposed first");
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto qType = op.getQuery().getType();
    auto kType = op.getKey().getType();
    // Everything below indexes by meaning (batch, head, token, channel);
    // `perm` says where each sits in the operands of this layout (it is its
    // own inverse).
    SmallVector<int64_t> perm = op.getOperandPermutation();
    auto meaningShape = [&](RankedTensorType t) {
      SmallVector<int64_t> r;
      for (int64_t m = 0; m < 4; ++m)
        r.push_back(t.getDimSize(perm[m]));
      return r;
    };
    SmallVector<int64_t> qShape = meaningShape(qType),
                         kShape = meaningShape(kType),
                         vShape = meaningShape(op.getValue().getType());
    int64_t heads = qShape[1], kvHeads = kShape[1];
    if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads))
      return rewriter.notifyMatchFailure(op, "dynamic head counts");
    int64_t group = heads / kvHeads;
    Type elementType = qType.getElementType();
    Type ct = computeType(elementType);
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    auto meaningSizes = [&](Value t) {
      SmallVector<OpFoldResult> s = getSizes(rewriter, loc, t), r;
      for (int64_t m = 0; m < 4; ++m)
        r.push_back(s[perm[m]]);
      return r;
    };
    SmallVector<OpFoldResult> qSizes = meaningSizes(q);
    SmallVector<OpFoldResult> kSizes = meaningSizes(k);
    SmallVector<OpFoldResult> vSizes = meaningSizes(v);
    SmallVector<OpFoldResult> scoreSizes = {qSizes[0], qSizes[1], qSizes[2],
                                            kSizes[2]};
    SmallVector<OpFoldResult> rowSizes = {qSizes[0], qSizes[1], qSizes[2]};
    SmallVector<OpFoldResult> outSizes = {qSizes[0], qSizes[1], qSizes[2],
                                          vSizes[3]};
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    AffineExpr kvHead = group == 1 ? d(1) : d(1).floorDiv(group);
    auto map = [&](unsigned n, ArrayRef<AffineExpr> e) {
      return AffineMap::get(n, 0, e, ctx);
    };
    // The map of an operand given its (batch, head, token, channel) exprs.
    auto operandMap = [&](unsigned n, ArrayRef<AffineExpr> meaning) {
      SmallVector<AffineExpr> e;
      for (int64_t p = 0; p < 4; ++p)
        e.push_back(meaning[perm[p]]);
      return map(n, e);
    };
    auto zeroFilled = [&](ArrayRef<OpFoldResult> sizes, double value) {
      Value empty = emptyTensor(rewriter, loc, sizes, ct);
      return linalg::FillOp::create(
                 rewriter, loc, ValueRange{fconst(rewriter, loc, ct, value)},
                 ValueRange{empty})
          .getResult(0);
    };
    auto scoreType =
        RankedTensorType::get({qShape[0], heads, qShape[2], kShape[2]}, ct);
    auto rowType = RankedTensorType::get({qShape[0], heads, qShape[2]}, ct);
    // The accumulator as the operands give it ([B, H, Tq] of the query, Dv
    // of the value); the results go into the op's destinations.
    auto accType =
        RankedTensorType::get({qShape[0], heads, qShape[2], vShape[3]}, ct);
    // The result's element type: the query's, or f32 for f16/bf16 inputs.
    Type resultElementType = op.getResult().getType().getElementType();
    SmallVector<utils::IteratorType> reduce4 = parallel(5);
    reduce4[4] = utils::IteratorType::reduction;
    SmallVector<utils::IteratorType> reduceRow = parallel(4);
    reduceRow[3] = utils::IteratorType::reduction;

    // 1. Raw scores S[b,h,i,j] = sum_d q[b,h,i,d] k[b,h/g,j,d].
    Value scores =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{scoreType}, ValueRange{q, k},
            ValueRange{zeroFilled(scoreSizes, 0.0)},
            {operandMap(5, {d(0), d(1), d(2), d(4)}),
             operandMap(5, {d(0), kvHead, d(3), d(4)}),
             map(5, {d(0), d(1), d(2), d(3)})},
            reduce4,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value prod =
                  arith::MulFOp::create(b, l, castFloat(b, l, args[0], ct),
                                        castFloat(b, l, args[1], ct));
              linalg::YieldOp::create(
                  b, l, arith::AddFOp::create(b, l, args[2], prod).getResult());
            })
            .getResult(0);

    // 2. Scale, softcap, bias and masks, elementwise over [B, H, Tq, Tk].
    SmallVector<Value> inputs = {scores};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
    auto broadcastMap = [&](Value operand) {
      auto t = cast<RankedTensorType>(operand.getType());
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < t.getRank(); ++i) {
        int64_t scoreDim = 4 - t.getRank() + i;
        exprs.push_back(t.getDimSize(i) == 1 &&
                                scoreType.getDimSize(scoreDim) != 1
                            ? getAffineConstantExpr(0, ctx)
                            : d(scoreDim));
      }
      return map(4, exprs);
    };
    Value bias = adaptor.getBias(), mask = adaptor.getMask();
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(broadcastMap(bias));
    }
    if (mask) {
      inputs.push_back(mask);
      maps.push_back(broadcastMap(mask));
    }
    Value kvLengths = adaptor.getKvLengths();
    if (kvLengths) {
      inputs.push_back(kvLengths);
      maps.push_back(map(4, {d(0)}));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(4));
    Value tkValue = sizeValue(rewriter, loc, kSizes[2]);
    Value tqValue = sizeValue(rewriter, loc, qSizes[2]);
    // The key rules (valid keys, causal shift, window) and the order of the
    // score chain come from the plan that every lowering shares.
    kernels::AttentionPlan plan(op);
    Value causalOffset;
    if (op.getCausal())
      if (Value o = adaptor.getCausalOffset())
        causalOffset = toIndex(rewriter, loc, o);
    // Without kv_lengths every key is valid and o is the same for every
    // batch row: computed once, outside the generic.
    Value uniformShift;
    if (op.getCausal() && !kvLengths)
      uniformShift =
          plan.buildCausalShift(rewriter, loc, tkValue, tqValue, causalOffset);
    double scale = plan.getScale();
    std::optional<double> softcap = plan.getSoftcap();
    Value masked =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{scoreType}, inputs,
            ValueRange{emptyTensor(rewriter, loc, scoreSizes, ct)}, maps,
            parallel(4),
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto cap = [&](Value s) -> Value {
                Value c = fconst(b, l, ct, *softcap);
                Value t = math::TanhOp::create(
                    b, l, arith::DivFOp::create(b, l, s, c));
                return arith::MulFOp::create(b, l, c, t);
              };
              Value s = args[0];
              unsigned next = 1;
              Value allowed;
              for (kernels::ScoreStep step : plan.getScoreChain()) {
                switch (step) {
                case kernels::ScoreStep::Scale:
                  s = arith::MulFOp::create(b, l, s, fconst(b, l, ct, scale));
                  break;
                case kernels::ScoreStep::Softcap:
                  s = cap(s);
                  break;
                case kernels::ScoreStep::Bias:
                  s = arith::AddFOp::create(b, l, s,
                                            castFloat(b, l, args[next++], ct));
                  break;
                case kernels::ScoreStep::Alibi:
                  llvm_unreachable("ALiBi is decomposed into a bias first");
                case kernels::ScoreStep::Mask: {
                  if (mask)
                    allowed = args[next++];
                  if (!kvLengths && !op.getCausal())
                    break;
                  Value i = linalg::IndexOp::create(b, l, 2);
                  Value j = linalg::IndexOp::create(b, l, 3);
                  Value validKeys, shift = uniformShift;
                  if (kvLengths) {
                    validKeys =
                        plan.buildValidKeys(b, l, args[next++], tkValue);
                    if (op.getCausal())
                      shift = plan.buildCausalShift(b, l, validKeys, tqValue,
                                                    causalOffset);
                  }
                  Value ok = plan.buildKeyAllowed(b, l, i, j, shift, validKeys);
                  allowed =
                      allowed ? arith::AndIOp::create(b, l, allowed, ok) : ok;
                  break;
                }
                }
              }
              if (allowed)
                s = arith::SelectOp::create(
                    b, l, allowed, s,
                    fconst(b, l, ct, -std::numeric_limits<double>::infinity()));
              linalg::YieldOp::create(b, l, s);
            })
            .getResult(0);

    // 3. Row maximum (-inf for a fully masked row).
    AffineMap score4 = rewriter.getMultiDimIdentityMap(4);
    AffineMap row4 = map(4, {d(0), d(1), d(2)});
    Value rowMax = linalg::GenericOp::create(
                       rewriter, loc, TypeRange{rowType}, ValueRange{masked},
                       ValueRange{zeroFilled(
                           rowSizes, -std::numeric_limits<double>::infinity())},
                       {score4, row4}, reduceRow,
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         linalg::YieldOp::create(
                             b, l,
                             arith::MaximumFOp::create(b, l, args[0], args[1])
                                 .getResult());
                       })
                       .getResult(0);

    // 4. P = exp(S - max), 0 where the row is fully masked.
    Value probs =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{scoreType}, ValueRange{masked, rowMax},
            ValueRange{emptyTensor(rewriter, loc, scoreSizes, ct)},
            {score4, row4, score4}, parallel(4),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value empty = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ, args[1],
                  fconst(b, l, ct, -std::numeric_limits<double>::infinity()));
              Value e = math::ExpOp::create(
                  b, l, arith::SubFOp::create(b, l, args[0], args[1]));
              linalg::YieldOp::create(
                  b, l,
                  arith::SelectOp::create(b, l, empty, fconst(b, l, ct, 0.0), e)
                      .getResult());
            })
            .getResult(0);

    // 5. Row sums of P.
    Value rowSum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{rowType}, ValueRange{probs},
            ValueRange{zeroFilled(rowSizes, 0.0)}, {score4, row4}, reduceRow,
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l,
                  arith::AddFOp::create(b, l, args[0], args[1]).getResult());
            })
            .getResult(0);

    // 6. O[b,h,i,e] = sum_j P[b,h,i,j] v[b,h/g,j,e] over the keys row i
    // sees: a key whose score is -inf (masked) adds nothing, not 0 * v, so
    // that a NaN or infinity in its value row stays out of the rows that do
    // not see it.
    Value weighted =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accType}, ValueRange{probs, masked, v},
            ValueRange{zeroFilled(outSizes, 0.0)},
            {map(5, {d(0), d(1), d(2), d(4)}), map(5, {d(0), d(1), d(2), d(4)}),
             operandMap(5, {d(0), kvHead, d(4), d(3)}),
             map(5, {d(0), d(1), d(2), d(3)})},
            reduce4,
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value prod = arith::MulFOp::create(b, l, args[0],
                                                 castFloat(b, l, args[2], ct));
              Value unseen = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ, args[1],
                  fconst(b, l, ct, -std::numeric_limits<double>::infinity()));
              Value sum = arith::AddFOp::create(b, l, args[3], prod);
              linalg::YieldOp::create(
                  b, l,
                  arith::SelectOp::create(b, l, unseen, args[3], sum)
                      .getResult());
            })
            .getResult(0);

    // 7. Normalize (0 for fully masked rows) and round to the result's
    // element type, into the op's destination.
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{adaptor.getOuts().front().getType()},
            ValueRange{weighted, rowSum}, ValueRange{adaptor.getOuts().front()},
            {score4, row4, operandMap(4, {d(0), d(1), d(2), d(3)})},
            parallel(4),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value zero = fconst(b, l, ct, 0.0);
              Value empty = arith::CmpFOp::create(
                  b, l, arith::CmpFPredicate::OEQ, args[1], zero);
              Value o = arith::DivFOp::create(b, l, args[0], args[1]);
              o = arith::SelectOp::create(b, l, empty, zero, o);
              linalg::YieldOp::create(b, l,
                                      castFloat(b, l, o, resultElementType));
            })
            .getResult(0);
    SmallVector<Value> results = {result};
    if (op.getLse()) {
      // 8. lse = max + log(sum): -inf + log(0) = -inf for empty rows.
      AffineMap rows3 = rewriter.getMultiDimIdentityMap(3);
      Value lse =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{adaptor.getOuts()[1].getType()},
              ValueRange{rowMax, rowSum}, ValueRange{adaptor.getOuts()[1]},
              {rows3, rows3, rows3}, parallel(3),
              [&](OpBuilder &b, Location l, ValueRange args) {
                Value log = math::LogOp::create(b, l, args[1]);
                linalg::YieldOp::create(
                    b, l,
                    arith::AddFOp::create(b, l, args[0], log).getResult());
              })
              .getResult(0);
      results.push_back(lse);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.attention with encodings
//===----------------------------------------------------------------------===//

/// Rebuilds the separate ops that define an attention's encodings (its
/// description, AttentionOp::decomposeOperation): pe.rope on Q (and K),
/// pe.alibi_bias, and an encoding-free pe.attention, which the patterns above
/// then lower.
struct AttentionEncodingDecomposition : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.hasEncodings())
      return rewriter.notifyMatchFailure(op, "no encodings");
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
    if (failed(values))
      return failure();
    rewriter.replaceOp(op, *values);
    return success();
  }
};

} // namespace

void mlir::pe::populatePEToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<AddSinusoidalLowering, AddLearnedLowering, RopeLowering,
           AlibiBiasLowering, AttentionLowering, AttentionEncodingDecomposition,
           DynamicNtkLowering, LongRopeLowering, FoldedFrequencyLowering>(ctx);
}

namespace {
struct ConvertPEToLinalgPass
    : public pe::impl::ConvertPEToLinalgBase<ConvertPEToLinalgPass> {
  void runOnOperation() override {
    // Report what no pattern can lower once, with the reason, instead of the
    // generic "failed to legalize" of the conversion driver.
    WalkResult unsupported = getOperation()->walk([](AttentionOp op) {
      auto q = op.getQuery().getType(), k = op.getKey().getType();
      if (q.isDynamicDim(op.getHeadsAxis()) ||
          k.isDynamicDim(op.getHeadsAxis())) {
        op->emitOpError("lowering needs static head counts, got ")
            << q << " and " << k;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    // f32 tables that only feed rope angles become f64 first: those angles
    // use the frequency op's exact value (PEOps.td), which the folders and
    // the run-time lowerings below then produce.
    if (failed(widenRopeFrequencies(getOperation())))
      return signalPassFailure();
    ConversionTarget target(getContext());
    target.addIllegalDialect<PEDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populatePEToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
