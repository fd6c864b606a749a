//===- PipelineOptionsTest.cpp - pipeline options of the C API ------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// parsePipelineOptions (lib/CAPI/PipelineOptions.h): every parser message in
// the returned text, nothing on standard error, standard error restored
// afterwards, and concurrent calls that each get their own message.
//
//===----------------------------------------------------------------------===//

#include "PipelineOptions.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace mlir;

namespace {
struct TestOptions : public PassPipelineOptions<TestOptions> {
  PassOptions::Option<unsigned> threads{*this, "threads", llvm::cl::init(0)};
  PassOptions::Option<bool> fuse{*this, "fuse", llvm::cl::init(true)};
};

/// Standard error redirected to a file of the test for its lifetime.
class RedirectedStderr {
public:
  RedirectedStderr() : file(std::tmpfile()) {
    llvm::errs().flush();
    saved = ::dup(STDERR_FILENO);
    ::dup2(::fileno(file), STDERR_FILENO);
  }
  ~RedirectedStderr() {
    if (file)
      text();
  }
  /// Restores standard error and returns what was written to it.
  std::string text() {
    llvm::errs().flush();
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
    std::rewind(file);
    std::string out;
    char buffer[256];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
      out.append(buffer, n);
    std::fclose(file);
    file = nullptr;
    return out;
  }

private:
  std::FILE *file;
  int saved;
};

TEST(PipelineOptions, BadValueMessageInResultNotOnStderr) {
  RedirectedStderr stderrOfTest;
  TestOptions options;
  std::string message;
  EXPECT_TRUE(failed(pe::parsePipelineOptions(options, "threads=four",
                                              "pe-test-pipeline", message)));
  // Standard error is the test's file again after the call.
  llvm::errs() << "after the call\n";
  EXPECT_EQ(stderrOfTest.text(), "after the call\n");
  EXPECT_EQ(message, "pe-test-pipeline: for the --threads option: 'four' "
                     "value invalid for uint argument!");
}

TEST(PipelineOptions, UnknownOptionAndMissingValue) {
  TestOptions options;
  std::string message;
  EXPECT_TRUE(failed(pe::parsePipelineOptions(options, "fuse=0 width=8",
                                              "pe-test-pipeline", message)));
  EXPECT_EQ(message, "pe-test-pipeline: no such option width");
  message.clear();
  EXPECT_TRUE(failed(pe::parsePipelineOptions(options, "threads",
                                              "pe-test-pipeline", message)));
  EXPECT_EQ(message,
            "pe-test-pipeline: for the --threads option: requires a value!");
}

TEST(PipelineOptions, SuccessSetsValuesAndWritesNothing) {
  RedirectedStderr stderrOfTest;
  TestOptions options;
  std::string message;
  EXPECT_TRUE(succeeded(pe::parsePipelineOptions(
      options, "threads=3 fuse=false", "pe-test-pipeline", message)));
  EXPECT_EQ(stderrOfTest.text(), "");
  EXPECT_EQ(message, "");
  EXPECT_EQ(options.threads, 3u);
  EXPECT_FALSE(options.fuse);
}

TEST(PipelineOptions, ConcurrentCallsGetTheirOwnMessages) {
  constexpr int kThreads = 8, kCalls = 200;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < kCalls; ++i) {
        TestOptions options;
        std::string value = "bad" + std::to_string(t) + "x" + std::to_string(i),
                    message;
        if (succeeded(pe::parsePipelineOptions(options, "threads=" + value,
                                               "pe-test-pipeline", message)) ||
            message != "pe-test-pipeline: for the --threads option: '" + value +
                           "' value invalid for uint argument!")
          ++wrong[t];
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(wrong[t], 0) << "thread " << t;
}
} // namespace
