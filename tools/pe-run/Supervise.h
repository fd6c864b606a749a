//===- Supervise.h - A launcher run with a time limit -----------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// `pe-run --ranks` starts an MPI launcher (mpiexec) and waits for it. The
// launcher's process manager starts further processes in sessions of their
// own (MPICH's Hydra: one `hydra_pmi_proxy` per host, one session per rank),
// so neither a process group nor the terminal reaches them. runSupervised
// keeps them attached: pe-run becomes a child subreaper (orphaned descendants
// are reparented to it), and the launcher gets SIGTERM should pe-run die.
// On a time limit, or on SIGINT, SIGTERM or SIGHUP of pe-run, the launcher is
// asked to stop (SIGTERM: Hydra then stops its ranks on every host), then
// killed after a grace period; when it has exited, every descendant still
// alive is killed and reaped.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_SUPERVISE_H
#define PE_TOOLS_PE_RUN_SUPERVISE_H

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace pe::run {

struct SupervisedExit {
  enum class Kind {
    /// The launcher exited by itself (`status` is its exit status, or
    /// 128 + the signal that ended it, `signal`).
    Exited,
    /// The time limit passed; the processes were stopped.
    TimedOut,
    /// pe-run received `signal`; the processes were stopped.
    Interrupted,
    /// The launcher could not be started (`message`).
    NotStarted,
  };
  Kind kind = Kind::NotStarted;
  int status = 0;
  int signal = 0;
  /// Descendants that were still alive after the launcher exited and were
  /// killed.
  int strays = 0;
  std::string message;
};

/// Runs `argv` (argv[0] is the program's path) and waits for it and its
/// descendants, for at most `timeoutSeconds` (0: no limit). `graceSeconds`
/// is how long the launcher may take to stop its processes after SIGTERM.
SupervisedExit runSupervised(llvm::ArrayRef<std::string> argv,
                             double timeoutSeconds, double graceSeconds);

/// Ends pe-run as `signal` would have (after an Interrupted run).
[[noreturn]] void exitBySignal(int signal);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_SUPERVISE_H
