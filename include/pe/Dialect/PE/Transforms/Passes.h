//===- Passes.h - pe dialect transformations --------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_TRANSFORMS_PASSES_H
#define PE_DIALECT_PE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpBuilder;
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
/// The rewrite behind pe-fold-attention-layout: [0, 2, 1, 3] transposes of
/// a bhsd attention's query, key and value (and of its result) folded into
/// the bshd layout.
void populateFoldAttentionLayoutPatterns(RewritePatternSet &patterns);

/// The rewrites behind pe-raise: rotary embeddings computed in linalg IR
/// become pe.rope (with a frequency op where a constant table matches one).
void populateRaiseRopePatterns(RewritePatternSet &patterns,
                               const RaiseOptions &options = {});
/// Embeddings plus rows of a position table (x * s + table[p(t), c])
/// become pe.add_sinusoidal (a constant table holding the sinusoidal
/// encoding) or pe.add_learned.
void populateRaiseAbsoluteEncodingPatterns(RewritePatternSet &patterns,
                                           const RaiseOptions &options = {});
/// Softmax attention computed in linalg IR becomes pe.attention. Apply after
/// the rope patterns: rotated queries and keys must be pe.rope results by then.
void populateRaiseAttentionPatterns(RewritePatternSet &patterns,
                                    const RaiseOptions &options = {});

/// Replaces a frequency op whose operands are constants by the constants its
/// folder computes; fails (changing nothing) otherwise.
LogicalResult foldFrequencyOp(Operation *op, RewriterBase &rewriter);

/// The rewrite that realises the exact frequencies of pe.rope: a frequency op
/// whose f32 inv_freq result is used only as inv_freq operands of pe.rope or
/// pe.attention becomes a clone with an f64 inv_freq result. It does not fire
/// when any use is something else (every consumer then sees the same f32
/// table). Also a canonicalization pattern of the frequency ops.
void populateWidenRopeFrequenciesPatterns(RewritePatternSet &patterns);
/// Applies it (greedy, without folding, to the frequency ops only) in `root`;
/// pe-fold-frequencies and convert-pe-to-linalg start with this.
LogicalResult widenRopeFrequencies(Operation *root);

/// Inserts before `op` (a pe op) a `cf.assert` for each size relation of its
/// semantics that has a dynamic side (pe-insert-runtime-checks). Returns the
/// number of checks inserted.
unsigned insertRuntimeChecks(OpBuilder &builder, Operation *op);
/// Builds `cf.assert %condition` in front of `op` with the message
/// "<file>:<line>:<col>: '<op name>' op <what>", the form of every run-time
/// check of the pe passes.
void createRuntimeCheck(OpBuilder &builder, Operation *op, Value condition,
                        const Twine &what);

} // namespace pe
} // namespace mlir

#endif // PE_DIALECT_PE_TRANSFORMS_PASSES_H
