//===- PEFrequencyOps.cpp - pe frequency ops ------------------------------===//
//
// Part of the pe-mlir project.
//
// The verifiers and folders of the frequency ops (pe.rope_frequencies and
// the scaled variants: linear, NTK, dynamic NTK, YaRN, Llama 3, LongRoPE).
// The folders evaluate the shared formulas of pe/Support/PEMath.h; the
// widening of an f32 table that only rotates is in FrequencyWidening.cpp.
//
//===----------------------------------------------------------------------===//

#include "PEOpsUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyFactorAtLeastOne(Operation *op, double factor) {
  if (!(factor >= 1.0) || !std::isfinite(factor))
    return op->emitOpError("expects factor >= 1, got ") << fmt(factor);
  return success();
}

/// Checks the inv_freq result type and the base shared by all frequency ops.
/// `minRotary` is the smallest rotary dimension the formula is defined for.
static LogicalResult verifyFrequencyCommon(Operation *op,
                                           RankedTensorType invFreqType,
                                           double base, int64_t minRotary) {
  if (!invFreqType.hasStaticShape())
    return op->emitOpError("expects a statically shaped inv_freq result");
  // The table is evaluated at compile time (folders, lowerings): its size is
  // bounded, which also keeps 2 x length from overflowing.
  if (invFreqType.getDimSize(0) > kMaxFrequencyTableLength)
    return op->emitOpError("expects an inv_freq result of at most ")
           << kMaxFrequencyTableLength
           << " entries (the table is computed at compile time), got "
           << invFreqType.getDimSize(0);
  int64_t rotary = 2 * invFreqType.getDimSize(0);
  if (rotary < minRotary)
    return op->emitOpError("expects a rotary dimension (2 x inv_freq length) "
                           "of at least ")
           << minRotary << ", got " << rotary;
  return verifyPositive(op, "base", base);
}

/// Converts computed frequencies into the two fold results of `op`. Does not
/// fold an f32 table that only rotates (needsWideRopeTable): its consumers use
/// the exact value, which an f32 constant would lose; the canonicalization
/// pattern widens such an op to f64 first.
static LogicalResult foldFrequencies(const formula::RopeFrequencies &freqs,
                                     Operation *op,
                                     SmallVectorImpl<OpFoldResult> &results) {
  if (needsWideRopeTable(op))
    return failure();
  auto invFreqType = cast<RankedTensorType>(op->getResult(0).getType());
  Type elementType = invFreqType.getElementType();
  if (static_cast<int64_t>(freqs.invFreq.size()) != invFreqType.getDimSize(0))
    return failure();
  SmallVector<Attribute> values;
  values.reserve(freqs.invFreq.size());
  for (double v : freqs.invFreq) {
    if (!std::isfinite(v))
      return failure();
    values.push_back(FloatAttr::get(elementType, v));
  }
  if (!std::isfinite(freqs.attentionFactor))
    return failure();
  results.push_back(DenseElementsAttr::get(invFreqType, values));
  results.push_back(FloatAttr::get(Float32Type::get(invFreqType.getContext()),
                                   freqs.attentionFactor));
  return success();
}

/// Reads a constant integer fold operand (index or integer).
static std::optional<int64_t> getConstantInt(Attribute attr) {
  if (auto intAttr = dyn_cast_if_present<IntegerAttr>(attr))
    return intAttr.getValue().getSExtValue();
  return std::nullopt;
}

LogicalResult RopeFrequenciesOp::verify() {
  return verifyFrequencyCommon(*this, getInvFreq().getType(),
                               getBase().convertToDouble(), 2);
}

LogicalResult RopeFrequenciesOp::fold(FoldAdaptor,
                                      SmallVectorImpl<OpFoldResult> &results) {
  return foldFrequencies(
      formula::defaultFrequencies(getBase().convertToDouble(), getRotaryDim()),
      *this, results);
}

LogicalResult LinearScaleOp::verify() {
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(),
                                   getBase().convertToDouble(), 2)))
    return failure();
  return verifyFactorAtLeastOne(*this, getFactor().convertToDouble());
}

LogicalResult LinearScaleOp::fold(FoldAdaptor,
                                  SmallVectorImpl<OpFoldResult> &results) {
  return foldFrequencies(formula::linearScaling(getBase().convertToDouble(),
                                                getRotaryDim(),
                                                getFactor().convertToDouble()),
                         *this, results);
}

LogicalResult NtkScaleOp::verify() {
  // base * factor^(R / (R - 2)) needs R > 2.
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(),
                                   getBase().convertToDouble(), 4)))
    return failure();
  return verifyFactorAtLeastOne(*this, getFactor().convertToDouble());
}

LogicalResult NtkScaleOp::fold(FoldAdaptor,
                               SmallVectorImpl<OpFoldResult> &results) {
  return foldFrequencies(formula::ntkScaling(getBase().convertToDouble(),
                                             getRotaryDim(),
                                             getFactor().convertToDouble()),
                         *this, results);
}

LogicalResult DynamicNtkScaleOp::verify() {
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(),
                                   getBase().convertToDouble(), 4)) ||
      failed(verifyFactorAtLeastOne(*this, getFactor().convertToDouble())))
    return failure();
  if (static_cast<int64_t>(getMaxPositionEmbeddings()) <= 0)
    return emitOpError("expects max_position_embeddings > 0, got ")
           << static_cast<int64_t>(getMaxPositionEmbeddings());
  return success();
}

LogicalResult DynamicNtkScaleOp::fold(FoldAdaptor adaptor,
                                      SmallVectorImpl<OpFoldResult> &results) {
  std::optional<int64_t> seqLen = getConstantInt(adaptor.getSeqLen());
  if (!seqLen)
    return failure();
  return foldFrequencies(formula::dynamicNtkScaling(
                             getBase().convertToDouble(), getRotaryDim(),
                             getFactor().convertToDouble(),
                             static_cast<int64_t>(getMaxPositionEmbeddings()),
                             *seqLen),
                         *this, results);
}

/// Collects the YaRN parameters of the op in the form of PEMath.
static formula::YarnParams getYarnParams(YarnScaleOp op) {
  formula::YarnParams p;
  p.factor = op.getFactor().convertToDouble();
  p.originalMaxPositions =
      static_cast<int64_t>(op.getOriginalMaxPositionEmbeddings());
  p.betaFast = op.getBetaFast().convertToDouble();
  p.betaSlow = op.getBetaSlow().convertToDouble();
  if (auto m = op.getMscale())
    p.mscale = m->convertToDouble();
  if (auto m = op.getMscaleAllDim())
    p.mscaleAllDim = m->convertToDouble();
  if (auto f = op.getAttentionFactor())
    p.attentionFactor = f->convertToDouble();
  p.truncate = op.getTruncate();
  return p;
}

LogicalResult YarnScaleOp::verify() {
  double base = getBase().convertToDouble();
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(), base, 2)) ||
      failed(verifyFactorAtLeastOne(*this, getFactor().convertToDouble())) ||
      failed(verifyPositive(*this, "beta_fast",
                            getBetaFast().convertToDouble())) ||
      failed(
          verifyPositive(*this, "beta_slow", getBetaSlow().convertToDouble())))
    return failure();
  if (base == 1.0)
    return emitOpError("expects base != 1 (the correction range divides by "
                       "ln(base))");
  if (static_cast<int64_t>(getOriginalMaxPositionEmbeddings()) <= 0)
    return emitOpError("expects original_max_position_embeddings > 0, got ")
           << static_cast<int64_t>(getOriginalMaxPositionEmbeddings());
  if (auto m = getMscale(); m && !(m->convertToDouble() >= 0.0))
    return emitOpError("expects mscale >= 0");
  if (auto m = getMscaleAllDim(); m && !(m->convertToDouble() >= 0.0))
    return emitOpError("expects mscale_all_dim >= 0");
  if (auto f = getAttentionFactor())
    return verifyPositive(*this, "attention_factor", f->convertToDouble());
  return success();
}

LogicalResult YarnScaleOp::fold(FoldAdaptor,
                                SmallVectorImpl<OpFoldResult> &results) {
  return foldFrequencies(formula::yarnScaling(getBase().convertToDouble(),
                                              getRotaryDim(),
                                              getYarnParams(*this)),
                         *this, results);
}

LogicalResult Llama3ScaleOp::verify() {
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(),
                                   getBase().convertToDouble(), 2)) ||
      failed(verifyFactorAtLeastOne(*this, getFactor().convertToDouble())) ||
      failed(verifyPositive(*this, "low_freq_factor",
                            getLowFreqFactor().convertToDouble())))
    return failure();
  if (!(getHighFreqFactor().convertToDouble() >=
        getLowFreqFactor().convertToDouble()))
    return emitOpError("expects high_freq_factor >= low_freq_factor, got ")
           << fmt(getHighFreqFactor().convertToDouble()) << " < "
           << fmt(getLowFreqFactor().convertToDouble());
  if (static_cast<int64_t>(getOriginalMaxPositionEmbeddings()) <= 0)
    return emitOpError("expects original_max_position_embeddings > 0, got ")
           << static_cast<int64_t>(getOriginalMaxPositionEmbeddings());
  return success();
}

LogicalResult Llama3ScaleOp::fold(FoldAdaptor,
                                  SmallVectorImpl<OpFoldResult> &results) {
  formula::Llama3Params p;
  p.factor = getFactor().convertToDouble();
  p.lowFreqFactor = getLowFreqFactor().convertToDouble();
  p.highFreqFactor = getHighFreqFactor().convertToDouble();
  p.originalMaxPositions =
      static_cast<int64_t>(getOriginalMaxPositionEmbeddings());
  return foldFrequencies(
      formula::llama3Scaling(getBase().convertToDouble(), getRotaryDim(), p),
      *this, results);
}

LogicalResult LongRopeScaleOp::verify() {
  if (failed(verifyFrequencyCommon(*this, getInvFreq().getType(),
                                   getBase().convertToDouble(), 2)))
    return failure();
  int64_t pairs = getRotaryDim() / 2;
  for (auto [name, factors] :
       {std::make_pair(StringRef("short_factor"), getShortFactor()),
        std::make_pair(StringRef("long_factor"), getLongFactor())}) {
    if (static_cast<int64_t>(factors.size()) != pairs)
      return emitOpError("expects ")
             << name << " to have rotary_dim / 2 = " << pairs
             << " entries, got " << factors.size();
    for (double f : factors)
      if (failed(verifyPositive(*this, name, f)))
        return failure();
  }
  if (static_cast<int64_t>(getOriginalMaxPositionEmbeddings()) <= 0 ||
      static_cast<int64_t>(getMaxPositionEmbeddings()) <= 0)
    return emitOpError("expects positive original_max_position_embeddings "
                       "and max_position_embeddings");
  if (auto f = getFactor();
      f && failed(verifyPositive(*this, "factor", f->convertToDouble())))
    return failure();
  if (auto f = getAttentionFactor())
    return verifyPositive(*this, "attention_factor", f->convertToDouble());
  return success();
}

LogicalResult LongRopeScaleOp::fold(FoldAdaptor adaptor,
                                    SmallVectorImpl<OpFoldResult> &results) {
  std::optional<int64_t> seqLen;
  if (getSeqLen()) {
    seqLen = getConstantInt(adaptor.getSeqLen());
    if (!seqLen)
      return failure();
  }
  formula::LongRopeParams p;
  p.shortFactor.assign(getShortFactor().begin(), getShortFactor().end());
  p.longFactor.assign(getLongFactor().begin(), getLongFactor().end());
  p.originalMaxPositions =
      static_cast<int64_t>(getOriginalMaxPositionEmbeddings());
  p.maxPositionEmbeddings = static_cast<int64_t>(getMaxPositionEmbeddings());
  if (auto f = getFactor())
    p.factor = f->convertToDouble();
  if (auto f = getAttentionFactor())
    p.attentionFactor = f->convertToDouble();
  return foldFrequencies(formula::longRopeScaling(getBase().convertToDouble(),
                                                  getRotaryDim(), p, seqLen),
                         *this, results);
}
