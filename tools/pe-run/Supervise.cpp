//===- Supervise.cpp - A launcher run with a time limit -------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Supervise.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <iterator>
#include <map>
#include <poll.h>
#include <set>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace pe::run;

namespace {
/// The signals that stop a supervised run.
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// Written by the signal handler (any thread), read by the waiting loop.
int signalPipe[2] = {-1, -1};

extern "C" void onStopSignal(int sig) {
  int saved = errno;
  unsigned char c = static_cast<unsigned char>(sig);
  ssize_t ignored = ::write(signalPipe[1], &c, 1);
  (void)ignored;
  errno = saved;
}

/// Installs the handlers for the run and restores the previous ones (LLVM's)
/// after it.
class StopSignals {
public:
  bool install() {
    if (::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
      return false;
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (auto [i, sig] : llvm::enumerate(kStopSignals))
      ::sigaction(sig, &action, &previous[i]);
    installed = true;
    return true;
  }
  /// The signal received since install(), or 0.
  int take() {
    unsigned char c;
    return ::read(signalPipe[0], &c, 1) == 1 ? c : 0;
  }
  ~StopSignals() {
    if (!installed)
      return;
    for (auto [i, sig] : llvm::enumerate(kStopSignals))
      ::sigaction(sig, &previous[i], nullptr);
    ::close(signalPipe[0]);
    ::close(signalPipe[1]);
    signalPipe[0] = signalPipe[1] = -1;
  }

private:
  struct sigaction previous[std::size(kStopSignals)];
  bool installed = false;
};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The processes below `root` (children, their children, ...), from /proc.
std::vector<pid_t> descendantsOf(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  if (DIR *proc = ::opendir("/proc")) {
    while (struct dirent *e = ::readdir(proc)) {
      char *end;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end || pid <= 0)
        continue;
      std::string path = "/proc/" + std::string(e->d_name) + "/stat";
      FILE *f = std::fopen(path.c_str(), "r");
      if (!f)
        continue;
      char buf[512];
      size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
      std::fclose(f);
      buf[n] = 0;
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const char *close = std::strrchr(buf, ')');
      char state;
      long ppid;
      if (close && std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2)
        children.emplace(pid_t(ppid), pid_t(pid));
    }
    ::closedir(proc);
  }
  std::vector<pid_t> found;
  std::vector<pid_t> work = {root};
  while (!work.empty()) {
    pid_t p = work.back();
    work.pop_back();
    auto [begin, end] = children.equal_range(p);
    for (auto it = begin; it != end; ++it) {
      found.push_back(it->second);
      work.push_back(it->second);
    }
  }
  return found;
}

/// Kills and reaps every descendant of this process; returns how many
/// distinct processes it killed.
int killDescendants() {
  std::set<pid_t> killed;
  for (int round = 0; round < 100; ++round) {
    // Our children, exited or orphaned to us (we are a subreaper).
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    std::vector<pid_t> alive = descendantsOf(::getpid());
    if (alive.empty())
      break;
    for (pid_t p : alive) {
      ::kill(p, SIGKILL);
      killed.insert(p);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  return int(killed.size());
}

/// Waits up to `seconds` (forever if negative) for `pid`; true once reaped.
bool waitFor(pid_t pid, int *status, double seconds, StopSignals &signals,
             int *caught) {
  Clock::time_point start = Clock::now();
  while (true) {
    pid_t r = ::waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD))
      return true;
    if (int sig = signals.take()) {
      *caught = sig;
      return false;
    }
    if (seconds >= 0 && secondsSince(start) >= seconds)
      return false;
    struct pollfd p = {signalPipe[0], POLLIN, 0};
    ::poll(&p, 1, 50);
  }
}
} // namespace

SupervisedExit pe::run::runSupervised(llvm::ArrayRef<std::string> argv,
                                      double timeoutSeconds,
                                      double graceSeconds) {
  SupervisedExit result;
  std::vector<char *> cargv;
  for (const std::string &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);

  StopSignals signals;
  int execPipe[2];
  if (argv.empty() || !signals.install() || ::pipe2(execPipe, O_CLOEXEC) != 0) {
    result.message = std::strerror(errno);
    return result;
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Only async-signal-safe calls until exec. The launcher is stopped if
    // pe-run dies, even by SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent)
      ::_exit(127);
    for (int sig : kStopSignals)
      ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(cargv[0], cargv.data());
    int err = errno;
    ssize_t ignored = ::write(execPipe[1], &err, sizeof(err));
    (void)ignored;
    ::_exit(127);
  }
  ::close(execPipe[1]);
  if (pid < 0) {
    result.message = std::strerror(errno);
    ::close(execPipe[0]);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    return result;
  }
  int execErr = 0;
  ssize_t got;
  do
    got = ::read(execPipe[0], &execErr, sizeof(execErr));
  while (got < 0 && errno == EINTR);
  ::close(execPipe[0]);
  if (got == sizeof(execErr)) {
    ::waitpid(pid, nullptr, 0);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    result.message =
        "cannot execute '" + argv[0] + "': " + std::strerror(execErr);
    return result;
  }

  int status = 0, caught = 0;
  bool exited =
      waitFor(pid, &status, timeoutSeconds > 0 ? timeoutSeconds : -1.0, signals,
              &caught);
  if (exited) {
    result.kind = SupervisedExit::Kind::Exited;
    if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
      result.status = 128 + result.signal;
    } else {
      result.status = WEXITSTATUS(status);
    }
  } else {
    result.kind = caught ? SupervisedExit::Kind::Interrupted
                         : SupervisedExit::Kind::TimedOut;
    result.signal = caught;
    // Ask the launcher to stop its processes; kill it if it does not (or if
    // a second signal comes).
    ::kill(pid, SIGTERM);
    int again = 0;
    if (!waitFor(pid, &status, graceSeconds, signals, &again)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
  }
  result.strays = killDescendants();
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  return result;
}

void pe::run::exitBySignal(int signal) {
  llvm::outs().flush();
  llvm::errs().flush();
  ::signal(signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(signal);
  ::_exit(128 + signal);
}
