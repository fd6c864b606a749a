//===- Pipelines.cpp - pe pass pipelines ----------------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Pipelines/Pipelines.h"
#include "pe/Conversion/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

/// Appends a textual pipeline (without a builtin.module wrapper) to `pm`.
/// The strings below are fixed, so a parse failure is a programming error.
static void addPipeline(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("pe: malformed built-in pipeline");
}

void mlir::pe::buildReferencePipeline(OpPassManager &pm) {
  pm.addPass(createConvertPEToLinalg());
  // Bufferize with identity layouts at function boundaries so that callers
  // (pe-run, C code) pass plain row-major descriptors, then free every
  // temporary; results stay owned by the caller.
  addPipeline(pm,
              "canonicalize,cse,"
              "one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map},"
              "canonicalize,cse,"
              "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
              "convert-linalg-to-loops,"
              "expand-strided-metadata,lower-affine,"
              // finalize-memref-to-llvm before convert-scf-to-cf (see
              // docs/PE.md: alloca_scope regions must still be structured).
              "finalize-memref-to-llvm,"
              "convert-scf-to-cf,convert-cf-to-llvm,"
              "convert-math-to-llvm,convert-math-to-libm,"
              "convert-arith-to-llvm,convert-index-to-llvm,"
              "convert-func-to-llvm,convert-ub-to-llvm,"
              "reconcile-unrealized-casts");
}

void mlir::pe::buildCPUPipeline(OpPassManager &pm) {
  // Compile-time folding and fusion.
  addPipeline(pm, "pe-fold-frequencies,canonicalize,"
                  "pe-fuse-encodings-into-attention,"
                  "pe-fold-attention-scaling,canonicalize");
  // Generated kernels for attention; everything else through the reference
  // lowering.
  addPipeline(pm, "convert-pe-to-vector,convert-pe-to-linalg,"
                  "pe-fuse-absolute-pe,"
                  "pe-approximate-math,canonicalize,cse");
  addPipeline(pm,
              "one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map},"
              "canonicalize,cse,"
              "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
              "convert-linalg-to-loops,"
              "convert-scf-to-openmp,"
              "convert-vector-to-scf{full-unroll=true},"
              "lower-affine,expand-strided-metadata,lower-affine,"
              "finalize-memref-to-llvm,"
              "convert-scf-to-cf,"
              "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
              "vector-transpose-lowering=shuffle16x16},"
              "convert-openmp-to-llvm,"
              "convert-math-to-llvm,convert-math-to-libm,"
              "convert-arith-to-llvm,convert-index-to-llvm,"
              "convert-func-to-llvm,convert-cf-to-llvm,convert-ub-to-llvm,"
              "reconcile-unrealized-casts");
}

void mlir::pe::registerPipelines() {
  PassPipelineRegistration<>(
      "pe-cpu-pipeline",
      "Fold and fuse the encodings, generate flash-attention kernels, and "
      "lower to the LLVM dialect for the host CPU (OpenMP-parallel, AVX-512 "
      "vectors)",
      [](OpPassManager &pm) { buildCPUPipeline(pm); });
  PassPipelineRegistration<>(
      "pe-reference-pipeline",
      "Lower pe ops on tensors to the LLVM dialect for the host through the "
      "unfused reference semantics (convert-pe-to-linalg, bufferization, "
      "scalar loops)",
      [](OpPassManager &pm) { buildReferencePipeline(pm); });
}
