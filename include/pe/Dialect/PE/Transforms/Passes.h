//===- Passes.h - pe dialect transformations --------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_TRANSFORMS_PASSES_H
#define PE_DIALECT_PE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class RewriterBase;
namespace pe {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pe/Dialect/PE/Transforms/Passes.h.inc"

/// The rewrite behind pe-fuse-alibi-into-attention.
void populateFuseAlibiIntoAttentionPatterns(RewritePatternSet &patterns);
/// The rewrite behind pe-fuse-rope-into-attention.
void populateFuseRopeIntoAttentionPatterns(RewritePatternSet &patterns);
/// Both of the above (pe-fuse-encodings-into-attention).
void populateFuseEncodingsIntoAttentionPatterns(RewritePatternSet &patterns);
/// The rewrite behind pe-fold-attention-scaling.
void populateFoldAttentionScalingPatterns(RewritePatternSet &patterns);

/// Replaces a frequency op whose operands are constants by the constants its
/// folder computes; fails (changing nothing) otherwise.
LogicalResult foldFrequencyOp(Operation *op, RewriterBase &rewriter);

} // namespace pe
} // namespace mlir

#endif // PE_DIALECT_PE_TRANSFORMS_PASSES_H
