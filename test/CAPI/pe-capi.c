/*===- pe-capi.c - a C host of the pe dialect, passes and pipelines -------===*\
|*                                                                            *|
|* Part of the pe-mlir project.                                               *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: pe-capi-test 2>%t.stderr | FileCheck %s
// The option parsers' messages reach the callback only:
// RUN: FileCheck %s --check-prefix=STDERR --allow-empty < %t.stderr
// STDERR-NOT: option
// STDERR-NOT: argument

#include "pe-c/Dialects.h"
#include "pe-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void printAttr(MlirAttribute attr) {
  mlirAttributePrint(attr, printToStdout, NULL);
  printf("\n");
}

static void check(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    exit(1);
  }
}

static const char *kModule =
    "func.func @block(%q: tensor<1x4x32x64xf32>, %k: tensor<1x2x32x64xf32>,\n"
    "                 %v: tensor<1x2x32x64xf32>) -> tensor<1x4x32x64xf32> {\n"
    "  %init = tensor.empty() : tensor<1x4x32x64xf32>\n"
    "  %o = pe.attention %q, %k, %v outs(%init : tensor<1x4x32x64xf32>)\n"
    "      {causal} : tensor<1x4x32x64xf32>,\n"
    "      tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32>\n"
    "      -> tensor<1x4x32x64xf32>\n"
    "  return %o : tensor<1x4x32x64xf32>\n"
    "}\n";

static const char *kSharded =
    "shard.grid @grid(shape = 2) {sym_visibility = \"private\"}\n"
    "func.func @seq(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {\n"
    "  %s = shard.sharding @grid split_axes = [[], [], [0]] : "
    "!shard.sharding\n"
    "  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>\n"
    "  %y = pe.add_sinusoidal interleaved %xs : tensor<1x2x8x8xf32>\n"
    "  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>\n"
    "  return %ys : tensor<1x2x8x8xf32>\n"
    "}\n";

/* What the lowered module holds: pe ops, omp.parallel, llvm.func names. */
static MlirWalkResult summarize(MlirOperation op, void *userData) {
  int *peOps = (int *)userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length > 3 && strncmp(name.data, "pe.", 3) == 0)
    ++*peOps;
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("omp.parallel")))
    printf("omp.parallel\n");
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("gpu.binary")))
    printf("gpu.binary\n");
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("llvm.func"))) {
    MlirAttribute symName = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    MlirStringRef fn = mlirStringAttrGetValue(symName);
    printf("llvm.func @%.*s\n", (int)fn.length, fn.data);
  }
  return MlirWalkResultAdvance;
}

/* Finds the first pe.attention under the walked op. */
static MlirWalkResult findAttention(MlirOperation op, void *userData) {
  MlirIdentifier name = mlirOperationGetName(op);
  if (mlirStringRefEqual(mlirIdentifierStr(name),
                         mlirStringRefCreateFromCString("pe.attention"))) {
    *(MlirOperation *)userData = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

// main() first prints the loaded dialect.
// CHECK: pe dialect: pe

// CHECK-LABEL: attributes
static void testAttributes(MlirContext ctx) {
  printf("attributes\n");
  MlirAttribute rope =
      mlirPERopeEncodingAttrGet(ctx, MlirPERopeLayoutHalf, 32, false, 7, 0);
  check(mlirAttributeIsAPERopeEncoding(rope), "rope encoding");
  // CHECK: #pe.rope<half, rotary_dim = 32, query_only, query_offset = 7>
  printAttr(rope);
  // CHECK: layout=1 rotary_dim=32 rotate_key=0 query_offset=7 key_offset=0
  printf("layout=%d rotary_dim=%lld rotate_key=%d query_offset=%lld "
         "key_offset=%lld\n",
         (int)mlirPERopeEncodingAttrGetLayout(rope),
         (long long)mlirPERopeEncodingAttrGetRotaryDim(rope),
         (int)mlirPERopeEncodingAttrGetRotateKey(rope),
         (long long)mlirPERopeEncodingAttrGetQueryOffset(rope),
         (long long)mlirPERopeEncodingAttrGetKeyOffset(rope));
  // CHECK: #pe.rope<interleaved>
  printAttr(mlirPERopeEncodingAttrGet(ctx, MlirPERopeLayoutInterleaved, -1,
                                      true, 0, 0));

  MlirAttribute alibi =
      mlirPEAlibiEncodingAttrGet(ctx, MlirPEAlibiDistanceKey, 4.0, 3);
  check(mlirAttributeIsAPEAlibiEncoding(alibi), "alibi encoding");
  check(!mlirAttributeIsAPERopeEncoding(alibi), "alibi is not rope");
  // CHECK: #pe.alibi<key, max_bias = 4.000000e+00, query_offset = 3>
  printAttr(alibi);
  // CHECK: distance=2 max_bias=4 query_offset=3
  printf("distance=%d max_bias=%g query_offset=%lld\n",
         (int)mlirPEAlibiEncodingAttrGetDistance(alibi),
         mlirPEAlibiEncodingAttrGetMaxBias(alibi),
         (long long)mlirPEAlibiEncodingAttrGetQueryOffset(alibi));

  MlirAttribute layout =
      mlirPESinusoidalLayoutAttrGet(ctx, MlirPESinusoidalLayoutConcat);
  // CHECK: #pe<sinusoidal_layout concat>
  printAttr(layout);
  check(mlirPESinusoidalLayoutAttrGetValue(layout) ==
            MlirPESinusoidalLayoutConcat,
        "sinusoidal layout value");
  // CHECK: #pe<rope_layout half>
  printAttr(mlirPERopeLayoutAttrGet(ctx, MlirPERopeLayoutHalf));
  // CHECK: #pe<alibi_distance signed>
  printAttr(mlirPEAlibiDistanceAttrGet(ctx, MlirPEAlibiDistanceSigned));
  // CHECK: #pe<softcap_order after_bias>
  printAttr(mlirPESoftcapOrderAttrGet(ctx, MlirPESoftcapOrderAfterBias));
  MlirAttribute alignment =
      mlirPECausalAlignmentAttrGet(ctx, MlirPECausalAlignmentTopLeft);
  // CHECK: #pe<causal_alignment top_left>
  printAttr(alignment);
  check(mlirAttributeIsAPECausalAlignment(alignment) &&
            !mlirAttributeIsAPESoftcapOrder(alignment),
        "enum attribute kinds");
}

// CHECK-LABEL: pipeline
static void testPipeline(MlirContext ctx) {
  printf("pipeline\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  check(!mlirModuleIsNull(module), "parse");
  MlirOperation moduleOp = mlirModuleGetOperation(module);

  /* A frontend attaches an encoding to an attention it built. */
  MlirOperation attention = {NULL};
  mlirOperationWalk(moduleOp, findAttention, &attention, MlirWalkPreOrder);
  check(!mlirOperationIsNull(attention), "find pe.attention");
  mlirOperationSetInherentAttributeByName(
      attention, mlirStringRefCreateFromCString("alibi"),
      mlirPEAlibiEncodingAttrGet(ctx, MlirPEAlibiDistanceSymmetric, 8.0, 0));
  check(mlirOperationVerify(moduleOp), "verify");
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} alibi <symmetric>
  // CHECK-SAME: outs(%{{.*}} : tensor<1x4x32x64xf32>) {causal}
  mlirOperationPrint(attention, printToStdout, NULL);
  printf("\n");

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);

  /* A library names the CPU target (pe-opt and pe-run default to the
     host). */
  check(mlirLogicalResultIsSuccess(mlirPEAddCPUPipeline(
            opm,
            mlirStringRefCreateFromCString(
                "threads=2 triple=x86_64-unknown-linux-gnu cpu=x86-64-v4"),
            printToStdout, NULL)),
        "add pe-cpu-pipeline");
  // CHECK: {{(any|builtin.module)}}(pe-insert-runtime-checks,
  // CHECK-SAME: pe-fold-frequencies,
  // CHECK-SAME: pe-fuse-encodings-into-attention
  // CHECK-SAME: convert-pe-to-vector
  // CHECK-SAME: convert-scf-to-openmp{num-threads=2}
  // CHECK-SAME: reconcile-unrealized-casts)
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(pm), printToStdout,
                        NULL);
  printf("\n");
  check(mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, moduleOp)),
        "run pe-cpu-pipeline");
  // CHECK: llvm.func @block
  // CHECK: omp.parallel
  // CHECK: pe ops left: 0
  int peOps = 0;
  mlirOperationWalk(moduleOp, summarize, &peOps, MlirWalkPreOrder);
  printf("pe ops left: %d\n", peOps);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* The reference pipeline and a single pass through its C constructor. */
  module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, mlirCreatePEFoldFrequencies());
  mlirPEAddReferencePipeline(mlirPassManagerGetAsOpPassManager(pm));
  check(mlirLogicalResultIsSuccess(
            mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))),
        "run pe-reference-pipeline");
  // CHECK: reference pipeline: lowered
  printf("reference pipeline: lowered\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);

  /* pe-shard-pipeline on a module with shard annotations. */
  module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kSharded));
  check(!mlirModuleIsNull(module), "parse the sharded module");
  pm = mlirPassManagerCreate(ctx);
  check(mlirLogicalResultIsSuccess(mlirPEAddShardPipeline(
            mlirPassManagerGetAsOpPassManager(pm),
            mlirStringRefCreateFromCString(
                "approximate-math=false triple=x86_64-unknown-linux-gnu"),
            printToStdout, NULL)),
        "add pe-shard-pipeline");
  check(mlirLogicalResultIsSuccess(
            mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))),
        "run pe-shard-pipeline");
  // CHECK: shard pipeline: lowered
  printf("shard pipeline: lowered\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

// CHECK-LABEL: gpu pipeline
static void testGPUPipeline(MlirContext ctx) {
  printf("gpu pipeline\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kModule));
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  check(mlirLogicalResultIsSuccess(mlirPEAddGPUPipeline(
            opm, mlirStringRefCreateFromCString("target=spirv key-tile=16"),
            printToStdout, NULL)),
        "add pe-gpu-pipeline");
  // CHECK: convert-pe-to-gpu{{.*}}key-tile=16
  // CHECK-SAME: convert-gpu-to-spirv
  mlirPrintPassPipeline(opm, printToStdout, NULL);
  printf("\n");
  check(mlirLogicalResultIsSuccess(
            mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))),
        "run pe-gpu-pipeline");
  // CHECK: llvm.func @block
  // CHECK: gpu.binary
  // CHECK: gpu pe ops left: 0
  int peOps = 0;
  mlirOperationWalk(mlirModuleGetOperation(module), summarize, &peOps,
                    MlirWalkPreOrder);
  printf("gpu pe ops left: %d\n", peOps);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

typedef MlirLogicalResult (*AddPipelineFn)(MlirOpPassManager, MlirStringRef,
                                           MlirStringCallback, void *);

/* Collects what the error callback gets, with the number of calls. */
typedef struct {
  char text[1024];
  size_t length;
  int calls;
} Collected;

static void collect(MlirStringRef text, void *userData) {
  Collected *c = (Collected *)userData;
  ++c->calls;
  size_t n = text.length;
  if (n > sizeof(c->text) - 1 - c->length)
    n = sizeof(c->text) - 1 - c->length;
  memcpy(c->text + c->length, text.data, n);
  c->length += n;
  c->text[c->length] = 0;
}

/* Adds a pipeline with bad options: it must fail, add nothing and hand its
   message to the callback (and not to standard error, see STDERR). */
static void expectRejected(MlirContext ctx, AddPipelineFn add,
                           const char *options) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  Collected c = {{0}, 0, 0};
  check(mlirLogicalResultIsFailure(
            add(opm, mlirStringRefCreateFromCString(options), collect, &c)),
        options);
  check(c.calls == 1, "one callback");
  printf("'%s': %s\n", options, c.text);
  /* Nothing was added; a null callback is fine. */
  mlirPrintPassPipeline(opm, printToStdout, NULL);
  printf("\n");
  check(mlirLogicalResultIsFailure(
            add(opm, mlirStringRefCreateFromCString(options), NULL, NULL)),
        "null callback");
  mlirPassManagerDestroy(pm);
}

// CHECK-LABEL: option errors
static void testOptionErrors(MlirContext ctx) {
  printf("option errors\n");
  // CHECK-NEXT: 'threads=four': pe-cpu-pipeline: for the --threads option:
  // CHECK-SAME: 'four' value invalid for uint argument!
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddCPUPipeline, "threads=four");
  // CHECK-NEXT: 'fuse=maybe': pe-cpu-pipeline: for the --fuse option:
  // CHECK-SAME: 'maybe' is invalid value for boolean argument! Try 0 or 1
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddCPUPipeline, "fuse=maybe");
  // CHECK-NEXT: 'vector-width=8': pe-cpu-pipeline: no such option vector-width
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddCPUPipeline, "vector-width=8");
  // CHECK-NEXT: 'target=rocdl': pe-gpu-pipeline: for the --target option:
  // CHECK-SAME: Cannot find option named 'rocdl'!
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddGPUPipeline, "target=rocdl");
  // CHECK-NEXT: 'key-tile=16x': pe-gpu-pipeline: for the --key-tile option:
  // CHECK-SAME: '16x' value invalid for long argument!
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddGPUPipeline, "key-tile=16x");
  // CHECK-NEXT: 'openmp=2': pe-shard-pipeline: for the --openmp option:
  // CHECK-SAME: '2' is invalid value for boolean argument! Try 0 or 1
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddShardPipeline, "openmp=2");
  // CHECK-NEXT: 'threads=-1': pe-shard-pipeline: for the --threads option:
  // CHECK-SAME: '-1' value invalid for uint argument!
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddShardPipeline, "threads=-1");
  // CHECK-NEXT: 'ranks=2': pe-shard-pipeline: no such option ranks
  // CHECK-NEXT: {{^(any|builtin.module)\(\)$}}
  expectRejected(ctx, mlirPEAddShardPipeline, "ranks=2");
}

// CHECK-LABEL: registered passes
static void testRegistration(MlirContext ctx) {
  printf("registered passes\n");
  mlirPERegisterAllPasses();
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  check(mlirLogicalResultIsSuccess(
            mlirParsePassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                  mlirStringRefCreateFromCString(
                                      "builtin.module(pe-reference-pipeline)"),
                                  printToStdout, NULL)),
        "parse a textual pipeline");
  // CHECK: {{(any|builtin.module)}}(pe-insert-runtime-checks,
  // CHECK-SAME: convert-pe-to-linalg,
  mlirPrintPassPipeline(mlirPassManagerGetAsOpPassManager(pm), printToStdout,
                        NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);
}

int main(void) {
  /* Diagnostics go to stderr: keep stdout in order with them. */
  setvbuf(stdout, NULL, _IONBF, 0);
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__pe__(), registry);
  mlirPERegisterGPUPipelineDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialect pe = mlirContextGetOrLoadDialect(
      ctx, mlirDialectHandleGetNamespace(mlirGetDialectHandle__pe__()));
  MlirStringRef ns = mlirDialectGetNamespace(pe);
  printf("pe dialect: %.*s\n", (int)ns.length, ns.data);

  testAttributes(ctx);
  testPipeline(ctx);
  testGPUPipeline(ctx);
  testOptionErrors(ctx);
  testRegistration(ctx);
  mlirContextDestroy(ctx);
  // CHECK: done
  printf("done\n");
  return 0;
}
