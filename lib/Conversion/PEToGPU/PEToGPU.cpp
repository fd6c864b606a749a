//===- PEToGPU.cpp - generated GPU kernels for pe ops ---------------------===//
//
// Part of the pe-mlir project.
//
// convert-pe-to-gpu: replaces pe.attention, pe.rope and pe.add_sinusoidal
// by `gpu.launch` kernels on memrefs, specialised at compile time for the
// op's encodings, which the kernels read through the op's accessors
// (getRotation, getRopeQueryOffset, getAlibiQueryOffset, getScaleOrDefault,
// ...), exactly as the CPU kernels do. The launch is target-neutral gpu
// dialect: workgroup and private memory are launch attributions, and the
// rest of pe-gpu-pipeline lowers it to NVVM or SPIR-V.
//
// One kernel per file, each an OpRewritePattern (docs/CodegenGPU.md):
// MMAAttention.cpp, DecodeAttention.cpp, SIMTAttention.cpp and
// SequenceKernels.cpp, on the shared KernelBuilder (KernelBuilder.h). The
// pass checks its options and applies the patterns once per op.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToGPU/PEToGPU.h"
#include "KernelBuilder.h"
#include "PatternsInternal.h"
#include "pe/Conversion/Passes.h"
#include "pe/Support/OptionRanges.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#define DEBUG_TYPE "convert-pe-to-gpu"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOGPU
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

void mlir::pe::populatePEToGPUPatterns(RewritePatternSet &patterns,
                                       const GPUKernelOptions &options) {
  // An attention gets the tensor-core kernel where it applies, else the
  // decode kernel, else the SIMT one (which reports an attention without a
  // kernel): the benefits order the three patterns of pe.attention.
  gpu_kernels::populateMMAAttentionPattern(patterns, options,
                                           /*benefit=*/3);
  gpu_kernels::populateDecodeAttentionPattern(patterns, options,
                                              /*benefit=*/2);
  gpu_kernels::populateSIMTAttentionPattern(patterns, options,
                                            /*benefit=*/1);
  gpu_kernels::populateSequenceKernelPatterns(patterns, options);
}

namespace {

struct ConvertPEToGPUPass
    : public pe::impl::ConvertPEToGPUBase<ConvertPEToGPUPass> {
  using Base::Base;

  /// The integer options and the values the kernels support. The block
  /// sizes are threads per block (CUDA launches at most 1024; Vulkan devices
  /// report at most that); the key counts and byte sizes become index
  /// constants in the kernels, which SPIR-V lowers to 32 bits.
  static ArrayRef<IntegerOptionRange> optionRanges() {
    constexpr int64_t kMaxThreads = 1024;
    constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
    static const IntegerOptionRange ranges[] = {
        {"block-rows", 1, kMaxThreads, " (threads per block)"},
        {"rope-block", 1, kMaxThreads, " (threads per block)"},
        {"key-tile", 1, kMaxI32},
        {"shared-memory-bytes", 1, kMaxI32},
        {"decode-split-keys", 0, kMaxI32, " (0: no split)"},
    };
    return ranges;
  }

  /// Checks the integer options' text before LLVM's option parser reads it
  /// (which reports a value the type cannot hold without an `error:`).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (std::optional<std::string> error =
            checkIntegerOptionText(getArgument(), options, optionRanges()))
      return errorHandler(*error);
    return Base::initializeOptions(options, errorHandler);
  }

  /// Rejects an integer option outside its range (also where the options
  /// were set in C++, e.g. by pe-gpu-pipeline), naming the option and range.
  LogicalResult checkOptionBounds() {
    const int64_t values[] = {blockRows, ropeBlock, keyTile, sharedMemoryBytes,
                              decodeSplitKeys};
    for (auto [range, value] : llvm::zip_equal(optionRanges(), values))
      if (std::optional<std::string> error =
              checkIntegerOption(getArgument(), range, value))
        return getOperation()->emitError() << *error;
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptionBounds()))
      return signalPassFailure();
    GPUKernelOptions options;
    options.blockRows = blockRows;
    options.keyTile = keyTile;
    options.sharedMemoryBytes = sharedMemoryBytes;
    options.ropeBlock = ropeBlock;
    options.decodeSplitKeys = decodeSplitKeys;
    options.allowF16 = allowF16;
    options.allowBF16 = allowBF16;
    options.staticBuffersOnly = staticBuffersOnly;
    if (tensorCores == "auto")
      options.tensorCores = GPUTensorCores::Auto;
    else if (tensorCores == "off")
      options.tensorCores = GPUTensorCores::Off;
    else if (tensorCores == "emulate")
      options.tensorCores = GPUTensorCores::Emulate;
    else {
      getOperation()->emitError()
          << "convert-pe-to-gpu: tensor-cores must be auto, off or emulate, "
             "not '"
          << tensorCores << "'";
      return signalPassFailure();
    }
    options.chip = chip;
    if (!chip.empty() && !gpu_kernels::parseSmVersion(chip)) {
      getOperation()->emitError() << "convert-pe-to-gpu: chip '" << chip
                                  << "' is not an NVVM chip (sm_NN)";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populatePEToGPUPatterns(patterns, options);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
