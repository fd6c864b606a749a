//===- PEToVectorPatternsTest.cpp - the CPU kernels in a host's pattern set
//===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A host adds populatePEToVectorPatterns to its own pattern set, with a
// target it resolved itself, and applies it with walkAndApplyPatterns: the
// supported pe.rope becomes a kernel on vectors of the target's width, the
// unsupported one (f64) is left for the reference lowering.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/PEToVector.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

TEST(PEToVectorPatternsTest, HostPatternSet) {
  DialectRegistry registry;
  pe::registerPipelineDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  const char *ir = R"mlir(
    func.func @f(%y: tensor<8x16xf32>, %h: tensor<8x16xf64>,
                 %f: tensor<8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf64>) {
      %0 = pe.rope interleaved %y inv_freq(%f : tensor<8xf32>) : tensor<8x16xf32>
      %1 = pe.rope interleaved %h inv_freq(%f : tensor<8xf32>) : tensor<8x16xf64>
      return %0, %1 : tensor<8x16xf32>, tensor<8x16xf64>
    }
  )mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
  ASSERT_TRUE(module);

  // AVX2: 8 f32 lanes.
  FailureOr<pe::CPUTarget> target =
      pe::resolveCPUTarget({"x86_64-unknown-linux-gnu", "x86-64-v3", ""}, [&] {
        return emitError(UnknownLoc::get(&context));
      });
  ASSERT_TRUE(succeeded(target));
  ASSERT_EQ(target->f32Lanes(), 8);
  pe::PEToVectorOptions options;
  options.target = *target;
  RewritePatternSet patterns(&context);
  pe::populatePEToVectorPatterns(patterns, options);
  walkAndApplyPatterns(*module, std::move(patterns));

  SmallVector<pe::RopeOp> left;
  module->walk([&](pe::RopeOp op) { left.push_back(op); });
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left.front().getInput().getType().getElementType().isF64());
  int parallels = 0;
  module->walk([&](scf::ParallelOp) { ++parallels; });
  EXPECT_EQ(parallels, 1);
  int64_t widest = 0;
  module->walk([&](vector::LoadOp op) {
    widest = std::max(widest, op.getVectorType().getNumElements());
  });
  EXPECT_EQ(widest, 8);
}

} // namespace
