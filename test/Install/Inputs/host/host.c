/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A C host linked with libPEMLIR.so alone (build.sh: `cc host.c $(pkg-config
   --cflags --libs pe-mlir)`): MLIR's C API and pe's from one library, a
   textual pipeline that mixes upstream and pe passes, and an option error
   that reaches the callback. */

#include "pe-c/Dialects.h"
#include "pe-c/Passes.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Transforms.h"

#include <stdio.h>
#include <string.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static MlirWalkResult countLLVMFuncs(MlirOperation op, void *userData) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("llvm.func")))
    ++*(int *)userData;
  return MlirWalkResultAdvance;
}

static const char *kModule =
    "func.func @rope(%x: tensor<1x2x16x64xf32>, %f: tensor<32xf32>)\n"
    "    -> tensor<1x2x16x64xf32> {\n"
    "  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>)\n"
    "      : tensor<1x2x16x64xf32>\n"
    "  return %0 : tensor<1x2x16x64xf32>\n"
    "}\n";

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirPERegisterPipelineDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);

  /* Upstream passes and pe's in one textual pipeline. */
  mlirRegisterTransformsPasses();
  mlirPERegisterAllPasses();
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "host: the module does not parse\n");
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  const char *pipeline =
      "builtin.module(canonicalize,cse,pe-cpu-pipeline{threads=2})";
  if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString(pipeline), print, NULL))) {
    fprintf(stderr, "host: the pipeline does not parse\n");
    return 1;
  }
  printf("host: pipeline ");
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(pm), print, NULL);
  printf("\n");
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "host: the pipeline failed\n");
    return 1;
  }
  int funcs = 0;
  mlirOperationWalk(mlirModuleGetOperation(module), countLLVMFuncs, &funcs,
                    MlirWalkPreOrder);
  printf("host: lowered to %d llvm.func\n", funcs);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* A bad option's message reaches the callback. */
  pm = mlirPassManagerCreate(ctx);
  printf("host: bad option: ");
  if (mlirLogicalResultIsSuccess(mlirPEAddCPUPipeline(
          mlirPassManagerGetAsOpPassManager(pm),
          mlirStringRefCreateFromCString("threads=four"), print, NULL)))
    return 1;
  printf("\n");
  mlirPassManagerDestroy(pm);
  mlirContextDestroy(ctx);
  return 0;
}
