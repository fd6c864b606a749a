//===- Hooks.cpp - What the lowered code calls on failure -----------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Hooks.h"

#include <cstdlib>
#include <mutex>

using namespace pe::rt;

static std::mutex messageMutex;
static std::string lastMessage;

int pe::rt::recordMessage(const char *message) {
  std::lock_guard<std::mutex> lock(messageMutex);
  lastMessage = message ? message : "";
  return 0;
}

void pe::rt::abortRun(ExitFn exit) {
  std::string message;
  {
    std::lock_guard<std::mutex> lock(messageMutex);
    message = lastMessage;
  }
  exit(message.empty() ? std::string("the compiled code aborted")
                       : "run-time check failed: " + message);
  std::abort(); // `exit` does not return.
}

void *pe::rt::checkedMalloc(size_t bytes, ExitFn exit) {
  void *p = std::malloc(bytes);
  if (!p && bytes != 0)
    exit("out of memory: the compiled code allocates " + std::to_string(bytes) +
         " bytes");
  return p;
}

void *pe::rt::checkedAlignedAlloc(size_t alignment, size_t bytes, ExitFn exit) {
  void *p = std::aligned_alloc(alignment, bytes);
  if (!p && bytes != 0)
    exit("out of memory: the compiled code allocates " + std::to_string(bytes) +
         " bytes aligned to " + std::to_string(alignment));
  return p;
}
