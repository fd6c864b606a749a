//===- PEToGPUPatternsTest.cpp - populatePEToGPUPatterns from C++ ---------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The GPU kernel patterns used without the pass: populatePEToGPUPatterns
// with GPUKernelOptions, applied once per op by walkAndApplyPatterns. Each
// case checks which kernel an op gets (the tensor-core kernel's mma.sync,
// the decode kernel's second launch for the split combine, the SIMT
// kernel's single launch) or that a refused op is left for the host.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToGPU/PEToGPU.h"
#include "pe/Dialect/PE/IR/PEDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

class PEToGPUPatternsTest : public ::testing::Test {
protected:
  PEToGPUPatternsTest() {
    DialectRegistry registry;
    registry.insert<pe::PEDialect, arith::ArithDialect,
                    bufferization::BufferizationDialect, func::FuncDialect,
                    gpu::GPUDialect, LLVM::LLVMDialect, math::MathDialect,
                    memref::MemRefDialect, NVVM::NVVMDialect,
                    nvgpu::NVGPUDialect, scf::SCFDialect, tensor::TensorDialect,
                    vector::VectorDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `body` (one func) and applies the patterns with `options`.
  OwningOpRef<ModuleOp> rewrite(StringRef body,
                                const pe::GPUKernelOptions &options) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(body, &context);
    EXPECT_TRUE(module);
    if (!module)
      return module;
    RewritePatternSet patterns(&context);
    pe::populatePEToGPUPatterns(patterns, options);
    walkAndApplyPatterns(*module, std::move(patterns));
    return module;
  }

  static int64_t count(ModuleOp module, StringRef name) {
    int64_t n = 0;
    module.walk([&](Operation *op) {
      if (op->getName().getStringRef() == name)
        ++n;
    });
    return n;
  }

  MLIRContext context;
};

constexpr const char *kF16Prefill = R"mlir(
func.func @f16(%q: tensor<1x4x40x32xf16>, %k: tensor<1x2x40x32xf16>, %v: tensor<1x2x40x16xf16>) -> tensor<1x4x40x16xf16> {
  %init = tensor.empty() : tensor<1x4x40x16xf16>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x40x16xf16>) {causal} : tensor<1x4x40x32xf16>, tensor<1x2x40x32xf16>, tensor<1x2x40x16xf16> -> tensor<1x4x40x16xf16>
  return %0 : tensor<1x4x40x16xf16>
}
)mlir";

constexpr const char *kF32Decode = R"mlir(
func.func @decode(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x1024x64xf32>, %v: tensor<1x4x1024x64xf32>) -> tensor<1x4x1x64xf32> {
  %init = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x64xf32>) {causal} : tensor<1x4x1x64xf32>, tensor<1x4x1024x64xf32>, tensor<1x4x1024x64xf32> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}
)mlir";

constexpr const char *kF64Attention = R"mlir(
func.func @f64(%h: tensor<1x2x8x16xf64>) -> tensor<1x2x8x16xf64> {
  %init = tensor.empty() : tensor<1x2x8x16xf64>
  %0 = pe.attention %h, %h, %h outs(%init : tensor<1x2x8x16xf64>) : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64> -> tensor<1x2x8x16xf64>
  return %0 : tensor<1x2x8x16xf64>
}
)mlir";

constexpr const char *kRope = R"mlir(
func.func @rope(%x: tensor<2x?x32xf32>, %f: tensor<8xf32>) -> tensor<2x?x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) {rotary_dim = 16 : i64} : tensor<2x?x32xf32>
  return %0 : tensor<2x?x32xf32>
}
)mlir";

// f16 prefill on sm_80: the tensor-core kernel (mma.sync), one launch.
TEST_F(PEToGPUPatternsTest, F16PrefillGetsTensorCoresOnSm80) {
  pe::GPUKernelOptions options;
  options.chip = "sm_80";
  OwningOpRef<ModuleOp> module = rewrite(kF16Prefill, options);
  ASSERT_TRUE(module);
  EXPECT_EQ(count(*module, "pe.attention"), 0);
  EXPECT_EQ(count(*module, "gpu.launch"), 1);
  EXPECT_GT(count(*module, "nvgpu.mma.sync"), 0);
}

// The same op without a chip, or with tensor cores off: the SIMT kernel.
TEST_F(PEToGPUPatternsTest, F16PrefillFallsBackToSIMT) {
  pe::GPUKernelOptions noChip;
  OwningOpRef<ModuleOp> a = rewrite(kF16Prefill, noChip);
  ASSERT_TRUE(a);
  EXPECT_EQ(count(*a, "gpu.launch"), 1);
  EXPECT_EQ(count(*a, "nvgpu.mma.sync"), 0);

  pe::GPUKernelOptions off;
  off.chip = "sm_80";
  off.tensorCores = pe::GPUTensorCores::Off;
  OwningOpRef<ModuleOp> b = rewrite(kF16Prefill, off);
  ASSERT_TRUE(b);
  EXPECT_EQ(count(*b, "pe.attention"), 0);
  EXPECT_EQ(count(*b, "gpu.launch"), 1);
  EXPECT_EQ(count(*b, "nvgpu.mma.sync"), 0);
}

// Decode over 1024 keys with splits of 128: the decode kernel and the split
// combine, two launches; without splits, one.
TEST_F(PEToGPUPatternsTest, DecodeSplitsAddTheCombineKernel) {
  pe::GPUKernelOptions options;
  OwningOpRef<ModuleOp> split = rewrite(kF32Decode, options);
  ASSERT_TRUE(split);
  EXPECT_EQ(count(*split, "pe.attention"), 0);
  EXPECT_EQ(count(*split, "gpu.launch"), 2);

  options.decodeSplitKeys = 0;
  OwningOpRef<ModuleOp> whole = rewrite(kF32Decode, options);
  ASSERT_TRUE(whole);
  EXPECT_EQ(count(*whole, "gpu.launch"), 1);
}

// No kernel for f64 attention, nor for f16 where the target has no f16: the
// op is left for the host and nothing else is created.
TEST_F(PEToGPUPatternsTest, RefusedOpsStay) {
  pe::GPUKernelOptions options;
  OwningOpRef<ModuleOp> f64 = rewrite(kF64Attention, options);
  ASSERT_TRUE(f64);
  EXPECT_EQ(count(*f64, "pe.attention"), 1);
  EXPECT_EQ(count(*f64, "gpu.launch"), 0);
  EXPECT_EQ(count(*f64, "memref.alloc"), 0);

  options.allowF16 = false;
  OwningOpRef<ModuleOp> f16 = rewrite(kF16Prefill, options);
  ASSERT_TRUE(f16);
  EXPECT_EQ(count(*f16, "pe.attention"), 1);
  EXPECT_EQ(count(*f16, "gpu.launch"), 0);
}

// pe.rope: one launch, the op replaced.
TEST_F(PEToGPUPatternsTest, RopeGetsItsKernel) {
  OwningOpRef<ModuleOp> module = rewrite(kRope, pe::GPUKernelOptions());
  ASSERT_TRUE(module);
  EXPECT_EQ(count(*module, "pe.rope"), 0);
  EXPECT_EQ(count(*module, "gpu.launch"), 1);
}

} // namespace
