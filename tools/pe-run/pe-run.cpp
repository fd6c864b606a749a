//===- pe-run.cpp - JIT runtime harness -----------------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// pe-run's driver: reads the command line (Options.cpp), parses the module,
// and runs the function (JIT, Compile.cpp), runs it on MPI ranks (Ranks.cpp)
// or writes an executable of it (EmitExecutable.cpp). See pe-run --help.
//
//===----------------------------------------------------------------------===//

#include "pe/InitAllPE.h"
#include "pe/Transforms/GPU/Passes.h"

#include "EmitExecutable.h"
#include "Harness.h"
#include "Options.h"
#include "PipelineTable.h"
#include "Ranks.h"
#include "ShardExecutable.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <malloc.h>
#include <optional>

using namespace mlir;
using namespace ::pe::run;
using llvm::SmallVector;
using llvm::Twine;

static_assert(sizeof(void *) == 8 && sizeof(int64_t) == 8,
              "pe-run assumes 64-bit pointers (memref descriptor layout)");

/// The registry of every dialect, extension and translation pe-run's
/// pipelines use.
static void registerEverything(DialectRegistry &registry) {
  // Every target LLVM was built with: --emit-executable compiles for the
  // CPU target of --target-triple, which may be another architecture.
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  mlir::registerAllPasses();
  mlir::pe::registerAllPasses();

  mlir::pe::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu.launch_func memory effects for buffer deallocation (pe-gpu-pipeline).
  mlir::pe::registerLaunchFuncMemoryEffectsModel(registry);
  // Builtin and LLVM dialect translations (and the others, for pipelines
  // that leave omp/gpu ops for the translation).
  mlir::registerAllToLLVMIRTranslations(registry);
}

/// --remarks: prints the remarks of the categories matching `regex`.
static LogicalResult enableRemarks(MLIRContext &context,
                                   const std::string &regex) {
  if (std::string error; !llvm::Regex(regex).isValid(error))
    return ::pe::run::error("--remarks: invalid regular expression '" + regex +
                            "': " + error);
  remark::RemarkCategories categories{regex, regex, regex, regex, regex};
  if (failed(remark::enableOptimizationRemarks(
          context, /*streamer=*/nullptr,
          std::make_unique<remark::RemarkEmittingPolicyAll>(), categories,
          /*printAsEmitRemarks=*/true)))
    return ::pe::run::error("--remarks: cannot enable the remark engine");
  return success();
}

/// The function to run: a definition named `o.entry`.
static FailureOr<func::FuncOp> findFunction(ModuleOp module,
                                            const DriverOptions &o) {
  auto fn = module.lookupSymbol<func::FuncOp>(o.entry);
  if (fn && !fn.isExternal())
    return fn;
  SmallVector<std::string> names;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      names.push_back(f.getSymName().str());
  std::string available =
      names.empty() ? std::string("none") : llvm::join(names, ", ");
  if (fn)
    return error("function '" + o.entry + "' in '" + o.inputFile +
                 "' is a declaration; available: " + available);
  return error("no func.func named '" + o.entry + "' in '" + o.inputFile +
               "'; available: " + available);
}

/// --emit-executable: a sharded function is emitted as an MPI program
/// (ShardExecutable.h).
static int emit(ModuleOp module, func::FuncOp fn, const Signature &sig,
                const DriverOptions &o, const char *argv0) {
  bool emitSharded = o.pipeline->name == "cpu" && hasShardAnnotations(fn);
  if (!emitSharded && failed(checkNotSharded(fn, /*emitting=*/true)))
    return 1;
  FailureOr<ShardedExecutable> shardExe = ShardedExecutable();
  if (emitSharded)
    shardExe = prepareShardedExecutable(fn, sig);
  if (failed(shardExe))
    return 1;
  return failed(emitExecutable(module, sig,
                               emitSharded ? *shardExe->pipeline : *o.pipeline,
                               o.runtimeChecks, o.emitPath, peLibraryDir(argv0),
                               emitSharded ? &*shardExe : nullptr))
             ? 1
             : 0;
}

/// Fails unless `o` gives the function `numResults` --output files (none is
/// fine when `optional`).
static LogicalResult checkOutputs(const DriverOptions &o, size_t numResults,
                                  bool optional) {
  if (o.outputs.size() == numResults || (optional && o.outputs.empty()))
    return success();
  return error("function '" + o.entry + "' has " + Twine(numResults) +
               " result" + (numResults == 1 ? "" : "s") + " but " +
               Twine(o.outputs.size()) + " --output files were given");
}

/// --ranks (and --rank-dir, one rank of it).
static int runSharded(ModuleOp module, func::FuncOp fn, const Signature &sig,
                      ArrayRef<npy::Array> args, const DriverOptions &o,
                      ArrayRef<std::string> libs) {
  FailureOr<ShardedSignature> shardedSig = readShardedSignature(fn);
  if (failed(shardedSig))
    return 1;
  if (!o.rankDir.empty())
    return runRank(module, sig, *shardedSig, args, o.rankDir, libs,
                   o.runtimeChecks, o.timing ? o.repeat : 0);
  if (failed(checkOutputs(o, sig.results.size(), o.checkPipeline || o.timing)))
    return 1;
  // What each rank is started with.
  SmallVector<std::string> rankArgs = {o.inputFile, "-e", o.entry};
  for (const std::string &in : o.inputs)
    rankArgs.push_back("--input=" + in);
  if (o.randomInputs)
    rankArgs.push_back("--random-inputs");
  rankArgs.push_back("--seed=" + std::to_string(o.seed));
  for (const std::string &lib : o.sharedLibs)
    rankArgs.push_back("--shared-libs=" + lib);
  rankArgs.push_back("--mpi-lib=" + o.mpiLib);
  if (o.remarks)
    rankArgs.push_back("--remarks=" + *o.remarks);
  if (!o.runtimeChecks)
    rankArgs.push_back("--runtime-checks=false");
  if (o.timing)
    rankArgs.push_back("--repeat=" + std::to_string(o.repeat));
  // The ranks' code is for the command line's CPU target.
  const mlir::pe::CPUTargetSpec &target = getPipelineSettings().cpuTarget;
  if (!target.triple.empty())
    rankArgs.push_back("--target-triple=" + target.triple);
  if (!target.cpu.empty())
    rankArgs.push_back("--target-cpu=" + target.cpu);
  if (!target.features.empty())
    rankArgs.push_back("--target-features=" + target.features);
  RanksOptions options;
  options.ranks = o.ranks;
  options.rankArgs = std::move(rankArgs);
  options.outputs.assign(o.outputs.begin(), o.outputs.end());
  options.checkPipeline = o.checkPipeline;
  options.libs.assign(libs.begin(), libs.end());
  options.rtol = o.rtol;
  options.atol = o.atol;
  options.runtimeChecks = o.runtimeChecks;
  options.timeoutSeconds = o.ranksTimeout;
  options.repeat = o.timing ? o.repeat : 0;
  FailureOr<SmallVector<std::string>> launcher = launcherCommand(o.mpiexec);
  if (failed(launcher))
    return 1;
  options.mpiexec = std::move(*launcher);
  return runRanks(module, sig, *shardedSig, args, options);
}

/// Times the calls of `--repeat` (and of --check's pipeline, with the
/// speedup).
static LogicalResult timeBoth(Invocation &mainInv, const Compiled &primary,
                              Invocation *checkInv, const Compiled *check,
                              const DriverOptions &o) {
  double flops = o.flopRoof ? o.flops : 0.0;
  FailureOr<Timing> t =
      timeCalls(mainInv, primary, o.repeat, o.roofline, flops);
  if (failed(t))
    return failure();
  if (!checkInv)
    return success();
  FailureOr<Timing> tc =
      timeCalls(*checkInv, *check, o.repeat, o.roofline, flops);
  if (failed(tc))
    return failure();
  double speedup = t->medianMs > 0    ? tc->medianMs / t->medianMs
                   : tc->medianMs > 0 ? std::numeric_limits<double>::infinity()
                                      : 1.0;
  llvm::outs() << "pe-run: speedup " << check->pipeline << "/"
               << primary.pipeline << llvm::format(" median=%.3fx", speedup)
               << "\n";
  return success();
}

/// Compiles and runs the function in this process (with --check, also by
/// the check pipeline), writes the results, compares and times them.
static int runLocal(ModuleOp module, const Signature &sig,
                    ArrayRef<npy::Array> args, const DriverOptions &o,
                    ArrayRef<std::string> libs) {
  size_t numResults = sig.results.size();
  if (failed(checkOutputs(o, numResults, o.checkPipeline || o.timing)))
    return 1;
  FailureOr<Compiled> primary =
      compile(module, sig, *o.pipeline, libs, o.runtimeChecks);
  if (failed(primary))
    return 1;
  FailureOr<Compiled> check;
  if (o.checkPipeline) {
    check = compile(module, sig, *o.checkPipeline, libs, o.runtimeChecks);
    if (failed(check))
      return 1;
  }

  Invocation mainInv(sig, args);
  if (failed(mainInv.prepare()))
    return 1;
  SmallVector<npy::Array> results;
  if (failed(mainInv.call(primary->fn, &results, nullptr)))
    return 1;
  for (auto [path, result] : llvm::zip(o.outputs, results))
    if (::pe::rt::Error err = npy::writeNpy(path, result))
      return fail(std::move(err));

  int status = 0;
  std::optional<Invocation> checkInv;
  if (o.checkPipeline) {
    checkInv.emplace(sig, args);
    if (failed(checkInv->prepare()))
      return 1;
    SmallVector<npy::Array> expected;
    if (failed(checkInv->call(check->fn, &expected, nullptr)))
      return 1;
    for (size_t i = 0; i < numResults; ++i)
      if (!checkResult(i, results[i], expected[i], o.rtol, o.atol))
        status = 1;
  }
  if (o.timing &&
      failed(timeBoth(mainInv, *primary, checkInv ? &*checkInv : nullptr,
                      o.checkPipeline ? &*check : nullptr, o)))
    return 1;
  llvm::outs().flush();
  return status;
}

/// The arguments: the --input files, the rest --random-inputs.
static FailureOr<std::vector<npy::Array>>
readArguments(const Signature &sig, const DriverOptions &o) {
  size_t numArgs = sig.args.size();
  if (o.inputs.size() > numArgs)
    return error(Twine(o.inputs.size()) +
                 " --input files given but function '" + o.entry + "' takes " +
                 Twine(numArgs) + " argument" + (numArgs == 1 ? "" : "s"));
  if (o.inputs.size() < numArgs && !o.randomInputs)
    return error("function '" + o.entry + "' takes " + Twine(numArgs) +
                 " argument" + (numArgs == 1 ? "" : "s") + " but " +
                 Twine(o.inputs.size()) +
                 " --input files were given (--random-inputs fills the "
                 "rest)");
  std::vector<npy::Array> args;
  for (size_t i = 0; i < numArgs; ++i) {
    FailureOr<npy::Array> a = readArgument(sig, i, o.inputs, o.seed);
    if (failed(a))
      return failure();
    args.push_back(std::move(*a));
  }
  return args;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Keep freed memory in the process: glibc would otherwise mmap every large
  // result buffer afresh and unmap it on free, so each timed call would pay
  // a page fault per 4 KiB of output (for a 64 MiB result, more than the
  // computation). Serving frameworks reuse memory the same way (caching
  // allocators). It changes what --repeat measures, not any result.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());

  DriverOptions o;
  if (failed(parseCommandLine(argc, argv, o)))
    return 1;
  FailureOr<SmallVector<std::string>> libs = jitLibraries(o, argv[0]);
  if (failed(libs))
    return 1;
  DialectRegistry registry;
  registerEverything(registry);
  MLIRContext context(registry);
  if (o.remarks && failed(enableRemarks(context, *o.remarks)))
    return 1;

  // Parse and verify, with located diagnostics.
  std::string errorMessage;
  auto file = openInputFile(o.inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse '" + o.inputFile + "'");
  FailureOr<func::FuncOp> fn = findFunction(*module, o);
  if (failed(fn))
    return 1;
  FailureOr<Signature> sig = readSignature(*fn);
  if (failed(sig))
    return 1;
  if (o.emitting)
    return emit(*module, *fn, *sig, o, argv[0]);
  if (!o.sharded && failed(checkNotSharded(*fn, /*emitting=*/false)))
    return 1;
  FailureOr<std::vector<npy::Array>> args = readArguments(*sig, o);
  if (failed(args))
    return 1;
  if (o.sharded)
    return runSharded(*module, *fn, *sig, *args, o, *libs);
  return runLocal(*module, *sig, *args, o, *libs);
}
