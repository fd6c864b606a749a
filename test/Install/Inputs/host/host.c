/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A C host linked with libPEMLIR.so alone (build.sh: `cc host.c $(pkg-config
   --cflags --libs pe-mlir)`): MLIR's C API and pe's from one library, a
   textual pipeline that mixes upstream and pe passes, an option error that
   reaches the callback, and a pe.add_sinusoidal JIT-compiled through
   pe-reference-pipeline and run on the input file X (raw f32, 2x16x64),
   writing OUT (shared-library.test compares it with the float64 reference).

   Usage: host X OUT */

#include "pe-c/Dialects.h"
#include "pe-c/Passes.h"

#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Transforms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The C interface of a ranked memref of rank 3 (llvm.emit_c_interface). */
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} MemRef3;

enum { kB = 2, kT = 16, kC = 64, kElements = kB * kT * kC };

static const char *kSinusoidal =
    "func.func @f(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32>\n"
    "    attributes {llvm.emit_c_interface} {\n"
    "  %0 = pe.add_sinusoidal concat %x : tensor<2x16x64xf32>\n"
    "  return %0 : tensor<2x16x64xf32>\n"
    "}\n";

/* Lowers kSinusoidal with pe-reference-pipeline, JIT-compiles it and runs it
   on `in`, writing `out`. */
static int runSinusoidal(MlirContext ctx, const float *in, float *out) {
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSinusoidal));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPEAddReferencePipeline(mlirPassManagerGetAsOpPassManager(pm));
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "host: pe-reference-pipeline failed\n");
    return 1;
  }
  mlirPassManagerDestroy(pm);
  MlirExecutionEngine jit = mlirExecutionEngineCreate(
      module, /*optLevel=*/2, 0, NULL, /*enableObjectDump=*/false,
      /*enablePIC=*/false);
  if (mlirExecutionEngineIsNull(jit)) {
    fprintf(stderr, "host: the JIT failed\n");
    return 1;
  }
  void (*f)(MemRef3 *, MemRef3 *) =
      (void (*)(MemRef3 *, MemRef3 *))(mlirExecutionEngineLookup(
          jit, mlirStringRefCreateFromCString("_mlir_ciface_f")));
  if (!f) {
    fprintf(stderr, "host: no _mlir_ciface_f\n");
    return 1;
  }
  MemRef3 x = {(float *)in, (float *)in, 0, {kB, kT, kC}, {kT * kC, kC, 1}};
  MemRef3 result;
  memset(&result, 0, sizeof(result));
  f(&result, &x);
  for (int b = 0; b < kB; ++b)
    for (int t = 0; t < kT; ++t)
      for (int c = 0; c < kC; ++c)
        out[(b * kT + t) * kC + c] =
            result.aligned[result.offset + b * result.strides[0] +
                           t * result.strides[1] + c * result.strides[2]];
  free(result.allocated);
  mlirExecutionEngineDestroy(jit);
  mlirModuleDestroy(module);
  return 0;
}

/* Reads or writes exactly kElements floats. */
static int transfer(const char *path, float *data, int write) {
  FILE *file = fopen(path, write ? "wb" : "rb");
  if (!file) {
    fprintf(stderr, "host: cannot open %s\n", path);
    return 1;
  }
  size_t n = write ? fwrite(data, sizeof(float), kElements, file)
                   : fread(data, sizeof(float), kElements, file);
  fclose(file);
  if (n != kElements) {
    fprintf(stderr, "host: %s: %zu of %d floats\n", path, n, kElements);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s X OUT\n", argv[0]);
    return 2;
  }
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
      "builtin.module(canonicalize,cse,pe-cpu-pipeline{threads=2 "
      "triple=x86_64-unknown-linux-gnu cpu=x86-64-v3})";
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

  /* Compile and run. */
  static float in[kElements], out[kElements];
  if (transfer(argv[1], in, 0) || runSinusoidal(ctx, in, out) ||
      transfer(argv[2], out, 1))
    return 1;
  printf("host: ran f on %s\n", argv[1]);
  mlirContextDestroy(ctx);
  return 0;
}
