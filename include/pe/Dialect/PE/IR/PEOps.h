//===- PEOps.h - pe dialect operations --------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_IR_PEOPS_H
#define PE_DIALECT_PE_IR_PEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include "pe/Dialect/PE/IR/PEDialect.h"

#include "pe/Dialect/PE/IR/PEEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pe/Dialect/PE/IR/PEAttrs.h.inc"

#include "pe/Dialect/PE/IR/PEInterfaces.h.inc"

namespace mlir {
namespace pe {

/// The position of the first token of a sequence: a static part and an
/// optional dynamic part (an index or integer value), added.
struct PositionOffset {
  int64_t staticOffset = 0;
  Value dynamicOffset;
};

/// What a RoPE rotates with: the pairing, the rotary dimension R and one
/// frequency source (`invFreq`, or the `cosCache`/`sinCache` pair), times an
/// optional attention scaling. Asked of a pe.rope or of a pe.attention's rope
/// encoding, so that a lowering treats both alike.
struct Rotation {
  RopeLayout layout;
  int64_t rotaryDim;
  Value invFreq, cosCache, sinCache, attentionScaling;
};

/// Reports that `op` stays on a slower path, and why, as an MLIR
/// missed-optimization remark named `name` in category `category` (the pass
/// that decided); `--remarks-filter=<regex>` of pe-opt and pe-run shows it.
void emitMissedRemark(Operation *op, StringRef category, StringRef name,
                      StringRef reason);

/// True for the frequency ops (the ops with FrequencyOpInterface).
bool isFrequencyOp(Operation *op);

/// True when `op` is a frequency op whose inv_freq result is f32, has uses,
/// and every use is the inv_freq operand of a pe.rope or of a pe.attention's
/// rope encoding. Those angles use the op's exact (f64) value, not the f32
/// rounding (PEOps.td), so the op's folder does not fold it to an f32
/// constant; the widening pattern gives it an f64 result instead.
bool needsWideRopeTable(Operation *op);

/// Adds the pattern that replaces an op with needsWideRopeTable by a clone
/// with an f64 inv_freq result (also a canonicalization pattern of every
/// frequency op; pe::populateWidenRopeFrequenciesPatterns adds it for hosts).
void addWidenRopeFrequencyTablePattern(RewritePatternSet &patterns);

} // namespace pe
} // namespace mlir

#define GET_OP_CLASSES
#include "pe/Dialect/PE/IR/PEOps.h.inc"

#endif // PE_DIALECT_PE_IR_PEOPS_H
