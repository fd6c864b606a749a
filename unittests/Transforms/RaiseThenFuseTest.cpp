//===- RaiseThenFuseTest.cpp - raising, then fusing, through C++ ----------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A host that raises with the populate functions and then fuses with the
// fusion's populate function, with no CSE in between (issue 31): raising
// builds one table slice (or frequency table) per rotated tensor, so the
// query's and the key's pe.rope take distinct but equal values, and the RoPE
// fusion must still fire.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

class RaiseThenFuseTest : public ::testing::Test {
protected:
  RaiseThenFuseTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    pe::registerPipelineDialects(registry);
    return registry;
  }

  OwningOpRef<ModuleOp> parseInput(StringRef name) {
    std::string path = std::string(PE_RAISE_INPUTS_DIR) + "/" + name.str();
    return parseSourceFile<ModuleOp>(path, &context);
  }

  /// pe-raise's two steps, through the populate functions.
  LogicalResult raise(ModuleOp module) {
    RewritePatternSet rope(&context);
    pe::populateRaiseRopePatterns(rope);
    pe::populateRaiseAbsoluteEncodingPatterns(rope);
    if (failed(applyPatternsGreedily(module, std::move(rope))))
      return failure();
    RewritePatternSet attention(&context);
    pe::populateRaiseAttentionPatterns(attention);
    return applyPatternsGreedily(module, std::move(attention));
  }

  LogicalResult fuse(ModuleOp module) {
    RewritePatternSet patterns(&context);
    pe::populateFuseEncodingsIntoAttentionPatterns(patterns);
    return applyPatternsGreedily(module, std::move(patterns));
  }

  /// Raises `name`, checks that the two ropes take distinct values of the
  /// field `get` gives (so that only a comparison by value can fuse them),
  /// fuses, and checks that the rope moved into the attention.
  void raiseThenFuse(StringRef name,
                     llvm::function_ref<Value(pe::RopeOp)> get) {
    OwningOpRef<ModuleOp> module = parseInput(name);
    ASSERT_TRUE(module) << name.str();
    ASSERT_TRUE(succeeded(raise(*module)));
    SmallVector<pe::RopeOp> ropes;
    module->walk([&](pe::RopeOp op) { ropes.push_back(op); });
    ASSERT_EQ(ropes.size(), 2u) << "raising did not give two pe.rope";
    ASSERT_TRUE(get(ropes[0]) && get(ropes[1]));
    EXPECT_NE(get(ropes[0]), get(ropes[1]))
        << "the ropes share their table: the test needs distinct values";
    ASSERT_TRUE(succeeded(fuse(*module)));
    int attentions = 0;
    module->walk([&](pe::AttentionOp op) {
      ++attentions;
      EXPECT_TRUE(op.getRopeAttr()) << "the rope did not fuse";
    });
    EXPECT_EQ(attentions, 1);
    bool ropeLeft = false;
    module->walk([&](pe::RopeOp) { ropeLeft = true; });
    EXPECT_FALSE(ropeLeft);
  }

  MLIRContext context;
};

} // namespace

// Llama-3.1 (positions arange(T), causal): raising gives each pe.rope a
// pe.llama3_scale of its own.
TEST_F(RaiseThenFuseTest, FrequencyOpPerRotatedTensor) {
  raiseThenFuse("llama3_block_arange.mlir",
                [](pe::RopeOp op) { return op.getInvFreq(); });
}

// A table argument and a constant table: not the same value as far as the
// IR says (the argument may hold anything), so the ropes stay.
TEST_F(RaiseThenFuseTest, DistinctTablesDoNotFuse) {
  constexpr const char *kModule = R"mlir(
func.func @f(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>,
             %f: tensor<4xf32>) -> tensor<1x2x8x8xf32> {
  %g = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %kr = pe.rope half %k inv_freq(%g : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %qr, %kr, %k outs(%init : tensor<1x2x8x8xf32>)
      : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
      -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(fuse(*module)));
  int ropes = 0;
  module->walk([&](pe::RopeOp) { ++ropes; });
  EXPECT_EQ(ropes, 2);
}
