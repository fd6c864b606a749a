//===- Passes.h - shard to MPI passes ---------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// Passes and patterns that fill gaps of MLIR 22's shard -> mpi -> LLVM
// lowering (lib/Transforms/MPI); pe-shard-pipeline runs them.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_MPI_PASSES_H
#define PE_TRANSFORMS_MPI_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class SymbolTableCollection;
namespace pe {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pe/Transforms/MPI/Passes.h.inc"

/// The rewrites behind pe-lower-shard-collectives: shard.all_gather,
/// shard.all_to_all and shard.reduce_scatter on static shapes in terms of
/// shard.all_reduce and tensor slices (shard.all_slice is upstream's
/// populateAllSliceOpLoweringPatterns).
void populateLowerShardCollectivesPatterns(RewritePatternSet &patterns,
                                           SymbolTableCollection &symbolTable);

} // namespace pe
} // namespace mlir

#endif // PE_TRANSFORMS_MPI_PASSES_H
