//===- Ranks.cpp - Sharded runs on MPI ranks (--ranks) --------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Ranks.h"
#include "PipelineTable.h"
#include "Supervise.h"

#include "pe/Runtime/Blocks.h"

#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Pipelines/Pipelines.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string.h>

using namespace mlir;
using llvm::ArrayRef;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace pe::run {

static FailureOr<Distribution> distributionOf(shard::ShardOp shardOp,
                                              SymbolTableCollection &symbols) {
  shard::Sharding s(shardOp.getSharding());
  shard::GridOp grid = shard::getGridOrNull(shardOp, s.getGridAttr(), symbols);
  if (!grid)
    return error("a shard.shard annotation refers to an unknown grid");
  if (!s.getStaticHaloSizes().empty() || !s.getDynamicHaloSizes().empty() ||
      !s.getStaticShardedDimsOffsets().empty() ||
      !s.getDynamicShardedDimsOffsets().empty())
    return error("--ranks supports shardings without halos or explicit "
                 "shard offsets");
  Distribution d;
  for (int64_t size : grid.getShape()) {
    if (ShapedType::isDynamic(size))
      return error("--ranks needs a grid of static shape");
    d.gridShape.push_back(size);
  }
  for (shard::GridAxesAttr axes : s.getSplitAxes())
    d.splitAxes.emplace_back(axes.asArrayRef());
  return d;
}

FailureOr<ShardedSignature> readShardedSignature(func::FuncOp original) {
  OwningOpRef<ModuleOp> clone =
      cast<ModuleOp>(original->getParentOp()->clone());
  PassManager pm(clone->getContext());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(mlir::pe::createShardCheckSplits());
  fpm.addPass(shard::createShardingPropagation());
  fpm.addPass(mlir::pe::createShardCheckSplits());
  if (failed(pm.run(*clone)))
    return error("--ranks: the function's shardings cannot be partitioned");
  auto fn = clone->lookupSymbol<func::FuncOp>(original.getSymName());
  SymbolTableCollection symbols;
  ShardedSignature sig;
  auto note = [&](const Distribution &d) -> LogicalResult {
    if (d.gridShape.empty())
      return success();
    int64_t n = 1;
    for (int64_t s : d.gridShape)
      n *= s;
    if (sig.processes && sig.processes != n)
      return error("--ranks: the function's annotations use grids of " +
                   Twine(sig.processes) + " and " + Twine(n) + " processes");
    sig.processes = n;
    return success();
  };
  for (BlockArgument arg : fn.getArguments()) {
    Distribution d;
    for (Operation *user : arg.getUsers()) {
      // (Partitioning reads an argument's layout from its shard.shard user,
      // whether it annotates the argument or its users.)
      auto shardOp = dyn_cast<shard::ShardOp>(user);
      if (!shardOp)
        continue;
      FailureOr<Distribution> found = distributionOf(shardOp, symbols);
      if (failed(found))
        return failure();
      d = *found;
      break;
    }
    if (failed(note(d)))
      return failure();
    sig.args.push_back(std::move(d));
  }
  Operation *ret = fn.getBody().back().getTerminator();
  for (Value v : ret->getOperands()) {
    Distribution d;
    if (auto shardOp = v.getDefiningOp<shard::ShardOp>()) {
      FailureOr<Distribution> found = distributionOf(shardOp, symbols);
      if (failed(found))
        return failure();
      d = *found;
    }
    if (failed(note(d)))
      return failure();
    sig.results.push_back(std::move(d));
  }
  if (!sig.processes)
    return error("--ranks: function '" + fn.getSymName() +
                 "' has no shard.shard annotation on its arguments or "
                 "results");
  return sig;
}

LogicalResult blockOf(const Distribution &d, ArrayRef<int64_t> shape,
                      int64_t rank, SmallVector<int64_t> &offsets,
                      SmallVector<int64_t> &sizes) {
  ::pe::rt::BlockLayout layout;
  layout.gridShape.assign(d.gridShape.begin(), d.gridShape.end());
  for (ArrayRef<shard::GridAxis> axes : d.splitAxes)
    layout.splitAxes.emplace_back(axes.begin(), axes.end());
  std::vector<int64_t> blockOffsets, blockSizes;
  if (::pe::rt::Error err = ::pe::rt::blockOf(layout, shape.vec(), rank,
                                              blockOffsets, blockSizes))
    return error("--ranks: " + err.message());
  offsets.assign(blockOffsets.begin(), blockOffsets.end());
  sizes.assign(blockSizes.begin(), blockSizes.end());
  return success();
}

static std::string rankFile(StringRef dir, size_t result, int64_t rank) {
  return (dir + "/result" + Twine(result) + ".rank" + Twine(rank) + ".npy")
      .str();
}

/// The environment variable the process manager sets to this process's rank
/// (MPICH's Hydra: PMI_RANK; Open MPI: OMPI_COMM_WORLD_RANK).
static std::optional<int64_t> rankFromEnvironment() {
  for (const char *var : {"PMI_RANK", "OMPI_COMM_WORLD_RANK"})
    if (const char *v = std::getenv(var)) {
      int64_t r;
      if (!StringRef(v).getAsInteger(10, r))
        return r;
    }
  return std::nullopt;
}

static std::string timesFile(StringRef dir, int64_t rank) {
  return (dir + "/times.rank" + Twine(rank) + ".txt").str();
}

namespace {
/// The MPI entry points a rank calls itself, from the MPI library the JIT
/// loaded (MPICH's ABI: MPI_Comm is an int).
struct MPIEntryPoints {
  int (*init)(int *, char ***) = nullptr;
  int (*finalize)() = nullptr;
  int (*barrier)(int) = nullptr;
  /// MPICH's MPI_COMM_WORLD.
  static constexpr int kCommWorld = 0x44000000;

  bool load() {
    auto find = [](const char *name) {
      return llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name);
    };
    init = reinterpret_cast<int (*)(int *, char ***)>(find("MPI_Init"));
    finalize = reinterpret_cast<int (*)()>(find("MPI_Finalize"));
    barrier = reinterpret_cast<int (*)(int)>(find("MPI_Barrier"));
    return init && finalize && barrier;
  }
};
} // namespace

/// The first call (its results in `results`), then with `repeat`, that many
/// calls started together on every rank (after an MPI_Barrier), their
/// durations in `ms`.
static LogicalResult callRank(Invocation &inv, void (*fn)(void **),
                              const MPIEntryPoints &mpi, int repeat,
                              SmallVectorImpl<npy::Array> &results,
                              std::vector<double> &ms) {
  if (failed(inv.prepare()) || failed(inv.call(fn, &results, nullptr)))
    return failure();
  ms.assign(repeat, 0.0);
  for (int i = 0; i < repeat; ++i) {
    if (mpi.barrier(MPIEntryPoints::kCommWorld) != 0)
      return error("MPI_Barrier failed");
    if (failed(inv.call(fn, nullptr, &ms[i])))
      return failure();
  }
  return success();
}

const PipelineEntry &shardPipelineEntry() {
  static const PipelineEntry shardPipeline = {
      "shard",
      [](OpPassManager &pm, bool runtimeChecks) {
        // Each rank's program for the command line's CPU target.
        const PipelineSettings &settings = getPipelineSettings();
        mlir::pe::ShardPipelineOptions options;
        options.runtimeChecks = runtimeChecks;
        options.triple = settings.cpuTarget.triple;
        options.cpu = settings.cpuTarget.cpu;
        options.features = settings.cpuTarget.features;
        mlir::pe::buildShardPipeline(pm, options);
      },
      "", ""};
  return shardPipeline;
}

int runRank(ModuleOp module, const Signature &sig,
            const ShardedSignature &sharded, ArrayRef<npy::Array> args,
            StringRef dir, ArrayRef<std::string> libs, bool runtimeChecks,
            int repeat) {
  std::optional<int64_t> rank = rankFromEnvironment();
  if (!rank || *rank < 0 || *rank >= sharded.processes)
    return fail("--rank-dir: not started by mpiexec with " +
                Twine(sharded.processes) +
                " processes (PMI_RANK unset or "
                "out of range)");
  Signature local = sig;
  std::vector<npy::Array> localArgs;
  for (auto [i, arg] : llvm::enumerate(sig.args)) {
    if (!arg.isTensor) {
      localArgs.push_back(args[i]);
      continue;
    }
    SmallVector<int64_t> offsets, sizes;
    if (failed(blockOf(sharded.args[i], args[i].shape, *rank, offsets, sizes)))
      return 1;
    localArgs.push_back(::pe::rt::extractBlock(args[i],
                                               {offsets.begin(), offsets.end()},
                                               {sizes.begin(), sizes.end()}));
    local.args[i].shape.assign(sizes.begin(), sizes.end());
  }
  FailureOr<Compiled> compiled =
      compile(module, local, shardPipelineEntry(), libs, runtimeChecks);
  if (failed(compiled))
    return 1;
  MPIEntryPoints mpi;
  if (!mpi.load())
    return fail("the MPI library does not export MPI_Init, MPI_Finalize and "
                "MPI_Barrier");
  if (mpi.init(nullptr, nullptr) != 0)
    return fail("MPI_Init failed");
  Invocation inv(local, localArgs);
  SmallVector<npy::Array> results;
  std::vector<double> ms;
  bool ok = succeeded(callRank(inv, compiled->fn, mpi, repeat, results, ms));
  mpi.finalize();
  if (!ok)
    return 1;
  for (auto [i, result] : llvm::enumerate(results))
    if (::pe::rt::Error err = npy::writeNpy(rankFile(dir, i, *rank), result))
      return fail(std::move(err));
  if (repeat) {
    std::error_code ec;
    llvm::raw_fd_ostream os(timesFile(dir, *rank), ec);
    if (ec)
      return fail("cannot write '" + timesFile(dir, *rank) +
                  "': " + ec.message());
    for (double t : ms)
      os << llvm::format("%.9g\n", t);
  }
  return 0;
}

/// The unsharded program: every shard annotation removed.
static FailureOr<OwningOpRef<ModuleOp>> unshardedModule(ModuleOp module) {
  OwningOpRef<ModuleOp> clone = module.clone();
  SmallVector<Operation *> erase;
  WalkResult walk = clone->walk([&](Operation *op) {
    if (auto shardOp = dyn_cast<shard::ShardOp>(op)) {
      shardOp.getResult().replaceAllUsesWith(shardOp.getSrc());
      erase.push_back(op);
    } else if (isa<shard::ShardingOp, shard::GridOp>(op)) {
      erase.push_back(op);
    } else if (isa<shard::ShardDialect>(op->getDialect())) {
      op->emitError("--check with --ranks: the unsharded program cannot "
                    "contain this op");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // Users before producers: shard.shard ops, then shardings, then grids.
  for (Operation *op : llvm::reverse(erase))
    if (op->use_empty())
      op->erase();
  return clone;
}

LogicalResult
checkPartitionedSignature(ModuleOp module, const Signature &sig,
                          const ShardedSignature &sharded,
                          ArrayRef<SmallVector<int64_t>> argShapes) {
  OwningOpRef<ModuleOp> clone = module.clone();
  PassManager pm(module.getContext());
  mlir::pe::ShardPipelineOptions options;
  options.lowerToLLVM = false;
  mlir::pe::buildShardPipeline(pm, options);
  if (failed(pm.run(*clone)))
    return error("pe-shard-pipeline failed");
  auto fn = clone->lookupSymbol<func::FuncOp>(sig.name);
  if (!fn)
    return error("pe-shard-pipeline removed function '" + sig.name + "'");
  FunctionType type = fn.getFunctionType();
  auto check = [&](Type t, const Distribution &d, ArrayRef<int64_t> shape,
                   const Twine &what) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return success();
    SmallVector<int64_t> offsets, sizes;
    if (failed(blockOf(d, shape, 0, offsets, sizes)))
      return failure();
    if (tensor.getShape() != ArrayRef<int64_t>(sizes))
      return error("--ranks: the partitioned function's " + what + " is " +
                   typeString(t) + ", but its annotations give blocks " +
                   shapeString(sizes));
    return success();
  };
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (i < argShapes.size() &&
        failed(check(t, sharded.args[i], argShapes[i], "argument " + Twine(i))))
      return failure();
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (failed(check(t, sharded.results[i],
                     cast<RankedTensorType>(sig.results[i].type).getShape(),
                     "result " + Twine(i))))
      return failure();
  return success();
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PE_RUN_ASAN 1
#endif
#endif

/// In an AddressSanitizer build of pe-run, keeps UCX (which MPICH's
/// libmpich.so loads) from binary-patching mmap/munmap in the rank processes:
/// its patches land on ASan's interceptors and the rank crashes while
/// libmpich.so is loaded. The ranks talk over shared memory on one machine,
/// where UCX's memory hooks (a cache of RDMA registrations) are not needed.
/// A value the user set is kept.
static void disableUCXMemoryHooksUnderASan() {
#ifdef PE_RUN_ASAN
  ::setenv("UCX_MEM_MMAP_HOOK_MODE", "none", /*overwrite=*/0);
#endif
}

/// "N" processes of the grid `op` (or its sharding) names, when static.
static std::string gridProcesses(Operation *op) {
  if (auto shardOp = dyn_cast<shard::ShardOp>(op))
    if (Operation *def = shardOp.getSharding().getDefiningOp())
      op = def;
  SymbolTableCollection symbols;
  auto name = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  shard::GridOp grid = shard::getGridOrNull(op, name, symbols);
  if (!grid)
    return "N";
  int64_t n = 1;
  for (int64_t size : grid.getShape()) {
    if (ShapedType::isDynamic(size))
      return "N";
    n *= size;
  }
  return std::to_string(n);
}

LogicalResult checkNotSharded(func::FuncOp fn, bool emitting) {
  // The pipelines lower the whole module: any sharded function fails them.
  Operation *found = nullptr;
  fn->getParentOp()->walk([&](Operation *op) {
    if (!isa<shard::ShardDialect>(op->getDialect()) || isa<shard::GridOp>(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  if (!found)
    return success();
  auto owner = found->getParentOfType<func::FuncOp>();
  std::string ranks = gridProcesses(found);
  std::string what = emitting
                         ? "--emit-executable compiles it with --pipeline=cpu "
                           "only (pe-shard-pipeline)"
                         : "its annotations need one process per block";
  if (owner == fn) {
    found->emitError() << "function '" << fn.getSymName()
                       << "' is sharded: " << what
                       << "; run it with --ranks=" << ranks;
    return error("function '" + fn.getSymName() + "' is sharded: " +
                 (emitting ? "emit it with --pipeline=cpu (an MPI program), "
                             "or run it with --ranks="
                           : "run it with --ranks=") +
                 ranks + " (pe-shard-pipeline on MPI ranks)");
  }
  std::string name =
      owner ? ("function '" + owner.getSymName() + "'").str() : "an op";
  found->emitError() << name << " is sharded, and pe-run compiles the "
                     << "whole module: '" << fn.getSymName()
                     << "' runs without --ranks only from a module without "
                        "shard annotations";
  return error(name + " of the module is sharded: run '" + fn.getSymName() +
               "' from a module without shard annotations");
}

FailureOr<SmallVector<std::string>> launcherCommand(StringRef spec) {
  std::string from = "--mpiexec";
  std::string text = spec.str();
  if (text.empty()) {
    const char *env = std::getenv("PE_MPIEXEC");
    if (env && *env) {
      text = env;
      from = "PE_MPIEXEC";
    } else {
      text = "mpiexec.mpich";
      from = "the default launcher";
    }
  }
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  SmallVector<const char *> words;
  llvm::cl::TokenizeGNUCommandLine(text, saver, words);
  if (words.empty())
    return error(from + " names no program");
  SmallVector<std::string> command(words.begin(), words.end());
  StringRef program = command.front();
  if (program.contains('/')) {
    if (!llvm::sys::fs::can_execute(program))
      return error(from + ": '" + program + "' is not an executable file");
    return command;
  }
  llvm::ErrorOr<std::string> exe = llvm::sys::findProgramByName(program);
  if (!exe)
    return error("cannot find '" + program + "' (" + from +
                 "; Debian package mpich, or give --mpiexec)");
  command.front() = *exe;
  return command;
}

/// Starts the ranks and waits for them (see runRanks); returns the exit
/// status, or ends pe-run by the signal that interrupted it.
static int launchRanks(const RanksOptions &options, StringRef dir) {
  std::string self =
      llvm::sys::fs::getMainExecutable(nullptr, (void *)&launchRanks);
  disableUCXMemoryHooksUnderASan();
  SmallVector<std::string> argv(options.mpiexec.begin(), options.mpiexec.end());
  argv.append({"-n", std::to_string(options.ranks), self});
  argv.append(options.rankArgs.begin(), options.rankArgs.end());
  argv.push_back(("--rank-dir=" + dir).str());
  llvm::outs().flush();
  SupervisedExit exit =
      runSupervised(argv, options.timeoutSeconds, /*graceSeconds=*/5.0);
  std::string launcher = llvm::sys::path::filename(argv.front()).str();
  std::string stopped = "stopped " + launcher + " and its processes" +
                        (exit.strays ? " (" + std::to_string(exit.strays) +
                                           " still running were killed)"
                                     : std::string());
  switch (exit.kind) {
  case SupervisedExit::Kind::Exited:
    if (exit.status == 0 && !exit.strays)
      return 0;
    if (exit.status == 0)
      return fail(launcher + " exited, but " + Twine(exit.strays) +
                  " of its processes were still running (killed)");
    return fail("the " + Twine(options.ranks) + " ranks failed (" + launcher +
                (exit.signal ? " killed by signal " + Twine(exit.signal)
                             : " exit status " + Twine(exit.status)) +
                ")");
  case SupervisedExit::Kind::TimedOut: {
    char limit[32];
    std::snprintf(limit, sizeof(limit), "%g", options.timeoutSeconds);
    return fail("the " + Twine(options.ranks) +
                " ranks did not finish within " + limit +
                " s (--ranks-timeout): " + stopped);
  }
  case SupervisedExit::Kind::Interrupted:
    (void)llvm::sys::fs::remove_directories(dir);
    (void)error(Twine("interrupted by ") + strsignal(exit.signal) + ": " +
                stopped + " and removed the scratch directory");
    exitBySignal(exit.signal);
  case SupervisedExit::Kind::NotStarted:
    break;
  }
  return fail("cannot start " + launcher + ": " + exit.message);
}

static double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Reads the times rank `r` wrote.
static FailureOr<std::vector<double>> readTimes(StringRef dir, int64_t r,
                                                int repeat) {
  auto buf = llvm::MemoryBuffer::getFile(timesFile(dir, r));
  if (!buf)
    return error("rank " + Twine(r) + " wrote no times ('" + timesFile(dir, r) +
                 "')");
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::vector<double> times;
  for (StringRef line : lines) {
    double t;
    if (line.trim().getAsDouble(t))
      return error("rank " + Twine(r) + ": bad time '" + line + "'");
    times.push_back(t);
  }
  if (int64_t(times.size()) != repeat)
    return error("rank " + Twine(r) + " timed " + Twine(times.size()) +
                 " calls, not " + Twine(repeat));
  return times;
}

/// Prints each rank's times, then those of the calls: a call takes as long
/// as its slowest rank.
static LogicalResult reportTimes(StringRef dir, const RanksOptions &options) {
  std::vector<std::vector<double>> times;
  for (int64_t r = 0; r < options.ranks; ++r) {
    FailureOr<std::vector<double>> t = readTimes(dir, r, options.repeat);
    if (failed(t))
      return failure();
    times.push_back(std::move(*t));
    llvm::outs() << "pe-run: time rank=" << r << " runs=" << options.repeat
                 << llvm::format(" min_ms=%.6f median_ms=%.6f",
                                 *std::min_element(times.back().begin(),
                                                   times.back().end()),
                                 medianOf(times.back()))
                 << "\n";
  }
  std::vector<double> slowest(options.repeat, 0.0);
  std::vector<int64_t> slowestCount(options.ranks, 0);
  for (int i = 0; i < options.repeat; ++i) {
    int64_t who = 0;
    for (int64_t r = 0; r < options.ranks; ++r)
      if (times[r][i] > times[who][i])
        who = r;
    slowest[i] = times[who][i];
    ++slowestCount[who];
  }
  int64_t mostOften =
      std::max_element(slowestCount.begin(), slowestCount.end()) -
      slowestCount.begin();
  llvm::outs() << "pe-run: time pipeline=shard ranks=" << options.ranks
               << " runs=" << options.repeat
               << llvm::format(
                      " min_ms=%.6f median_ms=%.6f",
                      *std::min_element(slowest.begin(), slowest.end()),
                      medianOf(slowest))
               << " slowest_rank=" << mostOften << "\n";
  return success();
}

int runRanks(ModuleOp module, const Signature &sig,
             const ShardedSignature &sharded, ArrayRef<npy::Array> args,
             const RanksOptions &options) {
  if (options.ranks != sharded.processes)
    return fail("--ranks=" + Twine(options.ranks) +
                " but the function's grid has " + Twine(sharded.processes) +
                " processes");
  SmallVector<SmallVector<int64_t>> argShapes;
  for (const npy::Array &a : args)
    argShapes.emplace_back(a.shape.begin(), a.shape.end());
  if (failed(checkPartitionedSignature(module, sig, sharded, argShapes)))
    return 1;
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("pe-run-ranks", dir))
    return fail("cannot create a scratch directory: " + ec.message());
  llvm::scope_exit cleanup(
      [&] { (void)llvm::sys::fs::remove_directories(dir); });
  if (int status = launchRanks(options, dir))
    return status;

  // Assemble the global results.
  SmallVector<npy::Array> results;
  for (auto [i, spec] : llvm::enumerate(sig.results)) {
    auto type = cast<RankedTensorType>(spec.type);
    if (!type.hasStaticShape())
      return fail("--ranks: result " + Twine(i) + " has a dynamic shape");
    ::pe::rt::Expected<npy::Array> made = npy::makeArray(
        storageDType(spec.elem) == npy::DType::BF16 ? npy::DType::F32
                                                    : storageDType(spec.elem),
        type.getShape().vec());
    if (!made)
      return fail(made.takeError());
    npy::Array global = std::move(*made);
    std::set<std::vector<int64_t>> seen;
    for (int64_t r = 0; r < options.ranks; ++r) {
      ::pe::rt::Expected<npy::Array> block = npy::readNpy(rankFile(dir, i, r));
      if (!block)
        return fail(block.takeError());
      SmallVector<int64_t> offsets, sizes;
      if (failed(
              blockOf(sharded.results[i], type.getShape(), r, offsets, sizes)))
        return 1;
      if (ArrayRef<int64_t>(block->shape) != ArrayRef<int64_t>(sizes) ||
          block->dtype != global.dtype)
        return fail("rank " + Twine(r) + " returned result " + Twine(i) +
                    " of shape " + shapeString(block->shape) +
                    ", expected its block " + shapeString(sizes));
      bool replica = !seen.insert({offsets.begin(), offsets.end()}).second;
      if (!::pe::rt::insertBlock(global, block->data.data(),
                                 {offsets.begin(), offsets.end()}, block->shape,
                                 replica))
        return fail("result " + Twine(i) + ": rank " + Twine(r) +
                    " disagrees with another rank on a replicated block");
    }
    results.push_back(std::move(global));
  }
  llvm::outs() << "pe-run: ran '" << sig.name << "' on " << options.ranks
               << " ranks (pe-shard-pipeline)\n";
  if (options.repeat && failed(reportTimes(dir, options)))
    return 1;
  for (auto [path, result] : llvm::zip(options.outputs, results))
    if (::pe::rt::Error err = npy::writeNpy(path, result))
      return fail(std::move(err));
  if (!options.checkPipeline)
    return 0;

  // The unsharded program on the global inputs.
  FailureOr<OwningOpRef<ModuleOp>> plain = unshardedModule(module);
  if (failed(plain))
    return 1;
  FailureOr<Compiled> check = compile(**plain, sig, *options.checkPipeline,
                                      options.libs, options.runtimeChecks);
  if (failed(check))
    return 1;
  Invocation inv(sig, args);
  SmallVector<npy::Array> expected;
  if (failed(inv.prepare()) || failed(inv.call(check->fn, &expected, nullptr)))
    return 1;
  int status = 0;
  for (size_t i = 0; i < results.size(); ++i)
    if (!checkResult(i, results[i], expected[i], options.rtol, options.atol))
      status = 1;
  return status;
}

} // namespace pe::run
