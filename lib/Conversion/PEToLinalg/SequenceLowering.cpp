//===- SequenceLowering.cpp - sinusoidal, learned and ALiBi to linalg -----===//
//
// Part of the pe-mlir project.
//
// pe.add_sinusoidal, pe.add_learned and pe.alibi_bias as linalg.generic ops
// (see PEToLinalg.cpp for the precision rules).
//
//===----------------------------------------------------------------------===//

#include "LinalgLowering.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;

namespace mlir {
namespace pe {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// pe.add_sinusoidal
//===----------------------------------------------------------------------===//

LogicalResult AddSinusoidalLowering::matchAndRewrite(
    AddSinusoidalOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
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

//===----------------------------------------------------------------------===//
// pe.add_learned
//===----------------------------------------------------------------------===//

LogicalResult
AddLearnedLowering::matchAndRewrite(AddLearnedOp op, OpAdaptor adaptor,
                                    ConversionPatternRewriter &rewriter) const {
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
        Value w = tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
        Value y = arith::AddFOp::create(b, l, castFloat(b, l, in, ct),
                                        castFloat(b, l, w, ct));
        return castFloat(b, l, y, type.getElementType());
      });
  rewriter.replaceOp(op, result);
  return success();
}

//===----------------------------------------------------------------------===//
// pe.alibi_bias
//===----------------------------------------------------------------------===//

LogicalResult
AlibiBiasLowering::matchAndRewrite(AlibiBiasOp op, OpAdaptor adaptor,
                                   ConversionPatternRewriter &rewriter) const {
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

} // namespace linalg_lowering
} // namespace pe
} // namespace mlir
