//===- AttentionLowering.cpp - pe.attention to linalg ---------------------===//
//
// Part of the pe-mlir project.
//
// The unfused reference composition of pe.attention, and the decomposition
// of an attention with encodings into pe.rope, pe.alibi_bias and an
// encoding-free attention.
//
//===----------------------------------------------------------------------===//

#include "LinalgLowering.h"
#include "pe/Conversion/Kernels/AttentionPlan.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::pe;

namespace mlir {
namespace pe {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

namespace {

/// The unfused composition of one encoding-free pe.attention, built step by
/// step. Everything indexes by meaning (batch, head, token, channel); `perm`
/// says where each sits in the operands of this layout (it is its own
/// inverse).
class UnfusedAttention {
public:
  UnfusedAttention(AttentionOp op, AttentionOp::Adaptor adaptor,
                   ConversionPatternRewriter &rewriter);

  /// 1. Raw scores S[b,h,i,j] = sum_d q[b,h,i,d] k[b,h/g,j,d].
  Value buildScores();
  /// 2. Scale, softcap, bias and masks, elementwise over [B, H, Tq, Tk].
  Value buildMaskedScores(Value scores);
  /// 3. Row maximum (-inf for a fully masked row).
  Value buildRowMax(Value masked);
  /// 4. P = exp(S - max), 0 where the row is fully masked.
  Value buildProbs(Value masked, Value rowMax);
  /// 5. Row sums of P.
  Value buildRowSum(Value probs);
  /// 6. O[b,h,i,e] = sum_j P[b,h,i,j] v[b,h/g,j,e] over the keys row i
  /// sees: a key whose score is -inf (masked) adds nothing, not 0 * v, so
  /// that a NaN or infinity in its value row stays out of the rows that do
  /// not see it.
  Value buildWeighted(Value probs, Value masked);
  /// 7. Normalize (0 for fully masked rows) and round to the result's
  /// element type, into the op's destination.
  Value buildResult(Value weighted, Value rowSum);
  /// 8. lse = max + log(sum): -inf + log(0) = -inf for empty rows.
  Value buildLse(Value rowMax, Value rowSum);

private:
  AffineExpr d(unsigned i) const { return getAffineDimExpr(i, ctx); }
  AffineMap map(unsigned n, ArrayRef<AffineExpr> e) const {
    return AffineMap::get(n, 0, e, ctx);
  }
  /// The map of an operand given its (batch, head, token, channel) exprs.
  AffineMap operandMap(unsigned n, ArrayRef<AffineExpr> meaning) const {
    SmallVector<AffineExpr> e;
    for (int64_t p = 0; p < 4; ++p)
      e.push_back(meaning[perm[p]]);
    return map(n, e);
  }
  /// The map of a bias or mask operand, broadcast over its unit dims.
  AffineMap broadcastMap(Value operand) const {
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
  }
  Value zeroFilled(ArrayRef<OpFoldResult> sizes, double value) {
    Value empty = emptyTensor(rewriter, loc, sizes, ct);
    return linalg::FillOp::create(rewriter, loc,
                                  ValueRange{fconst(rewriter, loc, ct, value)},
                                  ValueRange{empty})
        .getResult(0);
  }
  SmallVector<OpFoldResult> meaningSizes(Value t) {
    SmallVector<OpFoldResult> s = getSizes(rewriter, loc, t), r;
    for (int64_t m = 0; m < 4; ++m)
      r.push_back(s[perm[m]]);
    return r;
  }

  AttentionOp op;
  AttentionOp::Adaptor adaptor;
  ConversionPatternRewriter &rewriter;
  Location loc;
  MLIRContext *ctx;
  SmallVector<int64_t> perm;
  Type ct;
  Value q, k, v;
  SmallVector<OpFoldResult> qSizes, kSizes, vSizes;
  SmallVector<OpFoldResult> scoreSizes, rowSizes, outSizes;
  AffineExpr kvHead;
  RankedTensorType scoreType, rowType, accType;
  // The result's element type: the query's, or f32 for f16/bf16 inputs.
  Type resultElementType;
  SmallVector<utils::IteratorType> reduce4, reduceRow;
  AffineMap score4, row4;
};

UnfusedAttention::UnfusedAttention(AttentionOp op, AttentionOp::Adaptor adaptor,
                                   ConversionPatternRewriter &rewriter)
    : op(op), adaptor(adaptor), rewriter(rewriter), loc(op.getLoc()),
      ctx(op.getContext()), perm(op.getOperandPermutation()) {
  auto meaningShape = [&](RankedTensorType t) {
    SmallVector<int64_t> r;
    for (int64_t m = 0; m < 4; ++m)
      r.push_back(t.getDimSize(perm[m]));
    return r;
  };
  SmallVector<int64_t> qShape = meaningShape(op.getQuery().getType()),
                       kShape = meaningShape(op.getKey().getType()),
                       vShape = meaningShape(op.getValue().getType());
  int64_t heads = qShape[1], kvHeads = kShape[1];
  int64_t group = heads / kvHeads;
  ct = computeType(op.getQuery().getType().getElementType());
  q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
  qSizes = meaningSizes(q);
  kSizes = meaningSizes(k);
  vSizes = meaningSizes(v);
  scoreSizes = {qSizes[0], qSizes[1], qSizes[2], kSizes[2]};
  rowSizes = {qSizes[0], qSizes[1], qSizes[2]};
  outSizes = {qSizes[0], qSizes[1], qSizes[2], vSizes[3]};
  kvHead = group == 1 ? d(1) : d(1).floorDiv(group);
  scoreType =
      RankedTensorType::get({qShape[0], heads, qShape[2], kShape[2]}, ct);
  rowType = RankedTensorType::get({qShape[0], heads, qShape[2]}, ct);
  // The accumulator as the operands give it ([B, H, Tq] of the query, Dv
  // of the value); the results go into the op's destinations.
  accType = RankedTensorType::get({qShape[0], heads, qShape[2], vShape[3]}, ct);
  resultElementType = op.getResult().getType().getElementType();
  reduce4 = parallel(5);
  reduce4[4] = utils::IteratorType::reduction;
  reduceRow = parallel(4);
  reduceRow[3] = utils::IteratorType::reduction;
  score4 = rewriter.getMultiDimIdentityMap(4);
  row4 = map(4, {d(0), d(1), d(2)});
}

Value UnfusedAttention::buildScores() {
  return linalg::GenericOp::create(
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
                   b, l,
                   arith::AddFOp::create(b, l, args[2], prod).getResult());
             })
      .getResult(0);
}

Value UnfusedAttention::buildMaskedScores(Value scores) {
  SmallVector<Value> inputs = {scores};
  SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
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
  return linalg::GenericOp::create(
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
                   Value ok =
                       plan.buildKeyAllowed(b, l, i, j, shift, validKeys);
                   allowed =
                       allowed ? arith::AndIOp::create(b, l, allowed, ok) : ok;
                   break;
                 }
                 }
               }
               if (allowed)
                 s = arith::SelectOp::create(
                     b, l, allowed, s,
                     fconst(b, l, ct,
                            -std::numeric_limits<double>::infinity()));
               linalg::YieldOp::create(b, l, s);
             })
      .getResult(0);
}

Value UnfusedAttention::buildRowMax(Value masked) {
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{rowType}, ValueRange{masked},
             ValueRange{zeroFilled(rowSizes,
                                   -std::numeric_limits<double>::infinity())},
             {score4, row4}, reduceRow,
             [&](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   b, l,
                   arith::MaximumFOp::create(b, l, args[0], args[1])
                       .getResult());
             })
      .getResult(0);
}

Value UnfusedAttention::buildProbs(Value masked, Value rowMax) {
  return linalg::GenericOp::create(
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
                   arith::SelectOp::create(b, l, empty, fconst(b, l, ct, 0.0),
                                           e)
                       .getResult());
             })
      .getResult(0);
}

Value UnfusedAttention::buildRowSum(Value probs) {
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{rowType}, ValueRange{probs},
             ValueRange{zeroFilled(rowSizes, 0.0)}, {score4, row4}, reduceRow,
             [&](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   b, l,
                   arith::AddFOp::create(b, l, args[0], args[1]).getResult());
             })
      .getResult(0);
}

Value UnfusedAttention::buildWeighted(Value probs, Value masked) {
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{accType}, ValueRange{probs, masked, v},
             ValueRange{zeroFilled(outSizes, 0.0)},
             {map(5, {d(0), d(1), d(2), d(4)}),
              map(5, {d(0), d(1), d(2), d(4)}),
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
}

Value UnfusedAttention::buildResult(Value weighted, Value rowSum) {
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{adaptor.getOuts().front().getType()},
             ValueRange{weighted, rowSum},
             ValueRange{adaptor.getOuts().front()},
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
}

Value UnfusedAttention::buildLse(Value rowMax, Value rowSum) {
  AffineMap rows3 = rewriter.getMultiDimIdentityMap(3);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{adaptor.getOuts()[1].getType()},
             ValueRange{rowMax, rowSum}, ValueRange{adaptor.getOuts()[1]},
             {rows3, rows3, rows3}, parallel(3),
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value log = math::LogOp::create(b, l, args[1]);
               linalg::YieldOp::create(
                   b, l, arith::AddFOp::create(b, l, args[0], log).getResult());
             })
      .getResult(0);
}

} // namespace

LogicalResult
AttentionLowering::matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                                   ConversionPatternRewriter &rewriter) const {
  if (op.hasEncodings())
    return rewriter.notifyMatchFailure(op, "decomposed first");
  SmallVector<int64_t> perm = op.getOperandPermutation();
  int64_t heads = op.getQuery().getType().getDimSize(perm[1]);
  int64_t kvHeads = op.getKey().getType().getDimSize(perm[1]);
  if (ShapedType::isDynamic(heads) || ShapedType::isDynamic(kvHeads))
    return rewriter.notifyMatchFailure(op, "dynamic head counts");
  UnfusedAttention attention(op, adaptor, rewriter);
  Value scores = attention.buildScores();
  Value masked = attention.buildMaskedScores(scores);
  Value rowMax = attention.buildRowMax(masked);
  Value probs = attention.buildProbs(masked, rowMax);
  Value rowSum = attention.buildRowSum(probs);
  Value weighted = attention.buildWeighted(probs, masked);
  SmallVector<Value> results = {attention.buildResult(weighted, rowSum)};
  if (op.getLse())
    results.push_back(attention.buildLse(rowMax, rowSum));
  rewriter.replaceOp(op, results);
  return success();
}

//===----------------------------------------------------------------------===//
// pe.attention with encodings
//===----------------------------------------------------------------------===//

LogicalResult AttentionEncodingDecomposition::matchAndRewrite(
    AttentionOp op, OpAdaptor adaptor,
    ConversionPatternRewriter &rewriter) const {
  if (!op.hasEncodings())
    return rewriter.notifyMatchFailure(op, "no encodings");
  FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
  if (failed(values))
    return failure();
  rewriter.replaceOp(op, *values);
  return success();
}

} // namespace linalg_lowering
} // namespace pe
} // namespace mlir
