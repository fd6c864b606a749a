// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs pe-cpu-pipeline, built from its options, on a parsed module in a
// context with only the dialects the pipeline needs.

#include "pe/Pipelines/Pipelines.h"
#include "pe/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kModule = R"mlir(
func.func @rope(%x: tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32> {
  %f, %m = pe.ntk_scale {factor = 2.0 : f64} : tensor<32xf32>
  %r = pe.rope half %x inv_freq(%f : tensor<32xf32>) attention_scaling(%m)
      : tensor<1x2x16x64xf32>
  return %r : tensor<1x2x16x64xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  mlir::pe::registerPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  mlir::pe::CPUPipelineOptions options;
  options.threads = 2;
  // A library host names the target of the generated kernels (the tools
  // default to the host; a library does not guess).
  options.triple = "x86_64-unknown-linux-gnu";
  options.cpu = "x86-64-v3";
  mlir::pe::buildCPUPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;
  int funcs = 0;
  module->walk([&](mlir::Operation *op) {
    funcs += op->getName().getStringRef() == "llvm.func";
  });
  llvm::outs() << "c++ consumer of pe-mlir " << PE_VERSION_STRING
               << ": lowered to " << funcs << " llvm.func\n";
  return 0;
}
