//===- RopeLowering.cpp - rope and frequency ops to linalg ----------------===//
//
// Part of the pe-mlir project.
//
// pe.rope as a linalg.generic, and the frequency ops: folded to constant
// tables, or computed at run time when their sequence length is not known.
//
//===----------------------------------------------------------------------===//

#include "LinalgLowering.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::pe;

namespace mlir {
namespace pe {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// pe.rope
//===----------------------------------------------------------------------===//

LogicalResult
RopeLowering::matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                              ConversionPatternRewriter &rewriter) const {
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
          first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, c, p);
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
          cosV = castFloat(b, l, tensor::ExtractOp::create(b, l, cosCache, at),
                           ct);
          sinV = castFloat(b, l, tensor::ExtractOp::create(b, l, sinCache, at),
                           ct);
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
        Value y = arith::SelectOp::create(b, l, first,
                                          arith::SubFOp::create(b, l, xc, ps),
                                          arith::AddFOp::create(b, l, xc, ps));
        if (rotated)
          y = arith::SelectOp::create(b, l, rotated, y, x);
        return castFloat(b, l, y, elementType);
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

/// Replaces a frequency op whose operands are constants by the constants its
/// folder computes (the PEMath formulas).
static LogicalResult replaceByFold(Operation *op,
                                   ConversionPatternRewriter &rewriter) {
  return foldFrequencyOp(op, rewriter);
}

LogicalResult FoldedFrequencyLowering::matchAndRewrite(
    FrequencyOpInterface op, ArrayRef<Value>,
    ConversionPatternRewriter &rewriter) const {
  return replaceByFold(op, rewriter);
}

LogicalResult
DynamicNtkLowering::matchAndRewrite(DynamicNtkScaleOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &rewriter) const {
  if (succeeded(replaceByFold(op, rewriter)))
    return success();
  Location loc = op.getLoc();
  auto type = op.getInvFreq().getType();
  int64_t rotary = op.getRotaryDim();
  double factor = op.getFactor().convertToDouble();
  double maxPos =
      static_cast<double>(static_cast<int64_t>(op.getMaxPositionEmbeddings()));
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
      rewriter, loc, fconst(rewriter, loc, f64, op.getBase().convertToDouble()),
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

LogicalResult
LongRopeLowering::matchAndRewrite(LongRopeScaleOp op, OpAdaptor adaptor,
                                  ConversionPatternRewriter &rewriter) const {
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
  Value isLong = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                       seq, iconst(rewriter, loc, original));
  Value inv = arith::SelectOp::create(
      rewriter, loc, isLong, constant(longFold[0]), constant(shortFold[0]));
  Value scaling = arith::SelectOp::create(
      rewriter, loc, isLong, constant(longFold[1]), constant(shortFold[1]));
  rewriter.replaceOp(op, {inv, scaling});
  return success();
}

} // namespace linalg_lowering
} // namespace pe
} // namespace mlir
