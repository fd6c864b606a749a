/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A C host that is not linked with pe-mlir: it dlopens libPEMLIR.so (the
   path is its argument), looks the C API up by name and runs
   pe-reference-pipeline on a module. Built with the headers only
   (build.sh: `cc dlopen.c $(pkg-config --cflags pe-mlir) -ldl`). */

#include "pe-c/Dialects.h"
#include "pe-c/Passes.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The functions used, as pointers named after them. */
#define PE_FUNCTIONS(X)                                                        \
  X(mlirContextCreate)                                                         \
  X(mlirContextDestroy)                                                        \
  X(mlirContextAppendDialectRegistry)                                          \
  X(mlirDialectRegistryCreate)                                                 \
  X(mlirDialectRegistryDestroy)                                                \
  X(mlirPERegisterPipelineDialects)                                            \
  X(mlirModuleCreateParse)                                                     \
  X(mlirModuleGetOperation)                                                    \
  X(mlirModuleDestroy)                                                         \
  X(mlirPassManagerCreate)                                                     \
  X(mlirPassManagerDestroy)                                                    \
  X(mlirPassManagerGetAsOpPassManager)                                         \
  X(mlirPassManagerRunOnOp)                                                    \
  X(mlirPEAddReferencePipeline)                                                \
  X(mlirPEAlibiEncodingAttrGet)                                                \
  X(mlirAttributePrint)

#define DECLARE(name) static __typeof__(&name) p_##name;
PE_FUNCTIONS(DECLARE)

static void print(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/libPEMLIR.so\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
#define LOOKUP(name)                                                           \
  p_##name = (__typeof__(&name))dlsym(lib, #name);                             \
  if (!p_##name) {                                                             \
    fprintf(stderr, "dlsym %s: %s\n", #name, dlerror());                       \
    return 1;                                                                  \
  }
  PE_FUNCTIONS(LOOKUP)

  MlirContext ctx = p_mlirContextCreate();
  MlirDialectRegistry registry = p_mlirDialectRegistryCreate();
  p_mlirPERegisterPipelineDialects(registry);
  p_mlirContextAppendDialectRegistry(ctx, registry);
  p_mlirDialectRegistryDestroy(registry);

  printf("dlopen host: ");
  p_mlirAttributePrint(
      p_mlirPEAlibiEncodingAttrGet(ctx, MlirPEAlibiDistanceSigned, 8.0, 0),
      print, NULL);
  printf("\n");

  static const char *kModule =
      "func.func @f(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {\n"
      "  %0 = pe.add_sinusoidal concat %x : tensor<2x16x64xf32>\n"
      "  return %0 : tensor<2x16x64xf32>\n"
      "}\n";
  MlirModule module = p_mlirModuleCreateParse(
      ctx, mlirStringRefCreate(kModule, strlen(kModule)));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = p_mlirPassManagerCreate(ctx);
  p_mlirPEAddReferencePipeline(p_mlirPassManagerGetAsOpPassManager(pm));
  if (mlirLogicalResultIsFailure(
          p_mlirPassManagerRunOnOp(pm, p_mlirModuleGetOperation(module))))
    return 1;
  printf("dlopen host: pe-reference-pipeline ran\n");
  p_mlirPassManagerDestroy(pm);
  p_mlirModuleDestroy(module);
  p_mlirContextDestroy(ctx);
  if (dlclose(lib) != 0) {
    fprintf(stderr, "dlclose: %s\n", dlerror());
    return 1;
  }
  return 0;
}
