//===- PipelineOptions.cpp - Pipeline options of the C API ----------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "PipelineOptions.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <mutex>

#ifdef LLVM_ON_UNIX
#include <unistd.h>
#endif

using namespace mlir;

namespace {
/// Standard error redirected to a temporary file for the lifetime of the
/// object (POSIX only); `active()` is false where that failed.
class StderrCapture {
public:
  StderrCapture() {
#ifdef LLVM_ON_UNIX
    llvm::errs().flush();
    std::fflush(stderr);
    file = std::tmpfile();
    if (!file)
      return;
    saved = ::dup(STDERR_FILENO);
    if (saved < 0 || ::dup2(::fileno(file), STDERR_FILENO) < 0) {
      if (saved >= 0)
        ::close(saved);
      saved = -1;
      std::fclose(file);
      file = nullptr;
    }
#endif
  }

  StderrCapture(const StderrCapture &) = delete;
  StderrCapture &operator=(const StderrCapture &) = delete;
  ~StderrCapture() { release(); }

  bool active() const { return file != nullptr; }

  /// Restores standard error and returns what was written to it meanwhile.
  std::string release() {
    std::string text;
#ifdef LLVM_ON_UNIX
    if (!file)
      return text;
    llvm::errs().flush();
    std::fflush(stderr);
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::rewind(file);
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
      text.append(buffer, n);
    std::fclose(file);
    file = nullptr;
#endif
    return text;
  }

private:
  std::FILE *file = nullptr;
  int saved = -1;
};
} // namespace

/// Drops the prefixes of the parsers' lines: MLIR's "<Pass-Options-Parser>: "
/// and the ": " that llvm::cl writes before a message when the host never
/// parsed a command line (its program name is then empty).
static llvm::StringRef trimLine(llvm::StringRef line) {
  line = line.trim();
  if (line.consume_front("<Pass-Options-Parser>:") || line.consume_front(":"))
    line = line.ltrim();
  return line;
}

LogicalResult pe::parsePipelineOptions(detail::PassOptions &options,
                                       llvm::StringRef text,
                                       llvm::StringRef pipelineName,
                                       std::string &message) {
  static std::mutex mutex;
  std::string parserText, captured;
  LogicalResult result = failure();
  bool wasCaptured;
  {
    std::lock_guard<std::mutex> lock(mutex);
    StderrCapture capture;
    wasCaptured = capture.active();
    llvm::raw_string_ostream parserStream(parserText);
    result = options.parseFromString(text, parserStream);
    captured = capture.release();
  }
  if (succeeded(result)) {
    // Nothing of the parser's: give the bytes back to standard error.
    if (!captured.empty())
      llvm::errs() << captured;
    return success();
  }

  llvm::raw_string_ostream os(message);
  std::string all = parserText + captured;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(all).split(lines, '\n', -1, false);
  bool first = true;
  for (llvm::StringRef line : lines) {
    line = trimLine(line);
    if (line.empty())
      continue;
    os << (first ? "" : "\n") << pipelineName << ": " << line;
    first = false;
  }
  if (first || !wasCaptured)
    os << (first ? "" : "\n") << pipelineName << ": invalid options '" << text
       << "'";
  return failure();
}
