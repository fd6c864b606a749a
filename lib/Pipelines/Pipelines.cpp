//===- Pipelines.cpp - pe pass pipelines ----------------------------------===//
//
// Part of the pe-mlir project.
//
// Both pipelines are built from pass constructors, so they run in any host
// that links the libraries, whether or not it registered the passes.
// `pe-opt --pe-cpu-pipeline --dump-pass-pipeline` prints what they build
// (test/Pipelines/pipeline-structure.mlir checks it pass by pass).
//
//===----------------------------------------------------------------------===//

#include "pe/Pipelines/Pipelines.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/OptionRanges.h"
#include "pe/Transforms/GPU/Passes.h"
#include "pe/Transforms/Math/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/AllInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <limits>

using namespace mlir;

/// One-shot bufferization with identity layouts at function boundaries, so
/// that callers (pe-run, C code) pass plain row-major descriptors; then every
/// temporary is freed (results stay owned by the caller).
static void addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createConvertLinalgToLoopsPass());
}

void mlir::pe::addElementwiseToLinalg(OpPassManager &pm) {
  // Frontends (TOSA through tosa-to-arith, Buddy) leave arith and math ops on
  // whole tensors: as linalg.generic payloads they are scalars, which the
  // rest of the pipeline (approximations, fusion, bufferization) expects.
  pm.addPass(createConvertElementwiseToLinalgPass());
}

void mlir::pe::buildReferencePipeline(OpPassManager &pm,
                                      const ReferencePipelineOptions &options) {
  if (options.runtimeChecks)
    pm.addPass(createInsertRuntimeChecks());
  addElementwiseToLinalg(pm);
  pm.addPass(createConvertPEToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // finalize-memref-to-llvm before convert-scf-to-cf (see docs/PE.md:
  // alloca_scope regions must still be structured).
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::pe::buildReferencePipeline(OpPassManager &pm) {
  buildReferencePipeline(pm, ReferencePipelineOptions());
}

void mlir::pe::buildCPUPipeline(OpPassManager &pm,
                                const CPUPipelineOptions &options) {
  // The size relations of the program as written (the checks ask producers
  // for their sizes, so they do not keep fusion from firing).
  if (options.runtimeChecks)
    pm.addPass(createInsertRuntimeChecks());
  addElementwiseToLinalg(pm);
  // The target: the kernels read it, and the functions carry it to the LLVM
  // translation (the target-cpu and target-features of the code).
  AttachCPUTargetOptions target;
  target.triple = options.triple;
  target.cpu = options.cpu;
  target.features = options.features;
  pm.addPass(createAttachCPUTarget(target));
  // Compile-time folding and fusion.
  pm.addPass(createFoldFrequencies());
  pm.addPass(createCanonicalizerPass());
  if (options.fuse) {
    pm.addPass(createFuseEncodingsIntoAttention());
    pm.addPass(createFoldAttentionScaling());
    pm.addPass(createFoldAttentionLayout());
    // Absolute encodings into row tiles of their consumer contraction or
    // with their elementwise producer: the fused ops are pe tiles, lowered
    // below like any other.
    FuseAbsolutePEOptions absolute;
    absolute.rowTile = options.absolutePERowTile;
    pm.addPass(createFuseAbsolutePE(absolute));
  }
  pm.addPass(createCanonicalizerPass());

  // Generated kernels for attention, RoPE and sinusoidal PE; everything else
  // through the reference lowering.
  ConvertPEToVectorOptions kernels;
  kernels.decodePrefetchBytes = options.decodePrefetchBytes;
  kernels.decodePrefetchMinOps = options.decodePrefetchMinOps;
  kernels.decodePrefetchL2MinOps = options.decodePrefetchL2MinOps;
  kernels.stackScratchBytes = options.stackScratchBytes;
  pm.addPass(createConvertPEToVector(kernels));
  pm.addPass(createConvertPEToLinalg());
  if (options.approximateMath)
    pm.addPass(createApproximateMath());
  // Before the LLVM backend would call __truncsfbf2 per element.
  pm.addPass(createExpandBF16Conversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  addBufferization(pm);
  if (options.openmp) {
    ConvertSCFToOpenMPPassOptions openmp;
    openmp.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(openmp));
  }
  VectorTransferToSCFOptions vectorToSCF;
  vectorToSCF.enableFullUnroll(true);
  pm.addPass(createConvertVectorToSCFPass(vectorToSCF));
  pm.addPass(createLowerAffinePass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Without OpenMP, scf.parallel becomes sequential loops here.
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  // The bf16 attention kernel's dot products (x86vector.avx512.dot).
  vectorToLLVM.x86Vector = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  if (options.openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::pe::buildCPUPipeline(OpPassManager &pm) {
  buildCPUPipeline(pm, CPUPipelineOptions());
}

void mlir::pe::buildRaisePipeline(OpPassManager &pm,
                                  const RaisePipelineOptions &options) {
  // The tracer follows linalg payloads: tensor-level ops become payloads.
  addElementwiseToLinalg(pm);
  pe::RaiseOptions raise;
  raise.assumeDuplicatedTables = options.assumeDuplicatedTables;
  raise.recoverScaling = options.recoverScaling;
  raise.tolerance = options.tolerance;
  pm.addPass(createRaise(raise));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::pe::buildTosaToLinalgPipeline(OpPassManager &pm) {
  // Upstream tosa-to-linalg-pipeline's passes without its tosa-validate,
  // which rejects casts outside the TOSA profiles (i1 -> f32, i64 -> f32)
  // that frontends emit and tosa-to-linalg lowers; then the reshapes,
  // slices and concats (tosa-to-tensor) and the constants (tosa-to-arith).
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  pm.addPass(createTosaToTensorPass());
  pm.addPass(createTosaToArithPass());
}

void mlir::pe::registerPipelineDialects(DialectRegistry &registry) {
  registerShardPipelineDialects(registry);
  registry
      .insert<PEDialect, affine::AffineDialect, arith::ArithDialect,
              bufferization::BufferizationDialect, cf::ControlFlowDialect,
              func::FuncDialect, index::IndexDialect, LLVM::LLVMDialect,
              linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
              omp::OpenMPDialect, scf::SCFDialect, tensor::TensorDialect,
              ub::UBDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerAllDialectInterfaceImplementations(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  registerLaunchFuncMemoryEffectsModel(registry);
}

namespace {
using pe::checkIntegerOptionText;
using pe::IntegerOptionRange;

constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();

/// The integer options of each pipeline and their ranges (those of the
/// passes they configure; OpenMP's num_threads is an i32).
const IntegerOptionRange kCPUPipelineRanges[] = {
    {"absolute-pe-row-tile", 1, kMaxI64},
    {"threads", 0, kMaxI32, " (0: the OpenMP default)"},
    {"decode-prefetch-bytes", 0, kMaxI64, " (0: no prefetch)"},
    {"decode-prefetch-min-ops", 0, kMaxI64, " (0: every pass prefetches)"},
    {"decode-prefetch-l2-min-ops", 0, kMaxI64, " (0: every pass into the L2)"},
    {"stack-scratch-bytes", 0, kMaxI64, " (0: all scratch on the heap)"},
};
const IntegerOptionRange kGPUPipelineRanges[] = {
    {"block-rows", 1, 1024, " (threads per block)"},
    {"key-tile", 1, kMaxI32},
    {"decode-split-keys", 0, kMaxI32, " (0: no split)"},
    {"shared-memory-bytes", 0, kMaxI32, " (0: the target's default)"},
};

/// The integer option ranges of pipeline `name` (empty for none).
ArrayRef<IntegerOptionRange> pipelineRanges(StringRef name) {
  // pe-shard-pipeline has the CPU pipeline's options (CPUCodegenOptions).
  if (name == "pe-cpu-pipeline" || name == "pe-shard-pipeline")
    return kCPUPipelineRanges;
  if (name == "pe-gpu-pipeline")
    return kGPUPipelineRanges;
  return {};
}

/// Registers pipeline `arg` like PassPipelineRegistration<Options>, checking
/// the text of its integer options against pipelineRanges(arg) first: LLVM's
/// option parser reports a value the option's type cannot hold on stderr
/// without an `error:`, and knows no range; this reports both through the error
/// handler (`error: <pipeline>: <option> must be an integer in [lo, hi]`).
template <typename Options>
void registerCheckedPipeline(StringRef arg, StringRef description,
                             void (*build)(OpPassManager &, const Options &)) {
  ArrayRef<IntegerOptionRange> ranges = pipelineRanges(arg);
  registerPassPipeline(
      arg, description,
      [arg, ranges,
       build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        if (std::optional<std::string> error =
                checkIntegerOptionText(arg, text, ranges))
          return errorHandler(*error);
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        build(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}
} // namespace

std::optional<std::string> mlir::pe::checkPipelineOptions(StringRef pipeline,
                                                          StringRef options) {
  return checkIntegerOptionText(pipeline, options, pipelineRanges(pipeline));
}

void mlir::pe::registerPipelines() {
  registerCheckedPipeline<CPUPipelineOptions>(
      "pe-cpu-pipeline",
      "Fold and fuse the encodings, generate flash-attention kernels, and "
      "lower to the LLVM dialect for a CPU target (triple, cpu, features; "
      "the host by default in pe-opt and pe-run; OpenMP-parallel, vectors "
      "of the target's width)",
      buildCPUPipeline);
  registerCheckedPipeline<GPUPipelineOptions>(
      "pe-gpu-pipeline",
      "Fold and fuse the encodings, generate GPU kernels for attention and "
      "RoPE, and lower them to NVVM (PTX/cubin) or SPIR-V and the host code "
      "to the LLVM dialect (target=nvvm|spirv)",
      buildGPUPipeline);
  registerCheckedPipeline<ReferencePipelineOptions>(
      "pe-reference-pipeline",
      "Lower pe ops on tensors to the LLVM dialect for the host through the "
      "unfused reference semantics (convert-pe-to-linalg, bufferization, "
      "scalar loops)",
      buildReferencePipeline);
  registerCheckedPipeline<RaisePipelineOptions>(
      "pe-raise-pipeline",
      "Raise IR as frontends emit it: arith and math ops on whole tensors to "
      "linalg (convert-elementwise-to-linalg), then pe-raise, canonicalize "
      "and cse",
      buildRaisePipeline);
  PassPipelineRegistration<>(
      "pe-tosa-to-linalg-pipeline",
      "Lower TOSA as frontends emit it to linalg, tensor and arith for "
      "pe-raise-pipeline: upstream tosa-to-linalg-pipeline's passes without "
      "tosa-validate (which rejects the i1 and i64 -> f32 casts that "
      "tosa-to-linalg lowers), then tosa-to-tensor and tosa-to-arith",
      buildTosaToLinalgPipeline);
  registerCheckedPipeline<ShardPipelineOptions>(
      "pe-shard-pipeline",
      "Partition a sharded program (shard dialect) into the program of each "
      "MPI rank and lower it to the LLVM dialect with MPI calls and the CPU "
      "pipeline's kernels",
      buildShardPipeline);
}
