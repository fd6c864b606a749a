//===- PipelinesTest.cpp - pipelines without the global registry ----------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Builds pe-cpu-pipeline and pe-reference-pipeline into a PassManager in a
// context that only has registerPipelineDialects (pe-gpu-pipeline:
// registerGPUPipelineDialects), with no pass or pipeline registered
// globally, and runs them on a parsed module.
//
//===----------------------------------------------------------------------===//

#include "pe/Pipelines/Pipelines.h"
#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

constexpr const char *kModule = R"mlir(
func.func @block(%q: tensor<1x4x32x64xf32>, %k: tensor<1x2x32x64xf32>,
                 %v: tensor<1x2x32x64xf32>) -> tensor<1x4x32x64xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64,
      original_max_position_embeddings = 64 : i64} : tensor<32xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) attention_scaling(%m)
      : tensor<1x4x32x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) attention_scaling(%m)
      : tensor<1x2x32x64xf32>
  %init = tensor.empty() : tensor<1x4x32x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x4x32x64xf32>) {causal}
      : tensor<1x4x32x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x4x32x64xf32>
  return %o : tensor<1x4x32x64xf32>
}
func.func @embed(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}
)mlir";

class PipelinesTest : public ::testing::Test {
protected:
  PipelinesTest() : context(makeRegistry()) {}

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    pe::registerPipelineDialects(registry);
    return registry;
  }

  /// Parses kModule, runs `build` on it and checks that only LLVM dialect
  /// ops (and OpenMP's, in the CPU pipeline) are left.
  void runPipeline(llvm::function_ref<void(OpPassManager &)> build,
                   std::string *printed = nullptr) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kModule, &context);
    ASSERT_TRUE(module);
    PassManager pm(&context);
    build(pm);
    ASSERT_TRUE(succeeded(pm.run(*module)));
    bool onlyLowered = true;
    module->walk([&](Operation *op) {
      StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
      if (!isa<ModuleOp>(op) && ns != "llvm" && ns != "omp")
        onlyLowered = false;
    });
    EXPECT_TRUE(onlyLowered);
    EXPECT_TRUE(module->lookupSymbol<LLVM::LLVMFuncOp>("block"));
    if (printed) {
      llvm::raw_string_ostream os(*printed);
      module->print(os);
    }
  }

  MLIRContext context;
};

TEST_F(PipelinesTest, NothingIsRegisteredGlobally) {
  EXPECT_EQ(PassPipelineInfo::lookup("pe-cpu-pipeline"), nullptr);
  EXPECT_EQ(PassInfo::lookup("canonicalize"), nullptr);
  EXPECT_EQ(PassInfo::lookup("one-shot-bufferize"), nullptr);
  EXPECT_EQ(PassInfo::lookup("convert-pe-to-vector"), nullptr);
}

TEST_F(PipelinesTest, Reference) {
  runPipeline([](OpPassManager &pm) { pe::buildReferencePipeline(pm); });
}

TEST_F(PipelinesTest, CPUDefaults) {
  // A library host names the CPU target (pe-opt and pe-run set the host's
  // as their default, this test sets none): without one the kernels fail.
  ASSERT_FALSE(pe::getDefaultCPUTarget());
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  PassManager pm(&context);
  pe::buildCPUPipeline(pm);
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(diagnostics.find("no CPU target for the generated kernels"),
            std::string::npos);
}

TEST_F(PipelinesTest, CPUTarget) {
  pe::CPUPipelineOptions options;
  options.triple = "x86_64-unknown-linux-gnu";
  options.cpu = "x86-64-v3";
  std::string text;
  runPipeline([&](OpPassManager &pm) { pe::buildCPUPipeline(pm, options); },
              &text);
  EXPECT_NE(text.find("omp.parallel"), std::string::npos);
  EXPECT_NE(text.find("vector<8xf32>"), std::string::npos);
  EXPECT_EQ(text.find("vector<16xf32>"), std::string::npos);
  EXPECT_NE(text.find("target_cpu = \"x86-64-v3\""), std::string::npos);
}

TEST_F(PipelinesTest, CPUDefaultTarget) {
  // What pe-opt and pe-run do with the host: a default for modules that
  // name no target.
  pe::setDefaultCPUTarget(
      pe::CPUTargetSpec{"aarch64-unknown-linux-gnu", "neoverse-n1", ""});
  std::string text;
  runPipeline([](OpPassManager &pm) { pe::buildCPUPipeline(pm); }, &text);
  pe::setDefaultCPUTarget(std::nullopt);
  EXPECT_NE(text.find("vector<4xf32>"), std::string::npos);
  EXPECT_NE(text.find("llvm.target_triple = \"aarch64-unknown-linux-gnu\""),
            std::string::npos);
}

TEST_F(PipelinesTest, CPUOptions) {
  pe::CPUPipelineOptions options;
  options.openmp = false;
  options.fuse = false;
  options.triple = "x86_64-unknown-linux-gnu";
  std::string text;
  runPipeline([&](OpPassManager &pm) { pe::buildCPUPipeline(pm, options); },
              &text);
  EXPECT_EQ(text.find("omp."), std::string::npos);

  // Options from text, as PassPipelineRegistration parses them.
  std::unique_ptr<pe::CPUPipelineOptions> parsed =
      pe::CPUPipelineOptions::createFromString("threads=2 fuse=false");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->threads, 2u);
  EXPECT_FALSE(parsed->fuse);
  EXPECT_EQ(pe::CPUPipelineOptions::createFromString("vector-width=8"),
            nullptr);
}

constexpr const char *kShardedModule = R"mlir(
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @keys(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>,
                %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %seq = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ks = shard.shard %k to %seq : tensor<1x2x8x16xf32>
  %vs = shard.shard %v to %seq : tensor<1x2x8x16xf32>
  %f, %m = pe.rope_frequencies : tensor<8xf32>
  %kr = pe.rope half %ks inv_freq(%f : tensor<8xf32>) : tensor<1x2x8x16xf32>
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %kr, %vs outs(%init : tensor<1x4x8x16xf32>) {causal}
      : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %os = shard.shard %o to %rep : tensor<1x4x8x16xf32>
  return %os : tensor<1x4x8x16xf32>
}
)mlir";

// pe-shard-pipeline in the same minimal context: the sharding models, the
// shard, mpi and DLTI dialects and the mpi lowering come with
// registerPipelineDialects.
TEST_F(PipelinesTest, Shard) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kShardedModule, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pe::ShardPipelineOptions options;
  options.triple = "x86_64-unknown-linux-gnu";
  options.cpu = "x86-64-v4";
  pe::buildShardPipeline(pm, options);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  bool onlyLLVM = true;
  module->walk([&](Operation *op) {
    StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
    if (!isa<ModuleOp>(op) && ns != "llvm")
      onlyLLVM = false;
  });
  EXPECT_TRUE(onlyLLVM);
  EXPECT_TRUE(module->lookupSymbol<LLVM::LLVMFuncOp>("keys"));
  EXPECT_TRUE(module->lookupSymbol<LLVM::LLVMFuncOp>("MPI_Allreduce"));

  std::unique_ptr<pe::ShardPipelineOptions> parsed =
      pe::ShardPipelineOptions::createFromString(
          "lower-to-llvm=false mpi-implementation=OpenMPI");
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->lowerToLLVM);
  EXPECT_EQ(parsed->mpiImplementation.getValue(), "OpenMPI");

  // The ranks' CPU options are pe-cpu-pipeline's, with OpenMP off by
  // default, and all of them reach the CPU pipeline's options.
  EXPECT_FALSE(pe::ShardPipelineOptions().openmp);
  EXPECT_TRUE(pe::CPUPipelineOptions().openmp);
  std::unique_ptr<pe::ShardPipelineOptions> cpu =
      pe::ShardPipelineOptions::createFromString(
          "absolute-pe-row-tile=8 approximate-math=false openmp=true "
          "threads=3 decode-prefetch-bytes=0 decode-prefetch-min-ops=5 "
          "decode-prefetch-l2-min-ops=6 stack-scratch-bytes=4096 cpu=x86-64-v3 "
          "triple=x86_64-unknown-linux-gnu features=+avx2");
  ASSERT_TRUE(cpu);
  pe::CPUPipelineOptions copied;
  cpu->copyCPUCodegenOptionsTo(copied);
  EXPECT_EQ(copied.absolutePERowTile, 8);
  EXPECT_FALSE(copied.approximateMath);
  EXPECT_TRUE(copied.openmp);
  EXPECT_EQ(copied.threads, 3u);
  EXPECT_EQ(copied.decodePrefetchBytes, 0);
  EXPECT_EQ(copied.decodePrefetchMinOps, 5);
  EXPECT_EQ(copied.decodePrefetchL2MinOps, 6);
  EXPECT_EQ(copied.stackScratchBytes, 4096);
  EXPECT_EQ(copied.cpu.getValue(), "x86-64-v3");
  EXPECT_EQ(copied.triple.getValue(), "x86_64-unknown-linux-gnu");
  EXPECT_EQ(copied.features.getValue(), "+avx2");
}

/// pe-gpu-pipeline in a context with only registerGPUPipelineDialects: the
/// kernels become a gpu.binary (SPIR-V, or PTX text for nvvm), launched from
/// LLVM-dialect host code.
void runGPUPipeline(pe::GPUTarget target, StringRef expectedTarget) {
  DialectRegistry registry;
  pe::registerGPUPipelineDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pe::GPUPipelineOptions options;
  options.target = target;
  pe::buildGPUPipeline(pm, options);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  unsigned binaries = 0, launches = 0;
  bool onlyLowered = true;
  module->walk([&](Operation *op) {
    if (isa<gpu::BinaryOp>(op))
      ++binaries;
    else if (isa<gpu::LaunchFuncOp>(op))
      ++launches;
    else if (!isa<ModuleOp>(op) && op->getDialect() &&
             op->getDialect()->getNamespace() != "llvm")
      onlyLowered = false;
  });
  EXPECT_TRUE(onlyLowered);
  // The attention of @block and the sinusoidal encoding of @embed.
  EXPECT_EQ(binaries, 2u);
  EXPECT_EQ(launches, 2u);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  EXPECT_NE(text.find(expectedTarget), std::string::npos);
}

TEST(GPUPipelineTest, SPIRV) {
  runGPUPipeline(pe::GPUTarget::SPIRV, "#spirv.target_env");
}

TEST(GPUPipelineTest, NVVM) {
  runGPUPipeline(pe::GPUTarget::NVVM, "#nvvm.target<O = 3, chip = \"sm_80\"");
}

// The option check the registered pipelines make, for hosts that parse
// pipeline options themselves.
TEST(PipelineOptionsTest, CheckPipelineOptions) {
  EXPECT_FALSE(pe::checkPipelineOptions("pe-cpu-pipeline",
                                        "fuse=false threads=2147483647"));
  EXPECT_EQ(
      pe::checkPipelineOptions("pe-cpu-pipeline", "threads=9223372036854775807")
          .value_or(""),
      "pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the "
      "OpenMP default), not 9223372036854775807");
  EXPECT_EQ(
      pe::checkPipelineOptions("pe-gpu-pipeline", "target=spirv block-rows=abc")
          .value_or(""),
      "pe-gpu-pipeline: block-rows must be an integer in [1, 1024] "
      "(threads per block), not 'abc'");
  // A value in braces or quotes is skipped whole, whatever it contains.
  EXPECT_FALSE(pe::checkPipelineOptions(
      "pe-cpu-pipeline", "target-features=\"threads=x\" threads=2"));
  EXPECT_TRUE(pe::checkPipelineOptions("pe-shard-pipeline", "threads=-1"));
  EXPECT_FALSE(pe::checkPipelineOptions("pe-reference-pipeline",
                                        "runtime-checks=false"));
}

} // namespace
