//===- PEOps.cpp - pe dialect operations ----------------------------------===//
//
// Part of the pe-mlir project.
//
// Verifiers state every constraint of the op descriptions in PEOps.td that
// ODS does not check itself; folders evaluate the frequency ops with the
// shared formulas of pe/Support/PEMath.h.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::pe;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// Formats a dimension for diagnostics ("?" when dynamic).
static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// Formats a double for diagnostics the way a user writes it ("0.5", "1e+06").
static std::string fmt(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

/// True when two dimensions may be equal at run time.
static bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Bounds on what the verifiers accept where a folder or lowering does work
/// proportional to a static size at compile time (a frequency op's table,
/// the default ALiBi slopes, the sinusoidal channel tables), so that no
/// verified op can exhaust the compiler's memory or time.
static constexpr int64_t kMaxFrequencyTableLength = int64_t(1) << 16;
static constexpr int64_t kMaxAlibiHeads = int64_t(1) << 16;
static constexpr int64_t kMaxSinusoidalChannels = int64_t(1) << 20;

/// Verifies the shape of the positions tensor `positions` (the operand
/// `name`) of the tokens of `input` along `seqDim`: `[T]`, or `[B, T]` with
/// `B` the input's dimension 0.
static LogicalResult verifyPositionsShape(Operation *op, StringRef name,
                                          RankedTensorType input,
                                          Value positions, int64_t seqDim) {
  int64_t rank = input.getRank();
  int64_t seqLen = input.getDimSize(seqDim);
  auto posType = cast<RankedTensorType>(positions.getType());
  if (posType.getRank() == 1) {
    if (!dimsCompatible(posType.getDimSize(0), seqLen))
      return op->emitOpError("expects ")
             << name << " of length " << dimStr(seqLen)
             << " (the sequence dimension), got "
             << dimStr(posType.getDimSize(0));
    return success();
  }
  if (posType.getRank() == 2) {
    if (rank < 3)
      return op->emitOpError("expects 1-D ")
             << name << " for a rank-" << rank << " input";
    if (!dimsCompatible(posType.getDimSize(0), input.getDimSize(0)) ||
        !dimsCompatible(posType.getDimSize(1), seqLen))
      return op->emitOpError("expects 2-D ")
             << name << " of shape [" << dimStr(input.getDimSize(0)) << ", "
             << dimStr(seqLen) << "], got [" << dimStr(posType.getDimSize(0))
             << ", " << dimStr(posType.getDimSize(1)) << "]";
    return success();
  }
  return op->emitOpError("expects ")
         << name << " of rank 1 ([T]) or 2 ([B, T]), got rank "
         << posType.getRank();
}

/// Verifies the position operands shared by the ops that encode a token
/// sequence `input : [..., T, C]`. `tableRows`, when given, is the row count
/// of a position-indexed table, checked against statically known positions.
static LogicalResult verifyPositionArgs(Operation *op, RankedTensorType input,
                                        Value offset, Value positions,
                                        int64_t staticOffset,
                                        std::optional<int64_t> tableRows,
                                        int64_t seqDim = -1) {
  int64_t rank = input.getRank();
  if (seqDim < 0)
    seqDim = rank - 2;
  int64_t seqLen = input.getDimSize(seqDim);
  if (staticOffset < 0)
    return op->emitOpError("expects a non-negative static_offset, got ")
           << staticOffset;
  if (positions) {
    if (offset || staticOffset != 0)
      return op->emitOpError(
          "expects either a positions tensor or an offset, not both");
    return verifyPositionsShape(op, "positions", input, positions, seqDim);
  }
  // end = staticOffset + seqLen, overflow-safe: an end past INT64_MAX is
  // past any table.
  int64_t end;
  if (tableRows && !ShapedType::isDynamic(*tableRows) && !offset &&
      !ShapedType::isDynamic(seqLen)) {
    if (llvm::AddOverflow(staticOffset, seqLen, end))
      return op->emitOpError("reads positions from ")
             << staticOffset << " past INT64_MAX but the table has "
             << *tableRows << " rows";
    if (end > *tableRows)
      return op->emitOpError("reads positions [")
             << staticOffset << ", " << end << ") but the table has "
             << *tableRows << " rows";
  }
  return success();
}

/// Verifies the `[..., T, C]` input of a sequence op.
static LogicalResult verifySequenceInput(Operation *op, RankedTensorType type,
                                         StringRef what) {
  if (type.getRank() < 2)
    return op->emitOpError("expects the ")
           << what << " to have rank >= 2 ([..., T, C]), got rank "
           << type.getRank();
  if (type.isDynamicDim(type.getRank() - 1))
    return op->emitOpError("expects a static channel dimension in the ")
           << what;
  return success();
}

static LogicalResult verifyPositive(Operation *op, StringRef name, double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    return op->emitOpError("expects ")
           << name << " to be positive and finite, got " << fmt(v);
  return success();
}

static LogicalResult verifyFactorAtLeastOne(Operation *op, double factor) {
  if (!(factor >= 1.0) || !std::isfinite(factor))
    return op->emitOpError("expects factor >= 1, got ") << fmt(factor);
  return success();
}

void mlir::pe::emitMissedRemark(Operation *op, StringRef category,
                                StringRef name, StringRef reason) {
  remark::missed(op->getLoc(),
                 remark::RemarkOpts::name(name).category(category))
      << remark::reason("{0}", reason.str());
}

//===----------------------------------------------------------------------===//
// AddSinusoidalOp
//===----------------------------------------------------------------------===//

LogicalResult AddSinusoidalOp::verify() {
  auto type = getInput().getType();
  if (failed(verifySequenceInput(*this, type, "input")) ||
      failed(verifyPositive(*this, "base", getBase().convertToDouble())))
    return failure();
  int64_t channels = type.getDimSize(type.getRank() - 1);
  if (channels == 0)
    return emitOpError("expects at least 1 channel");
  if (channels > kMaxSinusoidalChannels)
    return emitOpError("expects at most ")
           << kMaxSinusoidalChannels
           << " channels (the channel frequencies are computed at compile "
              "time), got "
           << channels;
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()),
                            std::nullopt);
}

//===----------------------------------------------------------------------===//
// AddLearnedOp
//===----------------------------------------------------------------------===//

LogicalResult AddLearnedOp::verify() {
  auto type = getInput().getType();
  auto table = getTable().getType();
  if (failed(verifySequenceInput(*this, type, "input")))
    return failure();
  if (table.getRank() != 2)
    return emitOpError("expects a rank-2 table [P, C], got rank ")
           << table.getRank();
  if (table.getElementType() != type.getElementType())
    return emitOpError("expects the table element type ")
           << table.getElementType() << " to match the input element type "
           << type.getElementType();
  int64_t channels = type.getDimSize(type.getRank() - 1);
  if (!dimsCompatible(table.getDimSize(1), channels))
    return emitOpError("expects the table to have ")
           << channels << " columns, got " << dimStr(table.getDimSize(1));
  if (table.getDimSize(0) == 0)
    return emitOpError("expects a table with at least one row");
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()),
                            table.getDimSize(0));
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

Rotation RopeOp::getRotation() {
  return Rotation{getLayout(),   getRotaryDimOrHeadDim(),
                  getInvFreq(),  getCosCache(),
                  getSinCache(), getAttentionScaling()};
}

int64_t RopeOp::getRotaryDimOrHeadDim() {
  auto type = getInput().getType();
  if (std::optional<uint64_t> rotary = getRotaryDim())
    return static_cast<int64_t>(*rotary);
  return type.getDimSize(type.getRank() - 1);
}

/// Verifies a rotary dimension and the frequency source shared by pe.rope
/// and pe.attention's rope encoding; returns the cache rows in `tableRows`.
static LogicalResult verifyRopeFrequencies(
    Operation *op, int64_t headDim, int64_t rotary, bool rotaryIsHeadDim,
    TypedValue<RankedTensorType> invFreq, TypedValue<RankedTensorType> cosCache,
    TypedValue<RankedTensorType> sinCache, std::optional<int64_t> &tableRows) {
  if (rotary <= 0 || rotary % 2 != 0)
    return op->emitOpError("expects an even, positive rotary dimension, got ")
           << rotary << (rotaryIsHeadDim ? " (the head dimension)" : "");
  if (rotary > headDim)
    return op->emitOpError("expects rotary_dim <= head dimension ")
           << headDim << ", got " << rotary;
  int64_t pairs = rotary / 2;
  bool hasInvFreq = static_cast<bool>(invFreq);
  bool hasCos = static_cast<bool>(cosCache);
  if (hasCos != static_cast<bool>(sinCache))
    return op->emitOpError("expects both a cos and a sin cache");
  if (hasInvFreq == hasCos)
    return op->emitOpError(
        "expects exactly one frequency source: inv_freq or cache");
  if (hasInvFreq) {
    int64_t n = invFreq.getType().getDimSize(0);
    if (!dimsCompatible(n, pairs))
      return op->emitOpError("expects inv_freq of length rotary_dim / 2 = ")
             << pairs << ", got " << n;
    return success();
  }
  auto cosType = cosCache.getType();
  if (cosType != sinCache.getType())
    return op->emitOpError("expects cos and sin caches of the same type, got ")
           << cosType << " and " << sinCache.getType();
  if (cosType.getRank() != 2 && cosType.getRank() != 3)
    return op->emitOpError("expects rank-2 caches [P, rotary_dim / 2] or "
                           "rank-3 per-token caches [B, T, rotary_dim / 2], "
                           "got rank ")
           << cosType.getRank();
  int64_t columns = cosType.getDimSize(cosType.getRank() - 1);
  if (!dimsCompatible(columns, pairs))
    return op->emitOpError("expects caches with rotary_dim / 2 = ")
           << pairs << " columns, got " << dimStr(columns);
  if (cosType.getRank() == 3)
    return success(); // Per-token caches: checked by the op.
  if (cosType.getDimSize(0) == 0)
    return op->emitOpError("expects caches with at least one row");
  tableRows = cosType.getDimSize(0);
  return success();
}

LogicalResult RopeOp::verify() {
  auto type = getInput().getType();
  if (failed(verifySequenceInput(*this, type, "input")))
    return failure();
  int64_t rank = type.getRank();
  int64_t seqDim = getSequenceDimOrDefault();
  if (seqDim < 0 || seqDim >= rank - 1)
    return emitOpError("expects a sequence_dim in [0, ")
           << rank - 1 << ") (not the channel dimension), got " << seqDim;
  if (seqDim == 0 && getPositions() &&
      cast<RankedTensorType>(getPositions().getType()).getRank() == 2)
    return emitOpError("expects a sequence_dim other than 0 with [B, T] "
                       "positions (dimension 0 is their batch)");
  std::optional<int64_t> tableRows;
  if (failed(verifyRopeFrequencies(*this, type.getDimSize(type.getRank() - 1),
                                   getRotaryDimOrHeadDim(), !getRotaryDim(),
                                   getInvFreq(), getCosCache(), getSinCache(),
                                   tableRows)))
    return failure();
  if (hasPerTokenCaches()) {
    // cos[b, t, i]: one row per token of the input, no positions.
    auto cosType = getCosCache().getType();
    if (rank < 3)
      return emitOpError("expects an input of rank >= 3 ([B, ..., T, C]) "
                         "with per-token caches, got rank ")
             << rank;
    if (!dimsCompatible(cosType.getDimSize(0), type.getDimSize(0)) ||
        !dimsCompatible(cosType.getDimSize(1), type.getDimSize(seqDim)))
      return emitOpError("expects per-token caches of shape [")
             << dimStr(type.getDimSize(0)) << ", "
             << dimStr(type.getDimSize(seqDim))
             << ", rotary_dim / 2] (the input's batch and tokens), got "
             << cosType;
    if (getOffset() || getPositions() ||
        static_cast<int64_t>(getStaticOffset()) != 0)
      return emitOpError("expects no positions or offsets with per-token "
                         "caches (each token has its own row)");
    return success();
  }
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()), tableRows,
                            seqDim);
}

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// AlibiBiasOp
//===----------------------------------------------------------------------===//

LogicalResult AlibiBiasOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 3)
    return emitOpError("expects a rank-3 result [H, Tq, Tk], got rank ")
           << type.getRank();
  if (type.isDynamicDim(0))
    return emitOpError("expects a static head count");
  int64_t heads = type.getDimSize(0);
  if (heads <= 0)
    return emitOpError("expects at least one head");
  if (!getSlopes() && heads > kMaxAlibiHeads)
    return emitOpError("expects at most ")
           << kMaxAlibiHeads
           << " heads without a slopes operand (the slopes are computed at "
              "compile time), got "
           << heads;
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError("expects ")
           << type.getNumDynamicDims()
           << " dynamic size operands (one per dynamic dimension), got "
           << getDynamicSizes().size();
  if (static_cast<int64_t>(getStaticOffset()) < 0)
    return emitOpError("expects a non-negative static_offset, got ")
           << static_cast<int64_t>(getStaticOffset());
  if (auto slopes = getSlopes()) {
    int64_t n = slopes.getType().getDimSize(0);
    if (n == 0)
      return emitOpError("expects a non-empty slopes tensor");
    if (!dimsCompatible(n, heads))
      return emitOpError("expects one slope per head (")
             << heads << "), got " << n;
    return success();
  }
  return verifyPositive(*this, "max_bias", getMaxBias().convertToDouble());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

SmallVector<Value> AttentionOp::buildInits(OpBuilder &b, Location loc,
                                           Type resultType, Type lseType,
                                           Value query, Value value,
                                           AttentionLayout layout) {
  // The query's sizes with the value's channel count; lse has the query's
  // batch, heads and rows whatever the layout.
  SmallVector<OpFoldResult> dims = tensor::getMixedSizes(b, loc, query);
  dims[3] = tensor::getMixedSizes(b, loc, value)[3];
  auto empty = [&](Type type, ArrayRef<OpFoldResult> sizes) -> Value {
    auto tensorType = cast<RankedTensorType>(type);
    SmallVector<Value> dynamic;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (tensorType.isDynamicDim(i))
        dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    return tensor::EmptyOp::create(b, loc, tensorType, dynamic);
  };
  SmallVector<Value> inits = {empty(resultType, dims)};
  if (lseType) {
    int64_t hA = layout == AttentionLayout::BSHD ? 2 : 1;
    inits.push_back(empty(lseType, {dims[0], dims[hA], dims[3 - hA]}));
  }
  return inits;
}

void AttentionOp::build(OpBuilder &b, OperationState &state, Type resultType,
                        Type lseType, Value query, Value key, Value value,
                        AttentionLayout layout) {
  SmallVector<Value> inits =
      buildInits(b, state.location, resultType, lseType, query, value, layout);
  build(b, state, resultType, lseType, query, key, value, /*bias=*/Value(),
        /*mask=*/Value(), /*kv_lengths=*/Value(), /*causal_offset=*/Value(),
        /*inv_freq=*/Value(), /*cos_cache=*/Value(), /*sin_cache=*/Value(),
        /*attention_scaling=*/Value(), /*query_offset=*/Value(),
        /*key_offset=*/Value(), /*query_positions=*/Value(),
        /*key_positions=*/Value(), /*alibi_offset=*/Value(),
        /*alibi_slopes=*/Value(), inits,
        /*rope=*/RopeEncodingAttr(),
        /*alibi=*/AlibiEncodingAttr(), /*scale=*/FloatAttr(),
        /*causal=*/UnitAttr(),
        CausalAlignmentAttr::get(b.getContext(), CausalAlignment::BottomRight),
        /*window=*/IntegerAttr(),
        AttentionLayoutAttr::get(b.getContext(), layout),
        /*softcap=*/FloatAttr(),
        SoftcapOrderAttr::get(b.getContext(), SoftcapOrder::BeforeBias));
}

double AttentionOp::getScaleOrDefault() {
  if (auto scale = getScale())
    return scale->convertToDouble();
  return 1.0 /
         std::sqrt(static_cast<double>(getQuery().getType().getDimSize(3)));
}

std::optional<Rotation> AttentionOp::getRotation() {
  RopeEncodingAttr rope = getRopeAttr();
  if (!rope)
    return std::nullopt;
  return Rotation{
      rope.getLayout(),
      rope.getRotaryDim().value_or(getQuery().getType().getDimSize(3)),
      getInvFreq(),
      getCosCache(),
      getSinCache(),
      getAttentionScaling()};
}

PositionOffset AttentionOp::getRopeQueryOffset() {
  RopeEncodingAttr rope = getRopeAttr();
  return {rope ? rope.getQueryOffset() : 0, getQueryOffset()};
}

PositionOffset AttentionOp::getRopeKeyOffset() {
  RopeEncodingAttr rope = getRopeAttr();
  return {rope ? rope.getKeyOffset() : 0, getKeyOffset()};
}

PositionOffset AttentionOp::getAlibiQueryOffset() {
  AlibiEncodingAttr alibi = getAlibiAttr();
  return {alibi ? alibi.getQueryOffset() : 0, getAlibiOffset()};
}

Value AttentionOp::buildScoreModifiers(OpBuilder &b, Location loc, Value score,
                                       Value queryPos, Value keyPos,
                                       Value slope) {
  Type type = score.getType();
  auto constant = [&](double v) -> Value {
    Type element = getElementTypeOrSelf(type);
    TypedAttr attr = b.getFloatAttr(element, v);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector, attr);
    return arith::ConstantOp::create(b, loc, attr);
  };
  auto cap = [&](Value x) -> Value {
    Value c = constant(getSoftcap()->convertToDouble());
    return arith::MulFOp::create(
        b, loc, c,
        math::TanhOp::create(b, loc, arith::DivFOp::create(b, loc, x, c)));
  };
  bool softcap = static_cast<bool>(getSoftcap());
  if (softcap && getSoftcapOrder() == SoftcapOrder::BeforeBias)
    score = cap(score);
  if (AlibiEncodingAttr alibi = getAlibiAttr()) {
    Value dist;
    switch (alibi.getDistance()) {
    case AlibiDistance::Symmetric:
      dist = arith::NegFOp::create(
          b, loc,
          math::AbsFOp::create(
              b, loc, arith::SubFOp::create(b, loc, queryPos, keyPos)));
      break;
    case AlibiDistance::Signed:
      dist = arith::SubFOp::create(b, loc, keyPos, queryPos);
      break;
    case AlibiDistance::Key:
      dist = keyPos;
      break;
    }
    score = math::FmaOp::create(b, loc, slope, dist, score);
  }
  if (softcap && getSoftcapOrder() == SoftcapOrder::AfterBias)
    score = cap(score);
  return score;
}

/// Verifies that `type` broadcasts numpy-style to `target` ([B, H, Tq, Tk]).
static LogicalResult verifyBroadcastable(Operation *op, StringRef name,
                                         RankedTensorType type,
                                         ArrayRef<int64_t> target) {
  int64_t rank = type.getRank();
  if (rank < 2 || rank > 4)
    return op->emitOpError("expects a ")
           << name << " of rank 2 to 4 (broadcast to [B, H, Tq, Tk]), got rank "
           << rank;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = type.getDimSize(rank - 1 - i);
    int64_t t = target[3 - i];
    if (d != 1 && !dimsCompatible(d, t))
      return op->emitOpError("expects ")
             << name << " dimension " << rank - 1 - i << " to be 1 or "
             << dimStr(t) << ", got " << d;
  }
  return success();
}

/// The static rope positions [offset, offset + T) of the query and (when
/// rotated) the key read from a cache of `rows` rows: an error when they
/// fall outside it (overflow-safe), nothing with a dynamic offset or size.
static LogicalResult verifyAttentionRopeRange(AttentionOp op, int64_t rows,
                                              int64_t seqAxis) {
  if (ShapedType::isDynamic(rows))
    return success();
  RopeEncodingAttr rope = op.getRopeAttr();
  auto check = [&](StringRef which, int64_t first, Value dynamicOffset,
                   Value positions, int64_t seqLen) -> LogicalResult {
    int64_t end;
    // Positions from a tensor are clamped to the cache, as for pe.rope.
    if (dynamicOffset || positions || ShapedType::isDynamic(seqLen))
      return success();
    if (llvm::AddOverflow(first, seqLen, end))
      return op.emitOpError("reads ")
             << which << " rope positions from " << first
             << " past INT64_MAX but the cache has " << rows << " rows";
    if (end > rows)
      return op.emitOpError("reads ")
             << which << " rope positions [" << first << ", " << end
             << ") but the cache has " << rows << " rows";
    return success();
  };
  if (failed(check("query", rope.getQueryOffset(), op.getQueryOffset(),
                   op.getQueryPositions(),
                   op.getQuery().getType().getDimSize(seqAxis))))
    return failure();
  if (rope.getRotateKey())
    return check("key", rope.getKeyOffset(), op.getKeyOffset(),
                 op.getKeyPositions(),
                 op.getKey().getType().getDimSize(seqAxis));
  return success();
}

/// Verifies the encodings of an attention op: operands present exactly when
/// their encoding is, and the rope frequencies against the head dimension.
static LogicalResult verifyAttentionEncodings(AttentionOp op) {
  auto q = op.getQuery().getType();
  if (RopeEncodingAttr rope = op.getRopeAttr()) {
    if (q.isDynamicDim(3))
      return op.emitOpError("expects a static head dimension with RoPE");
    std::optional<int64_t> tableRows;
    if (failed(verifyRopeFrequencies(
            op, q.getDimSize(3), op.getRotation()->rotaryDim,
            !rope.getRotaryDim(), op.getInvFreq(), op.getCosCache(),
            op.getSinCache(), tableRows)))
      return failure();
    if (Value cos = op.getCosCache())
      if (cast<RankedTensorType>(cos.getType()).getRank() != 2)
        return op.emitOpError("expects rank-2 caches [P, rotary_dim / 2] in "
                              "the rope encoding (per-token caches belong to "
                              "a separate pe.rope)");
    if (!rope.getRotateKey() && op.getKeyOffset())
      return op.emitOpError(
          "has a key_offset operand but its rope encoding is query_only");
    if (!rope.getRotateKey() && op.getKeyPositions())
      return op.emitOpError(
          "has a key_positions operand but its rope encoding is query_only");
    // A positions tensor replaces both offsets of its side.
    for (auto [side, positions, staticOffset, dynamicOffset, operand] :
         {std::make_tuple("query", op.getQueryPositions(),
                          rope.getQueryOffset(), op.getQueryOffset(),
                          op.getQuery()),
          std::make_tuple("key", op.getKeyPositions(), rope.getKeyOffset(),
                          op.getKeyOffset(), op.getKey())}) {
      if (!positions)
        continue;
      if (staticOffset != 0 || dynamicOffset)
        return op.emitOpError("expects either ")
               << side << "_positions or a " << side
               << " offset (static or dynamic), not both";
      if (failed(verifyPositionsShape(op, (Twine(side) + "_positions").str(),
                                      operand.getType(), positions,
                                      op.getSequenceAxis())))
        return failure();
    }
    // Static positions read from a cache are in range, as for the pe.rope
    // ops decomposeOperation builds (a run-time offset is clamped instead).
    if (tableRows &&
        failed(verifyAttentionRopeRange(op, *tableRows, op.getSequenceAxis())))
      return failure();
  } else if (op.getInvFreq() || op.getCosCache() || op.getSinCache() ||
             op.getAttentionScaling() || op.getQueryOffset() ||
             op.getKeyOffset() || op.getQueryPositions() ||
             op.getKeyPositions()) {
    return op.emitOpError("has RoPE operands but no rope encoding");
  }
  if (op.getAlibiAttr()) {
    int64_t heads = q.getDimSize(op.getHeadsAxis());
    if (ShapedType::isDynamic(heads))
      return op.emitOpError("expects a static head count with ALiBi");
    if (!op.getAlibiSlopes() && heads > kMaxAlibiHeads)
      return op.emitOpError("expects at most ")
             << kMaxAlibiHeads
             << " heads with ALiBi and no alibi_slopes operand (the slopes "
                "are computed at compile time), got "
             << heads;
    if (op.getBias())
      return op.emitOpError(
          "expects either a bias operand or an alibi encoding, not both");
    if (Value slopes = op.getAlibiSlopes()) {
      int64_t n = cast<RankedTensorType>(slopes.getType()).getDimSize(0);
      if (!dimsCompatible(n, heads))
        return op.emitOpError("expects one ALiBi slope per query head (")
               << dimStr(heads) << "), got " << dimStr(n);
    }
  } else if (op.getAlibiOffset() || op.getAlibiSlopes()) {
    return op.emitOpError("has ALiBi operands but no alibi encoding");
  }
  return success();
}

/// Verifies the index-computed masks: causal alignment, window, lengths.
static LogicalResult verifyAttentionMasking(AttentionOp op) {
  bool topLeft = op.getCausalAlignment() == CausalAlignment::TopLeft;
  if (!op.getCausal()) {
    if (op.getCausalOffset())
      return op.emitOpError("has a causal_offset operand but is not causal");
    if (topLeft)
      return op.emitOpError("has a causal_alignment but is not causal");
    if (op.getWindow())
      return op.emitOpError("has a sliding window but is not causal");
  }
  if (std::optional<uint64_t> w = op.getWindow())
    if (static_cast<int64_t>(*w) < 1)
      return op.emitOpError("expects a window of at least 1 key, got ")
             << static_cast<int64_t>(*w);
  if (Value lengths = op.getKvLengths()) {
    int64_t n = cast<RankedTensorType>(lengths.getType()).getDimSize(0);
    int64_t batch = op.getQuery().getType().getDimSize(0);
    if (!dimsCompatible(n, batch))
      return op.emitOpError("expects one kv_lengths entry per batch (")
             << dimStr(batch) << "), got " << n;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(),
       v = getValue().getType(), out = getResult().getType();
  for (auto [name, type] :
       {std::make_pair("query", q), {"key", k}, {"value", v}, {"result", out}})
    if (type.getRank() != 4)
      return emitOpError("expects a rank-4 ")
             << name << " [B, heads, T, D], got rank " << type.getRank();
  // Key and value share one element type: the query's, or f16/bf16 under
  // an f32 query (a half-precision KV cache read by f32 attention). The
  // result has the query's type, or f32 for an f16/bf16 query (the f32
  // math not rounded at the end).
  Type qe = q.getElementType(), kve = k.getElementType();
  Type oe = out.getElementType();
  bool halfCache = qe.isF32() && (kve.isF16() || kve.isBF16());
  bool wideResult = (qe.isF16() || qe.isBF16()) && oe.isF32();
  if (v.getElementType() != kve || (kve != qe && !halfCache) ||
      (oe != qe && !wideResult))
    return emitOpError("expects query, key, value and result of one "
                       "element type, or f16/bf16 key and value with an f32 "
                       "query and result, or an f32 result of f16/bf16 "
                       "query, key and value, got ")
           << qe << ", " << kve << ", " << v.getElementType() << " and "
           << out.getElementType();

  // Sizes by meaning; the layout says where heads and sequence sit.
  int64_t hA = getHeadsAxis(), sA = getSequenceAxis();
  int64_t batch = q.getDimSize(0), heads = q.getDimSize(hA);
  int64_t tq = q.getDimSize(sA), dim = q.getDimSize(3);
  int64_t kvHeads = k.getDimSize(hA), tk = k.getDimSize(sA);
  if (!dimsCompatible(k.getDimSize(0), batch) ||
      !dimsCompatible(v.getDimSize(0), batch))
    return emitOpError("expects query, key and value of one batch size");
  if (!dimsCompatible(k.getDimSize(3), dim))
    return emitOpError("expects query and key of one head dimension, got ")
           << dimStr(dim) << " and " << dimStr(k.getDimSize(3));
  if (!dimsCompatible(v.getDimSize(hA), kvHeads) ||
      !dimsCompatible(v.getDimSize(sA), tk))
    return emitOpError("expects key and value of one shape in the heads "
                       "and sequence dimensions");
  // Head counts and the head dimension are at least 1 (H = 0 would divide
  // by zero in the GQA group size H / Hkv; D = 0 has no default scale).
  for (auto [name, size] : {std::make_pair("query heads H", heads),
                            {"key/value heads Hkv", kvHeads},
                            {"head dimension D", dim},
                            {"key head dimension", k.getDimSize(3)}})
    if (size == 0)
      return emitOpError("expects ") << name << " >= 1, got 0";
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads) &&
      (kvHeads == 0 || heads % kvHeads != 0))
    return emitOpError("expects the query heads (")
           << heads << ") to be a multiple of the key/value heads (" << kvHeads
           << ")";
  SmallVector<int64_t> expected = {batch, 0, 0, v.getDimSize(3)};
  expected[hA] = heads;
  expected[sA] = tq;
  for (int64_t i = 0; i < 4; ++i)
    if (!dimsCompatible(out.getDimSize(i), expected[i]))
      return emitOpError("expects a result of shape [")
             << dimStr(expected[0]) << ", " << dimStr(expected[1]) << ", "
             << dimStr(expected[2]) << ", " << dimStr(expected[3]) << "], got "
             << out;

  SmallVector<int64_t> scoreShape = {batch, heads, tq, tk};
  if (Value bias = getBias())
    if (failed(verifyBroadcastable(
            *this, "bias", cast<RankedTensorType>(bias.getType()), scoreShape)))
      return failure();
  if (Value mask = getMask())
    if (failed(verifyBroadcastable(
            *this, "mask", cast<RankedTensorType>(mask.getType()), scoreShape)))
      return failure();

  if (std::optional<APFloat> scale = getScale()) {
    double s = scale->convertToDouble();
    if (!std::isfinite(s) || s == 0.0)
      return emitOpError("expects a finite, non-zero scale, got ") << fmt(s);
  } else if (ShapedType::isDynamic(dim)) {
    return emitOpError("expects an explicit scale when the head dimension "
                       "is dynamic");
  }
  if (std::optional<APFloat> softcap = getSoftcap())
    if (failed(verifyPositive(*this, "softcap", softcap->convertToDouble())))
      return failure();
  if (Value lse = getLse()) {
    auto lseType = cast<RankedTensorType>(lse.getType());
    Type computeType = q.getElementType().isF64()
                           ? q.getElementType()
                           : Float32Type::get(getContext());
    SmallVector<int64_t> rows = {batch, heads, tq};
    if (lseType.getRank() != 3 || lseType.getElementType() != computeType ||
        !dimsCompatible(lseType.getDimSize(0), rows[0]) ||
        !dimsCompatible(lseType.getDimSize(1), rows[1]) ||
        !dimsCompatible(lseType.getDimSize(2), rows[2]))
      return emitOpError("expects an lse result of shape [")
             << dimStr(rows[0]) << ", " << dimStr(rows[1]) << ", "
             << dimStr(rows[2]) << "] and element type " << computeType
             << ", got " << lseType;
  }
  if (failed(verifyAttentionMasking(*this)))
    return failure();
  return verifyAttentionEncodings(*this);
}

FailureOr<SmallVector<Value>> AttentionOp::decomposeOperation(OpBuilder &b) {
  // The encodings become the separate ops that define them (the op
  // description); an encoding-free attention has nothing to decompose here:
  // convert-pe-to-linalg lowers it.
  if (!hasEncodings())
    return failure();
  Location loc = getLoc();
  MLIRContext *ctx = getContext();
  Value q = getQuery(), k = getKey();
  if (std::optional<Rotation> rot = getRotation()) {
    RopeEncodingAttr enc = getRopeAttr();
    // The rotation along the attention's sequence dimension (1 for bshd).
    auto rope = [&](Value x, PositionOffset offset, Value positions) -> Value {
      return RopeOp::create(
          b, loc, x.getType(), x, rot->invFreq, rot->cosCache, rot->sinCache,
          rot->attentionScaling, RopeLayoutAttr::get(ctx, rot->layout),
          enc.getRotaryDim() ? b.getI64IntegerAttr(*enc.getRotaryDim())
                             : IntegerAttr(),
          getLayout() == AttentionLayout::BSHD ? b.getI64IntegerAttr(1)
                                               : IntegerAttr(),
          offset.dynamicOffset, positions,
          b.getI64IntegerAttr(offset.staticOffset));
    };
    q = rope(q, getRopeQueryOffset(), getQueryPositions());
    if (rotatesKey())
      k = rope(k, getRopeKeyOffset(), getKeyPositions());
  }
  Value bias = getBias();
  if (AlibiEncodingAttr alibi = getAlibiAttr()) {
    auto qType = getQuery().getType(), kType = getKey().getType();
    int64_t hA = getHeadsAxis(), sA = getSequenceAxis();
    auto biasType = RankedTensorType::get(
        {qType.getDimSize(hA), qType.getDimSize(sA), kType.getDimSize(sA)},
        b.getF32Type());
    SmallVector<Value> dynamicSizes;
    if (qType.isDynamicDim(sA))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, getQuery(), sA));
    if (kType.isDynamicDim(sA))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, getKey(), sA));
    PositionOffset offset = getAlibiQueryOffset();
    bias = AlibiBiasOp::create(
        b, loc, biasType, dynamicSizes, getAlibiSlopes(), offset.dynamicOffset,
        AlibiDistanceAttr::get(ctx, alibi.getDistance()),
        b.getF64FloatAttr(alibi.getMaxBias().convertToDouble()),
        b.getI64IntegerAttr(offset.staticOffset));
  }
  auto plain = AttentionOp::create(
      b, loc, getResult().getType(), getLse() ? getLse().getType() : Type(), q,
      k, getValue(), bias, getMask(), getKvLengths(), getCausalOffset(),
      /*inv_freq=*/Value(),
      /*cos_cache=*/Value(), /*sin_cache=*/Value(),
      /*attention_scaling=*/Value(), /*query_offset=*/Value(),
      /*key_offset=*/Value(), /*query_positions=*/Value(),
      /*key_positions=*/Value(), /*alibi_offset=*/Value(),
      /*alibi_slopes=*/Value(), getOuts(),
      /*rope=*/RopeEncodingAttr(), /*alibi=*/AlibiEncodingAttr(),
      getScaleAttr(), getCausalAttr(), getCausalAlignmentAttr(),
      getWindowAttr(), getLayoutAttr(), getSoftcapAttr(),
      getSoftcapOrderAttr());
  SmallVector<Value> results = {plain.getResult()};
  if (getLse())
    results.push_back(plain.getLse());
  return results;
}

//===----------------------------------------------------------------------===//
// Encoding attributes
//===----------------------------------------------------------------------===//

/// Parses `, key = <value>` and `, flag` items after an enum keyword until
/// `>`; `item` parses what follows a key. A key given twice is an error
/// (naming `what`, e.g. "rope encoding"), not "the last value wins".
static ParseResult
parseEncodingItems(AsmParser &parser, StringRef what,
                   llvm::function_ref<ParseResult(StringRef, SMLoc)> item) {
  llvm::SmallDenseSet<StringRef, 4> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc, "duplicate ")
             << what << " parameter '" << key << "'";
    if (item(key, loc))
      return failure();
  }
  return parser.parseGreater();
}

Attribute RopeEncodingAttr::parse(AsmParser &parser, Type) {
  StringRef layoutName;
  SMLoc layoutLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&layoutName))
    return {};
  std::optional<RopeLayout> layout = symbolizeRopeLayout(layoutName);
  if (!layout) {
    parser.emitError(layoutLoc, "expected 'interleaved' or 'half', got '")
        << layoutName << "'";
    return {};
  }
  std::optional<int64_t> rotaryDim;
  bool rotateKey = true;
  int64_t queryOffset = 0, keyOffset = 0;
  auto integer = [&](int64_t &v) -> ParseResult {
    return failure(failed(parser.parseEqual()) ||
                   failed(parser.parseInteger(v)));
  };
  if (parseEncodingItems(
          parser, "rope encoding",
          [&](StringRef key, SMLoc loc) -> ParseResult {
            if (key == "rotary_dim") {
              int64_t v;
              if (failed(integer(v)))
                return failure();
              rotaryDim = v;
              return success();
            }
            if (key == "query_only") {
              rotateKey = false;
              return success();
            }
            if (key == "query_offset")
              return integer(queryOffset);
            if (key == "key_offset")
              return integer(keyOffset);
            return parser.emitError(loc, "unknown rope encoding parameter '")
                   << key << "'";
          }))
    return {};
  return getChecked([&] { return parser.emitError(layoutLoc); },
                    parser.getContext(), *layout, rotaryDim, rotateKey,
                    queryOffset, keyOffset);
}

void RopeEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyRopeLayout(getLayout());
  if (getRotaryDim())
    printer << ", rotary_dim = " << *getRotaryDim();
  if (!getRotateKey())
    printer << ", query_only";
  if (getQueryOffset() != 0)
    printer << ", query_offset = " << getQueryOffset();
  if (getKeyOffset() != 0)
    printer << ", key_offset = " << getKeyOffset();
  printer << ">";
}

LogicalResult
RopeEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         RopeLayout, std::optional<int64_t> rotaryDim,
                         bool rotateKey, int64_t queryOffset,
                         int64_t keyOffset) {
  if (rotaryDim && (*rotaryDim <= 0 || *rotaryDim % 2 != 0))
    return emitError() << "expects an even, positive rotary_dim, got "
                       << *rotaryDim;
  if (queryOffset < 0 || keyOffset < 0)
    return emitError() << "expects non-negative rope offsets, got "
                       << queryOffset << " and " << keyOffset;
  if (!rotateKey && keyOffset != 0)
    return emitError() << "expects no key_offset with query_only";
  return success();
}

Attribute AlibiEncodingAttr::parse(AsmParser &parser, Type) {
  StringRef distanceName;
  SMLoc distanceLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&distanceName))
    return {};
  std::optional<AlibiDistance> distance = symbolizeAlibiDistance(distanceName);
  if (!distance) {
    parser.emitError(distanceLoc,
                     "expected 'symmetric', 'signed' or 'key', got '")
        << distanceName << "'";
    return {};
  }
  double maxBias = 8.0;
  int64_t queryOffset = 0;
  if (parseEncodingItems(
          parser, "alibi encoding",
          [&](StringRef key, SMLoc loc) -> ParseResult {
            if (key == "max_bias")
              return failure(failed(parser.parseEqual()) ||
                             failed(parser.parseFloat(maxBias)));
            if (key == "query_offset")
              return failure(failed(parser.parseEqual()) ||
                             failed(parser.parseInteger(queryOffset)));
            return parser.emitError(loc, "unknown alibi encoding parameter '")
                   << key << "'";
          }))
    return {};
  return getChecked([&] { return parser.emitError(distanceLoc); },
                    parser.getContext(), *distance, APFloat(maxBias),
                    queryOffset);
}

void AlibiEncodingAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyAlibiDistance(getDistance());
  if (!getMaxBias().isExactlyValue(8.0)) {
    printer << ", max_bias = ";
    printer.printFloat(getMaxBias());
  }
  if (getQueryOffset() != 0)
    printer << ", query_offset = " << getQueryOffset();
  printer << ">";
}

LogicalResult
AlibiEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          AlibiDistance, APFloat maxBiasAttr,
                          int64_t queryOffset) {
  double maxBias = maxBiasAttr.convertToDouble();
  if (!(maxBias > 0.0) || !std::isfinite(maxBias))
    return emitError() << "expects max_bias to be positive and finite, got "
                       << fmt(maxBias);
  if (queryOffset < 0)
    return emitError() << "expects a non-negative query_offset, got "
                       << queryOffset;
  return success();
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

/// `staticOffset + c` when `dynamicOffset` is the constant `c` and the sum is
/// a non-negative int64; std::nullopt otherwise.
static std::optional<int64_t> foldOffset(Value dynamicOffset,
                                         int64_t staticOffset) {
  APInt c;
  if (!dynamicOffset || !matchPattern(dynamicOffset, m_ConstantInt(&c)))
    return std::nullopt;
  if (c.getSignificantBits() > 64)
    return std::nullopt;
  int64_t sum;
  if (llvm::AddOverflow(staticOffset, c.getSExtValue(), sum) || sum < 0)
    return std::nullopt;
  return sum;
}

/// `p0` when `positions` is a constant `[T]` or `[B, T]` tensor whose every
/// row is `p0, p0 + 1, ..., p0 + T - 1` with `p0 >= 0` (the positions of the
/// offset form at static offset `p0`); std::nullopt otherwise.
static std::optional<int64_t> matchArangePositions(Value positions) {
  DenseIntElementsAttr values;
  if (!positions || !matchPattern(positions, m_Constant(&values)))
    return std::nullopt;
  auto type = cast<RankedTensorType>(values.getType());
  int64_t seqLen = type.getDimSize(type.getRank() - 1);
  if (values.getNumElements() == 0 || seqLen == 0)
    return std::nullopt;
  int64_t first = 0, t = 0;
  for (auto [index, value] : llvm::enumerate(values.getValues<APInt>())) {
    int64_t p = value.getSExtValue();
    if (index == 0)
      first = p;
    int64_t expected;
    if (first < 0 || llvm::AddOverflow(first, t, expected) || p != expected)
      return std::nullopt;
    t = t + 1 == seqLen ? 0 : t + 1;
  }
  return first;
}

/// True when the rope positions `[first, first + seqLen)` lie inside a cache
/// of `rows` rows (always without a cache: `rows` std::nullopt), so that a
/// static offset reads what clamped positions read.
static bool ropePositionsFit(std::optional<int64_t> rows, int64_t first,
                             int64_t seqLen) {
  if (!rows || ShapedType::isDynamic(*rows))
    return true;
  int64_t end;
  return !ShapedType::isDynamic(seqLen) &&
         !llvm::AddOverflow(first, seqLen, end) && end <= *rows;
}

/// True when the constant float `v` is exactly 1.
static bool isConstantOne(Value v) {
  APFloat c(0.0);
  return v && matchPattern(v, m_ConstantFloat(&c)) && c.isExactlyValue(1.0);
}

namespace {
/// A sequence op's constant `offset` operand becomes part of `static_offset`,
/// unless the positions it then reads statically fall outside a table (the
/// verifier's error; a run-time offset is clamped instead).
template <typename OpTy> struct FoldConstantOffset : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> offset =
        foldOffset(op.getOffset(), static_cast<int64_t>(op.getStaticOffset()));
    if (!offset)
      return failure();
    if (std::optional<int64_t> rows = getTableRows(op)) {
      auto type = cast<RankedTensorType>(op->getOperand(0).getType());
      int64_t seqDim = type.getRank() - 2;
      if (auto rope = dyn_cast<RopeOp>(op.getOperation()))
        seqDim = rope.getSequenceDimOrDefault();
      int64_t seqLen = type.getDimSize(seqDim);
      int64_t end;
      if (!ShapedType::isDynamic(*rows) &&
          (ShapedType::isDynamic(seqLen) ||
           llvm::AddOverflow(*offset, seqLen, end) || end > *rows))
        return failure();
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.getOffsetMutable().clear();
      op.setStaticOffset(*offset);
    });
    return success();
  }

  static std::optional<int64_t> getTableRows(Operation *op) {
    if (auto learned = dyn_cast<AddLearnedOp>(op))
      return learned.getTable().getType().getDimSize(0);
    if (auto rope = dyn_cast<RopeOp>(op))
      if (Value cos = rope.getCosCache())
        return cast<RankedTensorType>(cos.getType()).getDimSize(0);
    return std::nullopt;
  }
};

/// pe.rope's constant attention scaling of exactly 1 is dropped.
struct DropUnitRopeScaling : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantOne(op.getAttentionScaling()))
      return failure();
    rewriter.modifyOpInPlace(op,
                             [&] { op.getAttentionScalingMutable().clear(); });
    return success();
  }
};

/// A pe.rope whose positions tensor is a constant arange `p0 + t` takes
/// `static_offset = p0` instead (where a cache holds those rows).
struct FoldArangeRopePositions : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> first = matchArangePositions(op.getPositions());
    if (!first)
      return failure();
    std::optional<int64_t> rows;
    if (Value cos = op.getCosCache())
      rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
    if (!ropePositionsFit(
            rows, *first,
            op.getInput().getType().getDimSize(op.getSequenceDimOrDefault())))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getPositionsMutable().clear();
      op.setStaticOffset(*first);
    });
    return success();
  }
};

/// A pe.attention's constant arange query_positions / key_positions
/// (`p0 + i`) become static offsets of its rope encoding (where a cache
/// holds those rows).
struct FoldArangeAttentionPositions : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RopeEncodingAttr rope = op.getRopeAttr();
    if (!rope)
      return failure();
    std::optional<int64_t> rows;
    if (Value cos = op.getCosCache())
      rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
    auto fold = [&](Value positions, Value operand) -> std::optional<int64_t> {
      std::optional<int64_t> first = matchArangePositions(positions);
      if (!first || !ropePositionsFit(rows, *first,
                                      cast<RankedTensorType>(operand.getType())
                                          .getDimSize(op.getSequenceAxis())))
        return std::nullopt;
      return first;
    };
    std::optional<int64_t> q = fold(op.getQueryPositions(), op.getQuery());
    std::optional<int64_t> k = fold(op.getKeyPositions(), op.getKey());
    if (!q && !k)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (q)
        op.getQueryPositionsMutable().clear();
      if (k)
        op.getKeyPositionsMutable().clear();
      op.setRopeAttr(RopeEncodingAttr::get(
          op.getContext(), rope.getLayout(), rope.getRotaryDim(),
          rope.getRotateKey(), q.value_or(rope.getQueryOffset()),
          k.value_or(rope.getKeyOffset())));
    });
    return success();
  }
};

/// Constant dynamic offsets of a pe.attention's encodings move into the
/// encoding attributes; a constant attention scaling of 1 is dropped.
struct CanonicalizeAttentionEncodings : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RopeEncodingAttr rope = op.getRopeAttr();
    AlibiEncodingAttr alibi = op.getAlibiAttr();
    std::optional<int64_t> q, k, a;
    if (rope) {
      q = foldOffset(op.getQueryOffset(), rope.getQueryOffset());
      k = foldOffset(op.getKeyOffset(), rope.getKeyOffset());
      // As for pe.rope: an offset stays dynamic (clamped at run time) where
      // the static positions would read outside a cache (a verifier error).
      if (Value cos = op.getCosCache()) {
        int64_t rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
        auto fits = [&](std::optional<int64_t> first, Value operand) {
          int64_t seqLen = cast<RankedTensorType>(operand.getType())
                               .getDimSize(op.getSequenceAxis());
          int64_t end;
          return ShapedType::isDynamic(rows) ||
                 (!ShapedType::isDynamic(seqLen) &&
                  !llvm::AddOverflow(*first, seqLen, end) && end <= rows);
        };
        if (q && !fits(q, op.getQuery()))
          q.reset();
        if (k && !fits(k, op.getKey()))
          k.reset();
      }
    }
    if (alibi)
      a = foldOffset(op.getAlibiOffset(), alibi.getQueryOffset());
    bool unitScaling = isConstantOne(op.getAttentionScaling());
    if (!q && !k && !a && !unitScaling)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (q || k) {
        if (q)
          op.getQueryOffsetMutable().clear();
        if (k)
          op.getKeyOffsetMutable().clear();
        op.setRopeAttr(RopeEncodingAttr::get(
            op.getContext(), rope.getLayout(), rope.getRotaryDim(),
            rope.getRotateKey(), q.value_or(rope.getQueryOffset()),
            k.value_or(rope.getKeyOffset())));
      }
      if (a) {
        op.getAlibiOffsetMutable().clear();
        op.setAlibiAttr(AlibiEncodingAttr::get(
            op.getContext(), alibi.getDistance(), alibi.getMaxBias(), *a));
      }
      if (unitScaling)
        op.getAttentionScalingMutable().clear();
    });
    return success();
  }
};
} // namespace

void AddSinusoidalOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConstantOffset<AddSinusoidalOp>>(context);
}

void AddLearnedOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<FoldConstantOffset<AddLearnedOp>>(context);
}

void RopeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldConstantOffset<RopeOp>, DropUnitRopeScaling,
              FoldArangeRopePositions>(context);
}

void AlibiBiasOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldConstantOffset<AlibiBiasOp>>(context);
}

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<CanonicalizeAttentionEncodings, FoldArangeAttentionPositions>(
      context);
}

#define GET_OP_CLASSES
#include "pe/Dialect/PE/IR/PEOps.cpp.inc"
