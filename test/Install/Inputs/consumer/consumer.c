/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* Builds an encoding attribute and runs pe-reference-pipeline through the
   C API. */

#include "pe-c/Dialects.h"
#include "pe-c/Passes.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirPERegisterPipelineDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);

  printf("c consumer: ");
  mlirAttributePrint(
      mlirPEAlibiEncodingAttrGet(ctx, MlirPEAlibiDistanceSigned, 8.0, 0), print,
      NULL);
  printf("\n");

  MlirModule module = mlirModuleCreateParse(
      ctx,
      mlirStringRefCreateFromCString(
          "func.func @f(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {\n"
          "  %0 = pe.add_sinusoidal concat %x : tensor<2x16x64xf32>\n"
          "  return %0 : tensor<2x16x64xf32>\n"
          "}\n"));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPEAddReferencePipeline(mlirPassManagerGetAsOpPassManager(pm));
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 1;
  printf("c consumer: pe-reference-pipeline ran\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
