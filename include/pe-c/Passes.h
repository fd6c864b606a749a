/*===- pe-c/Passes.h - C API for the pe passes and pipelines ------*- C -*-===*\
|*                                                                            *|
|* Part of the pe-mlir project.                                               *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
|* Constructors and registration of every pe pass (generated, as upstream's   *|
|* mlir-c/Transforms.h), and the pipelines added to a pass manager with       *|
|* options.                                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PE_C_PASSES_H
#define PE_C_PASSES_H

#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

/* mlirCreatePE<Pass>() / mlirRegisterPE<Pass>() for pe-fold-frequencies,
   pe-fuse-*, pe-fold-attention-scaling; mlirRegisterPEPasses(). */
#include "pe-c/PETransformsPasses.capi.h.inc"
/* mlirCreatePEConversion<Pass>() for convert-pe-to-linalg,
   convert-pe-to-vector, pe-approximate-math; mlirRegisterPEConversionPasses().
 */
#include "pe-c/PEConversionPasses.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every pe pass and the named pipelines (pe-cpu-pipeline,
/// pe-reference-pipeline) with the global registry, so that textual
/// pipelines (mlirParsePassPipeline) can name them. Not needed for
/// mlirPEAddCPUPipeline / mlirPEAddReferencePipeline.
MLIR_CAPI_EXPORTED void mlirPERegisterAllPasses(void);

/// Appends pe-cpu-pipeline to `pm`, configured by `options` in the textual
/// form of its options (`"threads=4 fuse=false"`; empty for the defaults:
/// fuse, absolute-pe-row-tile, approximate-math, openmp, threads). On a
/// malformed option string (an unknown option, a value that does not parse),
/// nothing is added, the result is a failure and the parser's messages go to
/// `errorCallback` (if not null) as lines that start with the pipeline's
/// name (`"pe-cpu-pipeline: for the --threads option: 'four' value invalid
/// for uint argument!"`), not to standard error. (LLVM's option parser writes
/// a bad value's message to standard error; the file descriptor is redirected
/// while the options are parsed, calls are serialized.)
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirPEAddCPUPipeline(MlirOpPassManager pm, MlirStringRef options,
                     MlirStringCallback errorCallback, void *userData);

/// Appends pe-gpu-pipeline to `pm`, configured by `options` in the textual
/// form of its options (`"target=spirv"`, `"target=nvvm chip=sm_90"`; empty
/// for the defaults), with the same error handling as mlirPEAddCPUPipeline.
/// The context needs mlirPERegisterGPUPipelineDialects.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirPEAddGPUPipeline(MlirOpPassManager pm, MlirStringRef options,
                     MlirStringCallback errorCallback, void *userData);

/// Appends pe-reference-pipeline (it has no options) to `pm`.
MLIR_CAPI_EXPORTED void mlirPEAddReferencePipeline(MlirOpPassManager pm);

/// Appends pe-shard-pipeline (a module with shard annotations to the LLVM
/// dialect program of one MPI rank) to `pm`, configured by `options` in the
/// textual form of its options (`"openmp=true mpi-implementation=MPICH"`;
/// empty for the defaults). Errors as for mlirPEAddCPUPipeline.
MLIR_CAPI_EXPORTED MlirLogicalResult
mlirPEAddShardPipeline(MlirOpPassManager pm, MlirStringRef options,
                       MlirStringCallback errorCallback, void *userData);

#ifdef __cplusplus
}
#endif

#endif // PE_C_PASSES_H
