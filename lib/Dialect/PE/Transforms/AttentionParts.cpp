//===- AttentionParts.cpp - the pieces of a (fused) attention -------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/AttentionParts.h"

using namespace mlir;
using namespace mlir::pe;

static std::optional<double> toDouble(std::optional<APFloat> v) {
  if (!v)
    return std::nullopt;
  return v->convertToDouble();
}

AttentionParts AttentionParts::get(AttentionOp op) {
  AttentionParts p;
  p.query = op.getQuery();
  p.key = op.getKey();
  p.value = op.getValue();
  p.bias = op.getBias();
  p.mask = op.getMask();
  p.scale = toDouble(op.getScale());
  p.softcap = toDouble(op.getSoftcap());
  p.causal = op.getCausal();
  p.softcapOrder = op.getSoftcapOrder();
  p.resultType = op.getResult().getType();
  return p;
}

AttentionParts AttentionParts::get(FusedAttentionOp op) {
  AttentionParts p;
  p.query = op.getQuery();
  p.key = op.getKey();
  p.value = op.getValue();
  p.ropeLayout = op.getRopeLayout();
  if (auto r = op.getRotaryDim())
    p.rotaryDim = static_cast<int64_t>(*r);
  p.invFreq = op.getInvFreq();
  p.cosCache = op.getCosCache();
  p.sinCache = op.getSinCache();
  p.attentionScaling = op.getAttentionScaling();
  p.ropeKey = op.getRopeKey();
  p.qOffset = op.getQOffset();
  p.kOffset = op.getKOffset();
  p.qStaticOffset = static_cast<int64_t>(op.getQStaticOffset());
  p.kStaticOffset = static_cast<int64_t>(op.getKStaticOffset());
  p.alibi = op.getAlibi();
  p.alibiMaxBias = op.getAlibiMaxBias().convertToDouble();
  p.alibiOffset = op.getAlibiOffset();
  p.alibiStaticOffset = static_cast<int64_t>(op.getAlibiStaticOffset());
  p.scale = toDouble(op.getScale());
  p.softcap = toDouble(op.getSoftcap());
  p.causal = op.getCausal();
  p.softcapOrder = op.getSoftcapOrder();
  p.resultType = op.getResult().getType();
  return p;
}

std::optional<AttentionParts> AttentionParts::get(Operation *op) {
  if (auto a = dyn_cast<AttentionOp>(op))
    return get(a);
  if (auto f = dyn_cast<FusedAttentionOp>(op))
    return get(f);
  return std::nullopt;
}

void AttentionParts::setQueryRope(RopeOp rope) {
  ropeLayout = rope.getLayout();
  rotaryDim.reset();
  if (auto r = rope.getRotaryDim())
    rotaryDim = static_cast<int64_t>(*r);
  invFreq = rope.getInvFreq();
  cosCache = rope.getCosCache();
  sinCache = rope.getSinCache();
  attentionScaling = rope.getAttentionScaling();
  qOffset = rope.getOffset();
  qStaticOffset = static_cast<int64_t>(rope.getStaticOffset());
}

FusedAttentionOp AttentionParts::buildFused(OpBuilder &b, Location loc) const {
  assert(!bias && !mask && "a fused attention has no bias or mask operand");
  auto f64 = [&](std::optional<double> v) -> FloatAttr {
    return v ? b.getF64FloatAttr(*v) : FloatAttr();
  };
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  return FusedAttentionOp::create(
      b, loc, resultType, query, key, value, invFreq, cosCache, sinCache,
      attentionScaling, qOffset, kOffset, alibiOffset,
      ropeLayout ? RopeLayoutAttr::get(b.getContext(), *ropeLayout)
                 : RopeLayoutAttr(),
      rotaryDim ? i64(*rotaryDim) : IntegerAttr(),
      ropeKey ? b.getUnitAttr() : UnitAttr(), i64(qStaticOffset),
      i64(kStaticOffset),
      alibi ? AlibiDistanceAttr::get(b.getContext(), *alibi)
            : AlibiDistanceAttr(),
      b.getF64FloatAttr(alibiMaxBias), i64(alibiStaticOffset), f64(scale),
      causal ? b.getUnitAttr() : UnitAttr(), f64(softcap),
      SoftcapOrderAttr::get(b.getContext(), softcapOrder));
}
