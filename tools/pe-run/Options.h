//===- Options.h - pe-run's command line ------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_OPTIONS_H
#define PE_TOOLS_PE_RUN_OPTIONS_H

#include "Harness.h"

#include <optional>
#include <string>
#include <vector>

namespace pe::run {

/// pe-run's command line, checked (see --help).
struct DriverOptions {
  std::string inputFile, entry;
  std::vector<std::string> inputs, outputs;
  const PipelineEntry *pipeline = nullptr;
  /// --check's pipeline, or null.
  const PipelineEntry *checkPipeline = nullptr;
  double rtol = 1e-5, atol = 1e-6;
  /// --repeat (timing: given).
  bool timing = false;
  int repeat = 0;
  bool roofline = false;
  /// --flops (flopRoof: given).
  bool flopRoof = false;
  double flops = 0;
  unsigned long long seed = 0;
  bool randomInputs = false;
  std::optional<std::string> remarks;
  bool runtimeChecks = true;
  std::vector<std::string> sharedLibs;
  /// --emit-executable (emitting: given).
  bool emitting = false;
  std::string emitPath;
  /// --ranks or --rank-dir.
  bool sharded = false;
  int64_t ranks = 0;
  std::string mpiexec;
  double ranksTimeout = 600;
  std::string mpiLib, rankDir;
};

/// Parses and checks the command line (and sets the pipeline settings);
/// reports the first problem.
mlir::LogicalResult parseCommandLine(int argc, char **argv, DriverOptions &o);

/// The libraries the JIT loads for `o`'s pipelines; `argv0` locates pe's own.
mlir::FailureOr<llvm::SmallVector<std::string>>
jitLibraries(const DriverOptions &o, const char *argv0);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_OPTIONS_H
