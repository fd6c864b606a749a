//===- InitAllPE.h - register everything pe provides ------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_INITALLPE_H
#define PE_INITALLPE_H

#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace pe {

/// Registers the pe dialect.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<PEDialect>();
}

/// Registers every pe pass and named pipeline.
inline void registerAllPasses() {
  registerPEConversionPasses();
  registerPEPasses();
  registerPipelines();
}

} // namespace pe
} // namespace mlir

#endif // PE_INITALLPE_H
