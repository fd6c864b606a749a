//===- PEOps.cpp - pe dialect operations ----------------------------------===//
//
// Part of the pe-mlir project.
//
// The helpers the op verifiers and canonicalization patterns of every op
// family share (PEOpsUtils.h), and the generated op class definitions. The
// ops themselves are implemented by family: PEEncodingOps.cpp (pe.rope,
// pe.add_sinusoidal, pe.add_learned, pe.alibi_bias), PEFrequencyOps.cpp (the
// frequency ops), PEAttentionOps.cpp (pe.attention), PEAttrs.cpp (the
// encoding attributes), PETiling.cpp (TilingInterface).
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "PEOpsUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

LogicalResult pe::detail::verifyPositionsShape(Operation *op, StringRef name,
                                               RankedTensorType input,
                                               Value positions,
                                               int64_t seqDim) {
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

LogicalResult pe::detail::verifyPositionArgs(
    Operation *op, RankedTensorType input, Value offset, Value positions,
    int64_t staticOffset, std::optional<int64_t> tableRows, int64_t seqDim) {
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

LogicalResult pe::detail::verifySequenceInput(Operation *op,
                                              RankedTensorType type,
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

LogicalResult pe::detail::verifyPositive(Operation *op, StringRef name,
                                         double v) {
  if (!(v > 0.0) || !std::isfinite(v))
    return op->emitOpError("expects ")
           << name << " to be positive and finite, got " << fmt(v);
  return success();
}

void mlir::pe::emitMissedRemark(Operation *op, StringRef category,
                                StringRef name, StringRef reason) {
  remark::missed(op->getLoc(),
                 remark::RemarkOpts::name(name).category(category))
      << remark::reason("{0}", reason.str());
}

//===----------------------------------------------------------------------===//
// Shared encoding helpers
//===----------------------------------------------------------------------===//

LogicalResult pe::detail::verifyRopeFrequencies(
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

//===----------------------------------------------------------------------===//
// Shared canonicalization helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> pe::detail::foldOffset(Value dynamicOffset,
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

std::optional<int64_t> pe::detail::matchArangePositions(Value positions) {
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

bool pe::detail::ropePositionsFit(std::optional<int64_t> rows, int64_t first,
                                  int64_t seqLen) {
  if (!rows || ShapedType::isDynamic(*rows))
    return true;
  int64_t end;
  return !ShapedType::isDynamic(seqLen) &&
         !llvm::AddOverflow(first, seqLen, end) && end <= *rows;
}

bool pe::detail::isConstantOne(Value v) {
  APFloat c(0.0);
  return v && matchPattern(v, m_ConstantFloat(&c)) && c.isExactlyValue(1.0);
}

#define GET_OP_CLASSES
#include "pe/Dialect/PE/IR/PEOps.cpp.inc"
