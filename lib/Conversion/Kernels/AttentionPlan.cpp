//===- AttentionPlan.cpp - pe.attention's rules, stated once --------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/Kernels/AttentionPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::kernels;

AttentionPlan::AttentionPlan(AttentionOp op)
    : op(op), layout(op.getLayout()), headsAxis(op.getHeadsAxis()),
      sequenceAxis(op.getSequenceAxis()), causal(op.getCausal()),
      alignment(op.getCausalAlignment()), scale(op.getScaleOrDefault()),
      capBeforeBias(op.getSoftcapOrder() == SoftcapOrder::BeforeBias),
      kvLengths(static_cast<bool>(op.getKvLengths())),
      alibi(static_cast<bool>(op.getAlibiAttr())),
      bias(static_cast<bool>(op.getBias())) {
  if (std::optional<uint64_t> w = op.getWindow())
    window = static_cast<int64_t>(*w);
  if (auto c = op.getSoftcap())
    softcap = c->convertToDouble();
  int64_t heads = op.getQuery().getType().getDimSize(headsAxis);
  int64_t kvHeads = op.getKey().getType().getDimSize(headsAxis);
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads) &&
      kvHeads > 0)
    groupSize = heads / kvHeads;
}

SmallVector<ScoreStep> AttentionPlan::getScoreChain() const {
  SmallVector<ScoreStep> chain = {ScoreStep::Scale};
  if (softcap && capBeforeBias)
    chain.push_back(ScoreStep::Softcap);
  if (alibi)
    chain.push_back(ScoreStep::Alibi);
  if (bias)
    chain.push_back(ScoreStep::Bias);
  if (softcap && !capBeforeBias)
    chain.push_back(ScoreStep::Softcap);
  chain.push_back(ScoreStep::Mask);
  return chain;
}

Value AttentionPlan::buildValidKeys(OpBuilder &b, Location loc, Value rawLength,
                                    Value tk) const {
  if (!rawLength)
    return tk;
  Type i64 = b.getI64Type();
  Value len = rawLength;
  if (len.getType().isIndex())
    len = arith::IndexCastOp::create(b, loc, i64, len);
  else if (len.getType().getIntOrFloatBitWidth() < 64)
    len = arith::ExtSIOp::create(b, loc, i64, len);
  Value tk64 = arith::IndexCastOp::create(b, loc, i64, tk);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value clamped = arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, len, zero), tk64);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped);
}

Value AttentionPlan::buildCausalShift(OpBuilder &b, Location loc,
                                      Value validKeys, Value tq,
                                      Value causalOffset) const {
  Value shift;
  if (alignment == CausalAlignment::BottomRight)
    shift = arith::SubIOp::create(b, loc, validKeys, tq);
  if (!causalOffset)
    return shift ? shift : arith::ConstantIndexOp::create(b, loc, 0);
  return shift ? arith::AddIOp::create(b, loc, shift, causalOffset)
               : causalOffset;
}

Value AttentionPlan::buildCausalLimit(OpBuilder &b, Location loc, Value i,
                                      Value shift) const {
  if (!causal)
    return Value();
  return arith::AddIOp::create(b, loc, i, shift);
}

Value AttentionPlan::buildKeyAllowedAtLimit(OpBuilder &b, Location loc, Value j,
                                            Value limit,
                                            Value validKeys) const {
  Value allowed;
  auto both = [&](Value ok) {
    allowed = allowed ? arith::AndIOp::create(b, loc, allowed, ok) : ok;
  };
  if (validKeys)
    both(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j, validKeys));
  if (causal) {
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, j, limit));
    if (window) {
      Value w = arith::ConstantIndexOp::create(b, loc, *window);
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j,
                                 arith::SubIOp::create(b, loc, limit, w)));
    }
  }
  if (!allowed)
    allowed = arith::ConstantIntOp::create(b, loc, 1, 1);
  return allowed;
}

Value AttentionPlan::buildKeyAllowed(OpBuilder &b, Location loc, Value i,
                                     Value j, Value shift,
                                     Value validKeys) const {
  return buildKeyAllowedAtLimit(b, loc, j, buildCausalLimit(b, loc, i, shift),
                                validKeys);
}

std::pair<Value, Value> AttentionPlan::buildKeyRange(OpBuilder &b, Location loc,
                                                     Value firstToken,
                                                     Value lastToken,
                                                     Value shift,
                                                     Value validKeys) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value hi = validKeys, lo = zero;
  if (!causal)
    return {lo, hi};
  // The last token's causal limit bounds the range from above, the first
  // token's window start from below.
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value end = arith::AddIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lastToken, shift), one);
  hi = arith::MaxSIOp::create(b, loc, zero,
                              arith::MinSIOp::create(b, loc, validKeys, end));
  if (window) {
    Value start = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, firstToken, shift),
        arith::ConstantIndexOp::create(b, loc, 1 - *window));
    lo = arith::MinSIOp::create(b, loc, hi,
                                arith::MaxSIOp::create(b, loc, zero, start));
  }
  return {lo, hi};
}

std::pair<Value, Value>
AttentionPlan::buildKeyTileRange(OpBuilder &b, Location loc, Value firstToken,
                                 Value lastToken, Value shift, Value validKeys,
                                 int64_t tileSize) const {
  auto [lo, hi] =
      buildKeyRange(b, loc, firstToken, lastToken, shift, validKeys);
  Value size = arith::ConstantIndexOp::create(b, loc, tileSize);
  // end = ceil(hi / size), begin = floor(lo / size); lo <= hi and both are
  // >= 0, so unsigned division is exact. An empty range gives no tile.
  Value end = arith::CeilDivUIOp::create(b, loc, hi, size);
  if (!causal || !window)
    return {arith::ConstantIndexOp::create(b, loc, 0), end};
  Value begin = arith::DivUIOp::create(b, loc, lo, size);
  Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lo, hi);
  return {arith::SelectOp::create(b, loc, empty, end, begin), end};
}
