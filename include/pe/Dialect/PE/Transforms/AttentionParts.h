//===- AttentionParts.h - the pieces of a (fused) attention -----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_TRANSFORMS_ATTENTIONPARTS_H
#define PE_DIALECT_PE_TRANSFORMS_ATTENTIONPARTS_H

#include "pe/Dialect/PE/IR/PEOps.h"

namespace mlir {
namespace pe {

/// Every operand and attribute of a pe.attention or pe.fused_attention, as
/// plain fields. The fusion passes read an op into this form, add what they
/// absorb, and build a pe.fused_attention; the lowerings read a fused op.
struct AttentionParts {
  Value query, key, value;
  Value bias, mask; // pe.attention only: fusion never leaves them on a fused op
  // RoPE (set when `ropeLayout` is).
  std::optional<RopeLayout> ropeLayout;
  std::optional<int64_t> rotaryDim;
  Value invFreq, cosCache, sinCache, attentionScaling;
  bool ropeKey = false;
  Value qOffset, kOffset;
  int64_t qStaticOffset = 0, kStaticOffset = 0;
  // ALiBi (set when `alibi` is).
  std::optional<AlibiDistance> alibi;
  double alibiMaxBias = 8.0;
  Value alibiOffset;
  int64_t alibiStaticOffset = 0;
  // Attention proper.
  std::optional<double> scale, softcap;
  bool causal = false;
  SoftcapOrder softcapOrder = SoftcapOrder::BeforeBias;
  RankedTensorType resultType;

  static AttentionParts get(AttentionOp op);
  static AttentionParts get(FusedAttentionOp op);
  /// Reads either op kind; std::nullopt for any other op.
  static std::optional<AttentionParts> get(Operation *op);

  /// Takes the rotation of `rope` (layout, rotary dimension, frequencies,
  /// attention scaling) and its offsets as the query's.
  void setQueryRope(RopeOp rope);

  /// Builds the fused op. Requires `bias` and `mask` to be null.
  FusedAttentionOp buildFused(OpBuilder &b, Location loc) const;
};

} // namespace pe
} // namespace mlir

#endif // PE_DIALECT_PE_TRANSFORMS_ATTENTIONPARTS_H
