//===- LinalgLowering.h - shared parts of convert-pe-to-linalg --*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The helpers and the patterns of the reference lowering, one file per op
// family: SequenceLowering.cpp (pe.add_sinusoidal, pe.add_learned,
// pe.alibi_bias), RopeLowering.cpp (pe.rope and the frequency ops),
// AttentionLowering.cpp (pe.attention) and LoweringUtils.cpp (the helpers
// below). PEToLinalg.cpp holds the pass and the populate function. Private
// to lib/Conversion/PEToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CONVERSION_PETOLINALG_LINALGLOWERING_H
#define PE_LIB_CONVERSION_PETOLINALG_LINALGLOWERING_H

#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace pe {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The type the arithmetic of a `elementType` tensor runs in.
Type computeType(Type elementType);

Value fconst(OpBuilder &b, Location loc, Type type, double v);

Value iconst(OpBuilder &b, Location loc, int64_t v);

/// Extends or truncates a float to `to` (no-op when equal).
Value castFloat(OpBuilder &b, Location loc, Value v, Type to);

/// Converts an index or integer to `index`.
Value toIndex(OpBuilder &b, Location loc, Value v);

/// Converts an index or signless integer to f64 (signed).
Value toF64(OpBuilder &b, Location loc, Value v);

/// The sizes of `tensor`, as static integers or tensor.dim values.
SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value tensor);

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType);

Value sizeValue(OpBuilder &b, Location loc, OpFoldResult size);

SmallVector<utils::IteratorType> parallel(int64_t n);

/// A constant 1-D tensor of f64 values.
Value f64Tensor(OpBuilder &b, Location loc, ArrayRef<double> values);

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
Value clampRow(OpBuilder &b, Location loc, Value idx, Value rows);

/// The elementwise linalg.generic of a sequence op over `input` ([..., T, C])
/// with the same shape: its inputs are `input`, the `extra` tensors (with
/// their indexing maps) and the positions tensor, if `pos` has one. `body`
/// receives the input element, the extra elements and the token's position
/// (an index), and returns the result element.
Value buildSequenceGeneric(
    OpBuilder &rewriter, Location loc, Value input, const PositionSource &pos,
    ArrayRef<std::pair<Value, AffineMap>> extra,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange, Value)> body);

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct AddSinusoidalLowering : OpConversionPattern<AddSinusoidalOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddSinusoidalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

struct AddLearnedLowering : OpConversionPattern<AddLearnedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AddLearnedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

struct AlibiBiasLowering : OpConversionPattern<AlibiBiasOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AlibiBiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

struct RopeLowering : OpConversionPattern<RopeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RopeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// Any frequency op whose operands are constants: its folded table. The ops
/// with a run-time operand (dynamic NTK, LongRoPE) have lowerings of their
/// own, declared below, for when the fold does not apply.
struct FoldedFrequencyLowering
    : OpInterfaceConversionPattern<FrequencyOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;
  LogicalResult
  matchAndRewrite(FrequencyOpInterface op, ArrayRef<Value>,
                  ConversionPatternRewriter &rewriter) const override;
};

/// Dynamic NTK with a run-time sequence length:
///   s = max(seq_len, L), base' = base * ((factor s / L) - (factor -
///   1))^(R/(R-2)), inv_freq[i] = 1 / base'^(2i/R), in f64.
struct DynamicNtkLowering : OpConversionPattern<DynamicNtkScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DynamicNtkScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// LongRoPE with a run-time sequence length: both tables are constants (the
/// folder's values for a short and a long length); seq_len > L selects.
struct LongRopeLowering : OpConversionPattern<LongRopeScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LongRopeScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// The unfused composition: S = scale QK^T (+ softcap, bias, masks), a
/// max-subtracted softmax whose fully masked rows give 0, O = P V / sum(P).
struct AttentionLowering : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

/// Rebuilds the separate ops that define an attention's encodings (its
/// description, AttentionOp::decomposeOperation): pe.rope on Q (and K),
/// pe.alibi_bias, and an encoding-free pe.attention, which the other
/// patterns then lower.
struct AttentionEncodingDecomposition : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override;
};

} // namespace linalg_lowering
} // namespace pe
} // namespace mlir

#endif // PE_LIB_CONVERSION_PETOLINALG_LINALGLOWERING_H
