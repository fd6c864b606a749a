//===- PEOpsUtils.h - helpers shared by the pe op families ------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The verification and canonicalization helpers that several op families
// share (PEEncodingOps.cpp, PEFrequencyOps.cpp, PEAttentionOps.cpp,
// PEAttrs.cpp); defined in PEOps.cpp. Internal to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_IR_PEOPSUTILS_H
#define PE_LIB_DIALECT_PE_IR_PEOPSUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <cstdio>
#include <optional>
#include <string>

namespace mlir {
namespace pe {
namespace detail {

/// Formats a dimension for diagnostics ("?" when dynamic).
inline std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// Formats a double for diagnostics the way a user writes it ("0.5", "1e+06").
inline std::string fmt(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

/// True when two dimensions may be equal at run time.
inline bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Bounds on what the verifiers accept where a folder or lowering does work
/// proportional to a static size at compile time (a frequency op's table,
/// the default ALiBi slopes, the sinusoidal channel tables), so that no
/// verified op can exhaust the compiler's memory or time.
constexpr int64_t kMaxFrequencyTableLength = int64_t(1) << 16;
constexpr int64_t kMaxAlibiHeads = int64_t(1) << 16;
constexpr int64_t kMaxSinusoidalChannels = int64_t(1) << 20;

/// Verifies the shape of the positions tensor `positions` (the operand
/// `name`) of the tokens of `input` along `seqDim`: `[T]`, or `[B, T]` with
/// `B` the input's dimension 0.
LogicalResult verifyPositionsShape(Operation *op, StringRef name,
                                   RankedTensorType input, Value positions,
                                   int64_t seqDim);

/// Verifies the position operands shared by the ops that encode a token
/// sequence `input : [..., T, C]`. `tableRows`, when given, is the row count
/// of a position-indexed table, checked against statically known positions.
LogicalResult verifyPositionArgs(Operation *op, RankedTensorType input,
                                 Value offset, Value positions,
                                 int64_t staticOffset,
                                 std::optional<int64_t> tableRows,
                                 int64_t seqDim = -1);

/// Verifies the `[..., T, C]` input of a sequence op.
LogicalResult verifySequenceInput(Operation *op, RankedTensorType type,
                                  StringRef what);

/// Verifies that `v`, the attribute `name`, is positive and finite.
LogicalResult verifyPositive(Operation *op, StringRef name, double v);

/// Verifies a rotary dimension and the frequency source shared by pe.rope
/// and pe.attention's rope encoding; returns the cache rows in `tableRows`.
LogicalResult verifyRopeFrequencies(Operation *op, int64_t headDim,
                                    int64_t rotary, bool rotaryIsHeadDim,
                                    TypedValue<RankedTensorType> invFreq,
                                    TypedValue<RankedTensorType> cosCache,
                                    TypedValue<RankedTensorType> sinCache,
                                    std::optional<int64_t> &tableRows);

/// `staticOffset + c` when `dynamicOffset` is the constant `c` and the sum is
/// a non-negative int64; std::nullopt otherwise.
std::optional<int64_t> foldOffset(Value dynamicOffset, int64_t staticOffset);

/// `p0` when `positions` is a constant `[T]` or `[B, T]` tensor whose every
/// row is `p0, p0 + 1, ..., p0 + T - 1` with `p0 >= 0` (the positions of the
/// offset form at static offset `p0`); std::nullopt otherwise.
std::optional<int64_t> matchArangePositions(Value positions);

/// True when the rope positions `[first, first + seqLen)` lie inside a cache
/// of `rows` rows (always without a cache: `rows` std::nullopt), so that a
/// static offset reads what clamped positions read.
bool ropePositionsFit(std::optional<int64_t> rows, int64_t first,
                      int64_t seqLen);

/// True when the constant float `v` is exactly 1.
bool isConstantOne(Value v);

} // namespace detail
} // namespace pe
} // namespace mlir

#endif // PE_LIB_DIALECT_PE_IR_PEOPSUTILS_H
