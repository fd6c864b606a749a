//===- Passes.cpp - C API for the pe passes and pipelines -----------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "pe-c/Passes.h"

#include "PipelineOptions.h"

#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/InitAllPE.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::pe;

#include "pe-c/PEConversionPasses.capi.cpp.inc"
#include "pe-c/PETransformsPasses.capi.cpp.inc"

/// Parses the options of a pipeline; on failure, the parser's messages go to
/// `errorCallback` (when not null).
static LogicalResult parseOptions(detail::PassOptions &parsed,
                                  MlirStringRef options, StringRef pipeline,
                                  MlirStringCallback errorCallback,
                                  void *userData) {
  std::string message;
  if (succeeded(
          parsePipelineOptions(parsed, unwrap(options), pipeline, message)))
    return success();
  if (errorCallback)
    errorCallback(wrap(StringRef(message)), userData);
  return failure();
}

void mlirPERegisterAllPasses(void) { pe::registerAllPasses(); }

MlirLogicalResult mlirPEAddCPUPipeline(MlirOpPassManager pm,
                                       MlirStringRef options,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
  CPUPipelineOptions parsed;
  if (failed(parseOptions(parsed, options, "pe-cpu-pipeline", errorCallback,
                          userData)))
    return mlirLogicalResultFailure();
  buildCPUPipeline(*unwrap(pm), parsed);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult mlirPEAddGPUPipeline(MlirOpPassManager pm,
                                       MlirStringRef options,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
  GPUPipelineOptions parsed;
  if (failed(parseOptions(parsed, options, "pe-gpu-pipeline", errorCallback,
                          userData)))
    return mlirLogicalResultFailure();
  buildGPUPipeline(*unwrap(pm), parsed);
  return mlirLogicalResultSuccess();
}

void mlirPEAddReferencePipeline(MlirOpPassManager pm) {
  buildReferencePipeline(*unwrap(pm));
}

MlirLogicalResult mlirPEAddShardPipeline(MlirOpPassManager pm,
                                         MlirStringRef options,
                                         MlirStringCallback errorCallback,
                                         void *userData) {
  ShardPipelineOptions parsed;
  if (failed(parseOptions(parsed, options, "pe-shard-pipeline", errorCallback,
                          userData)))
    return mlirLogicalResultFailure();
  buildShardPipeline(*unwrap(pm), parsed);
  return mlirLogicalResultSuccess();
}
