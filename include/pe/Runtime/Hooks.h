//===- Hooks.h - What the lowered code calls on failure ---------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The compiled code reports a failed run-time check (cf.assert, lowered by
// upstream's convert-cf-to-llvm) as puts(message) then abort(). pe-run's JIT
// and the executables of --emit-executable give it their own puts, abort,
// malloc and aligned_alloc, built on these, so that each failure ends the
// run with one error line (through `exit`, which prints it and exits)
// instead of a crash or a null pointer.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_HOOKS_H
#define PE_RUNTIME_HOOKS_H

#include <cstddef>
#include <string>

namespace pe::rt {

/// Prints `message` as an error and ends the process; does not return.
using ExitFn = void (*)(const std::string &message);

/// puts: keeps `message` for abortRun.
int recordMessage(const char *message);

/// abort: exits with the message puts received last ("run-time check
/// failed: ..."), or "the compiled code aborted".
[[noreturn]] void abortRun(ExitFn exit);

/// malloc and aligned_alloc that exit on failure (other than for 0 bytes).
void *checkedMalloc(size_t bytes, ExitFn exit);
void *checkedAlignedAlloc(size_t alignment, size_t bytes, ExitFn exit);

} // namespace pe::rt

#endif // PE_RUNTIME_HOOKS_H
