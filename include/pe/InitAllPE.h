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
#include "pe/Dialect/PE/Transforms/ShardingInterfaceImpl.h"
#include "pe/Pipelines/Pipelines.h"
#include "pe/Transforms/GPU/Passes.h"
#include "pe/Transforms/MPI/Passes.h"
#include "pe/Transforms/Math/Passes.h"

#include "mlir/IR/DialectRegistry.h"

namespace mlir {
namespace pe {

/// Registers the pe dialect and its external interface models (the
/// ShardingInterface of its ops).
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<PEDialect>();
  registerShardingInterfaceExternalModels(registry);
}

/// Registers every pe pass and named pipeline.
inline void registerAllPasses() {
  registerPEConversionPasses();
  registerPEPasses();
  registerPEGPUTransformsPasses();
  registerPEMathTransformsPasses();
  registerPEMPITransformsPasses();
  registerPipelines();
}

} // namespace pe
} // namespace mlir

#endif // PE_INITALLPE_H
