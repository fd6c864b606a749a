//===- Passes.cpp - C API for the pe passes and pipelines -----------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "pe-c/Passes.h"

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

void mlirPERegisterAllPasses(void) { pe::registerAllPasses(); }

MlirLogicalResult mlirPEAddCPUPipeline(MlirOpPassManager pm,
                                       MlirStringRef options,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
  CPUPipelineOptions parsed;
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(parsed.parseFromString(unwrap(options), errors))) {
    if (errorCallback)
      errorCallback(wrap(StringRef(message)), userData);
    return mlirLogicalResultFailure();
  }
  buildCPUPipeline(*unwrap(pm), parsed);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult mlirPEAddGPUPipeline(MlirOpPassManager pm,
                                       MlirStringRef options,
                                       MlirStringCallback errorCallback,
                                       void *userData) {
  GPUPipelineOptions parsed;
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(parsed.parseFromString(unwrap(options), errors))) {
    if (errorCallback)
      errorCallback(wrap(StringRef(message)), userData);
    return mlirLogicalResultFailure();
  }
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
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(parsed.parseFromString(unwrap(options), errors))) {
    if (errorCallback)
      errorCallback(wrap(StringRef(message)), userData);
    return mlirLogicalResultFailure();
  }
  buildShardPipeline(*unwrap(pm), parsed);
  return mlirLogicalResultSuccess();
}
