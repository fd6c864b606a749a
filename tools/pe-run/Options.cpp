//===- Options.cpp - pe-run's command line --------------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "NumberParser.h"
#include "PipelineTable.h"

#include "pe/Version.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

#include <cmath>
#include <cstdio>
#include <limits>

#ifndef PE_MPI_LIBRARY
#define PE_MPI_LIBRARY ""
#endif

using namespace mlir;
using namespace ::pe::run;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;

namespace pe::run {

static const char kOverview[] =
    R"(JIT-compile one function of a .mlir file with MLIR's
ExecutionEngine and run it on .npy data.

  pe-run FILE.mlir -e FUNC --input=a.npy [--input=b.npy ...] --output=out.npy [--output=...]
         [--pipeline=reference] [--check=reference] [--rtol=R --atol=A]
         [--repeat=N [--roofline] [--flops=F]] [--seed=S --random-inputs] [--shared-libs=a.so,b.so]
  pe-run FILE.mlir -e FUNC --ranks=N --input=... --output=... [--check=reference]
  pe-run FILE.mlir -e FUNC --pipeline=P --emit-executable=EXE

FUNC must be a func.func whose arguments are ranked tensors of f32, f64, f16,
bf16, i32, i64, i8 or i1, or index, i32, i64, f32 or f64 scalars, and whose
results are ranked tensors of those element types.

Inputs: the --input files map to the arguments in order. A tensor argument
takes a .npy of its own dtype (f32 '<f4', f64 '<f8', f16 '<f2', i32 '<i4',
i64 '<i8', i8 '|i1', i1 '|b1' (bool)); a bf16 argument takes float32 (rounded
to nearest even) or pe-mlir's 'bfloat16' descriptor. Static dimensions must
equal the file's; dynamic dimensions take the file's size. A scalar argument
takes a 0-d or 1-element 1-d array: integer dtypes for index/i32/i64
(range-checked), float dtypes for f32/f64 (rounded to nearest even).

--random-inputs fills the arguments after the last --input deterministically
from --seed (default 0) with splitmix64, one stream per argument seeded from
the seed and the argument index (same data on every platform): floats uniform
in [-1, 1) (on a grid exact in the element type), integers uniform in [0, 8),
i1 uniform in {0, 1}; scalar arguments are 0. Needs static shapes.

Outputs: one --output per result, in order (optional with --check or --repeat;
when given, one per result). f16 results are written as float16, bf16 results
as float32 (exact widening), all others with their own dtype.

--check=P compiles the function a second time with pipeline P, runs both on
the same inputs and prints, per result,
  pe-run: check result I: max_abs_err=E max_rel_err=E rtol=R atol=A: PASS
(or FAIL). A result passes if shapes match and |a - r| <= atol + rtol*|r|
elementwise; NaN must meet NaN, infinities must match exactly. The exit status
is 1 unless all results pass.

--repeat=N makes one warm-up call, then N timed calls, and prints
  pe-run: time pipeline=P runs=N min_ms=T median_ms=T
With --check the check pipeline C is timed too, followed by
  pe-run: speedup C/P median=Xx
Only the call is timed (not the input copies). Freed memory stays in the
process, so result buffers of later calls reuse pages already mapped.

--roofline (with --repeat; host pipelines only) measures how close a
memory-bound function comes to the memory bandwidth. B is the bytes of its
tensor arguments (as stored) and results. Before each timed call the caches
are evicted (a read of twice the last-level cache); after it, in the same
process and on the same threads (libomp's team when the code uses OpenMP),
pe-run times a read of B bytes (one stream per thread, and the fastest of 1,
2, 4 and 8 concurrent streams per thread), and a copy of B/2 bytes into
another B/2 with plain and with streaming stores, each after an eviction
too. It prints
  pe-run: roofline pipeline=P bytes=B threads=N team=T call_gbs=G
          read_gbs=G copy_gbs=G copy_nt_gbs=G read_fraction=F copy_fraction=F
          best_read_gbs=G best_read_fraction=F
(one line; T is libomp or, when libomp is not loaded, pool: N threads of
pe-run's own, N from OMP_NUM_THREADS or the hardware threads): medians over
the calls of the bandwidths B / time, of
read_fraction = read time / call time, of copy_fraction = the faster copy's
time / call time and of best_read_fraction = the fastest read's time / call
time, each ratio taken from one call and the roofs right after it.

--flops=F (with --repeat; host pipelines only) measures how close a
compute-bound function that performs F floating-point operations per call
comes to the FP32 multiply-add peak. After each timed call (caches not
evicted, unless with --roofline), on the same threads as the roofs, pe-run
runs a loop of independent multiply-adds in the vectors of the code's CPU
target (I: avx512, avx2 or generic; e.g. avx2 for --target-cpu=x86-64-v3 on an
AVX-512 machine) for about as long as the call took, and prints
  pe-run: flops pipeline=P flops=F threads=N team=T isa=I call_gflops=G
          peak_gflops=G peak_fraction=F
(one line): medians over the calls of F / call time, of the loop's rate and
of peak_fraction = (F / call time) / the loop's rate right after the call.

Pipelines: 'reference' (pe-reference-pipeline, the unfused semantics),
'cpu' (pe-cpu-pipeline: fusion and generated kernels; loads libomp) and
'vulkan' (pe-gpu-pipeline{target=spirv}: GPU kernels as SPIR-V, run through
Vulkan by pe's runtime library libpe_vulkan_runtime.so; on a machine without
a GPU, Mesa's lavapipe runs them on the CPU) and 'cuda' (pe-gpu-pipeline,
target nvvm: PTX kernels on an NVIDIA GPU through pe's CUDA runtime
libpe_cuda_runtime.so, which loads the driver libcuda.so.1 at run time; without
a driver or device it prints one 'pe-cuda-runtime: error:' line and exits
with status 1; the CUDA toolkit is found through CUDA_ROOT for libdevice).

--ranks=N runs the function as an SPMD program on N MPI processes: its
arguments and results carry shard.shard annotations on a grid of N
processes. pe-run starts the ranks with `LAUNCHER -n N pe-run ...`, where
LAUNCHER is --mpiexec (a command with arguments, e.g. 'mpiexec.mpich -f
hosts'), else $PE_MPIEXEC, else mpiexec.mpich. Each rank reads the global
--input files, keeps its block of each argument, compiles the module with
pe-shard-pipeline and runs it; pe-run gathers the result blocks into the
global --output files (blocks that several ranks hold must agree bit for bit)
and prints
  pe-run: ran 'FUNC' on N ranks (pe-shard-pipeline)
--check=P then compiles the function with its annotations removed (the
unsharded program) with pipeline P, runs it on the global inputs and compares
as above. --repeat=R times R more calls in every rank, started together, and
prints each rank's times and those of the calls (a call takes as long as its
slowest rank):
  pe-run: time pipeline=shard ranks=N runs=R min_ms=... median_ms=... slowest_rank=K
The ranks are stopped after --ranks-timeout seconds (default 600; 0: no
limit) or when pe-run gets SIGINT, SIGTERM or SIGHUP; no rank, launcher
process or scratch directory (in TMPDIR) is left after an error, a time-out
or such a signal. --pipeline, --roofline and --flops do not apply. Needs
static shapes split evenly. A sharded function without --ranks is an error,
except with --pipeline=cpu --emit-executable=EXE: EXE is then an MPI program
(mpiexec -n N EXE ...) on the global inputs, rank 0 writing the results.

--emit-executable=EXE compiles the function with --pipeline (reference, cpu,
vulkan or cuda) into a standalone executable instead of running it: the
lowered module is compiled to an object in-process (LLVM O3; for the host CPU
with pipelines reference and cpu, for the generic CPU of the triple with the
GPU pipelines) and linked by clang++ with pe's AOT archives. EXE needs no LLVM
or MLIR: 'cuda' needs only libcuda.so.1 at run time, 'vulkan' libvulkan.so.1,
'cpu' libomp.so.5 when the code uses OpenMP. It takes pe-run's --input,
--output, --random-inputs, --seed and --repeat (same checks, same random data,
same .npy output; 'EXE --help' prints its signature) and prints
  pe-aot: time pipeline=P runs=N min_ms=T median_ms=T

Errors print one 'pe-run: error: ...' line on stderr (after the located MLIR
diagnostics, if any) and exit with status 1.
)";

static llvm::cl::OptionCategory category("pe-run options");
static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::Required,
                                            llvm::cl::desc("<input.mlir>"),
                                            llvm::cl::cat(category));
static llvm::cl::opt<std::string> entry("e", llvm::cl::Required,
                                        llvm::cl::desc("The func.func to run"),
                                        llvm::cl::value_desc("function"),
                                        llvm::cl::cat(category));
static llvm::cl::list<std::string>
    inputs("input", llvm::cl::desc("Argument data, one per argument, in order"),
           llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
static llvm::cl::list<std::string>
    outputs("output",
            llvm::cl::desc("Where to write the results, one per result"),
            llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    pipelineName("pipeline",
                 llvm::cl::desc("Lowering pipeline (default reference)"),
                 llvm::cl::init("reference"), llvm::cl::value_desc("name"),
                 llvm::cl::cat(category));
static llvm::cl::opt<std::string> checkName(
    "check",
    llvm::cl::desc("Also run the function lowered by this pipeline and "
                   "compare the results"),
    llvm::cl::value_desc("name"), llvm::cl::cat(category));
static llvm::cl::opt<double, false, pe_run::NumberParser<double>>
    rtol("rtol", llvm::cl::desc("Relative tolerance of --check (default 1e-5)"),
         llvm::cl::init(1e-5), llvm::cl::cat(category));
static llvm::cl::opt<double, false, pe_run::NumberParser<double>>
    atol("atol", llvm::cl::desc("Absolute tolerance of --check (default 1e-6)"),
         llvm::cl::init(1e-6), llvm::cl::cat(category));
static llvm::cl::opt<int, false, pe_run::NumberParser<int>>
    repeat("repeat", llvm::cl::desc("Time N calls after one warm-up call"),
           llvm::cl::value_desc("N"), llvm::cl::cat(category));
static llvm::cl::opt<bool> roofline(
    "roofline",
    llvm::cl::desc("With --repeat: evict the caches before each timed call "
                   "and time read and copy roofs of the same bytes after "
                   "it (see below)"),
    llvm::cl::cat(category));
static llvm::cl::opt<double, false, pe_run::NumberParser<double>> flops(
    "flops",
    llvm::cl::desc("With --repeat: the floating-point operations of one "
                   "call; time the FP32 multiply-add peak after each call "
                   "(see below)"),
    llvm::cl::value_desc("F"), llvm::cl::cat(category));
static llvm::cl::opt<unsigned long long, false,
                     pe_run::NumberParser<unsigned long long>>
    seed("seed", llvm::cl::desc("Seed of --random-inputs (default 0)"),
         llvm::cl::init(0), llvm::cl::value_desc("S"), llvm::cl::cat(category));
static llvm::cl::opt<bool> randomInputs(
    "random-inputs",
    llvm::cl::desc("Fill arguments without an --input with random data"),
    llvm::cl::cat(category));
static llvm::cl::opt<std::string> remarks(
    "remarks",
    llvm::cl::desc("Print the optimization remarks (passed, missed, "
                   "failed, analysis) of the categories matching this "
                   "regular expression, e.g. 'pe-.*|convert-pe-to-vector' "
                   "for why a fusion or a generated kernel did not apply"),
    llvm::cl::value_desc("regex"), llvm::cl::cat(category));
static llvm::cl::opt<bool> runtimeChecks(
    "runtime-checks",
    llvm::cl::desc("Check dynamic sizes against the pe ops' size relations "
                   "in the compiled code (the pipelines' runtime-checks "
                   "option; default true); a failed check is an error"),
    llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<std::string> targetTriple(
    "target-triple",
    llvm::cl::desc("CPU target of the cpu pipeline "
                   "(pe-cpu-pipeline{triple}); default: the module's "
                   "llvm.target, else this machine"),
    llvm::cl::value_desc("triple"), llvm::cl::cat(category));
static llvm::cl::opt<std::string> targetCPU(
    "target-cpu",
    llvm::cl::desc("CPU of --target-triple (pe-cpu-pipeline{cpu}): "
                   "x86-64-v3 (AVX2 + FMA), x86-64-v4 (AVX-512), ..."),
    llvm::cl::value_desc("cpu"), llvm::cl::cat(category));
static llvm::cl::opt<std::string> targetFeatures(
    "target-features",
    llvm::cl::desc("Features of --target-triple on top of its CPU's "
                   "(pe-cpu-pipeline{features}), as '+avx512bf16,-fma'"),
    llvm::cl::value_desc("features"), llvm::cl::cat(category));
static llvm::cl::opt<bool> cpuOpenMPFlag(
    "cpu-openmp",
    llvm::cl::desc("Run the cpu pipeline's parallel loops on OpenMP "
                   "threads (pe-cpu-pipeline{openmp}; default true); false: "
                   "sequential loops, no libomp needed"),
    llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<std::string> tensorCores(
    "gpu-tensor-cores",
    llvm::cl::desc("Tensor-core attention kernels of the vulkan and cuda "
                   "pipelines (pe-gpu-pipeline{tensor-cores}): auto, off, "
                   "emulate (mma.sync emulated through workgroup memory)"),
    llvm::cl::init("auto"), llvm::cl::value_desc("mode"),
    llvm::cl::cat(category));
static llvm::cl::opt<int64_t, false, pe_run::NumberParser<int64_t>>
    decodeSplitKeys(
        "gpu-decode-split-keys",
        llvm::cl::desc(
            "Keys per split of a decode attention in the vulkan and "
            "cuda pipelines (pe-gpu-pipeline{decode-split-keys}); 0: "
            "no split"),
        llvm::cl::init(128), llvm::cl::value_desc("keys"),
        llvm::cl::cat(category));
static llvm::cl::opt<int64_t, false, pe_run::NumberParser<int64_t>>
    sharedMemoryBytes(
        "gpu-shared-memory-bytes",
        llvm::cl::desc("Static workgroup memory a kernel of the vulkan and "
                       "cuda pipelines may use "
                       "(pe-gpu-pipeline{shared-memory-bytes}); 0: the "
                       "target's (32768 on vulkan, 49152 on cuda)"),
        llvm::cl::init(0), llvm::cl::value_desc("bytes"),
        llvm::cl::cat(category));
static llvm::cl::list<std::string> sharedLibs(
    "shared-libs",
    llvm::cl::desc("Extra libraries for the JIT to load (comma separated); "
                   "libmlir_c_runner_utils.so is always loaded"),
    llvm::cl::value_desc("a.so,b.so"), llvm::cl::CommaSeparated,
    llvm::cl::cat(category));

static llvm::cl::opt<std::string> emitPath(
    "emit-executable",
    llvm::cl::desc("Compile the function with --pipeline into a standalone "
                   "executable at this path instead of running it (see "
                   "below)"),
    llvm::cl::value_desc("path"), llvm::cl::cat(category));

// A string, so that a value that is not a number gets pe-run's error line.
static llvm::cl::opt<std::string>
    ranksText("ranks",
              llvm::cl::desc("Run the sharded function on N MPI processes with "
                             "mpiexec and gather its results"),
              llvm::cl::value_desc("N"), llvm::cl::cat(category));
static llvm::cl::opt<std::string> mpiexec(
    "mpiexec",
    llvm::cl::desc("The MPI launcher of --ranks and its arguments, e.g. "
                   "'mpiexec.mpich -f hosts' (default: $PE_MPIEXEC, else "
                   "mpiexec.mpich)"),
    llvm::cl::value_desc("command"), llvm::cl::cat(category));
static llvm::cl::opt<double> ranksTimeout(
    "ranks-timeout",
    llvm::cl::desc("Seconds the ranks of --ranks may run before they are "
                   "stopped (default 600; 0: no limit)"),
    llvm::cl::init(600), llvm::cl::value_desc("seconds"),
    llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    mpiLib("mpi-lib",
           llvm::cl::desc("The MPI library the ranks load (MPICH ABI)"),
           llvm::cl::init(PE_MPI_LIBRARY), llvm::cl::value_desc("libmpich.so"),
           llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    rankDir("rank-dir",
            llvm::cl::desc("Internal: run as one rank of --ranks, writing the "
                           "result blocks to this directory"),
            llvm::cl::Hidden, llvm::cl::cat(category));

/// Parses the command line and sets the pipeline settings.
static LogicalResult parseAndSetPipelines(int argc, char **argv) {
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "pe-mlir version " PE_VERSION_STRING "\n";
  });
  static const std::string pipelineHelp =
      "Lowering pipeline (default reference; known: " + knownPipelineNames() +
      ")";
  pipelineName.setDescription(pipelineHelp);
  llvm::cl::ParseCommandLineOptions(argc, argv, kOverview);
  if (tensorCores != "auto" && tensorCores != "off" &&
      tensorCores != "emulate") {
    return error("--gpu-tensor-cores must be auto, off or emulate, not '" +
                 tensorCores + "'");
  }
  PipelineSettings settings;
  settings.gpuTensorCores = tensorCores;
  if (targetTriple.empty() && (!targetCPU.empty() || !targetFeatures.empty()))
    return error("--target-cpu and --target-features need --target-triple");
  settings.cpuTarget = {targetTriple, targetCPU, targetFeatures};
  settings.cpuOpenMP = cpuOpenMPFlag;
  // Modules that name no CPU target (and no --target-triple) are compiled
  // for this machine, where the JIT runs them.
  mlir::pe::setDefaultCPUTarget(mlir::pe::getHostCPUTargetSpec());
  if (decodeSplitKeys < 0)
    return error("--gpu-decode-split-keys must be at least 0, not " +
                 std::to_string(decodeSplitKeys));
  settings.gpuDecodeSplitKeys = decodeSplitKeys;
  if (sharedMemoryBytes < 0 ||
      sharedMemoryBytes > std::numeric_limits<int32_t>::max())
    return error("--gpu-shared-memory-bytes must be in [0, 2147483647], not " +
                 std::to_string(sharedMemoryBytes));
  settings.gpuSharedMemoryBytes = sharedMemoryBytes;
  setPipelineSettings(settings);
  return success();
}

/// The checks of options against each other.
static LogicalResult checkOptions(DriverOptions &o) {
  // Option checks that need no IR.
  o.pipeline = lookupPipeline(pipelineName);
  if (!o.pipeline)
    return error("unknown pipeline '" + pipelineName +
                 "'; known pipelines: " + knownPipelineNames());
  if (checkName.getNumOccurrences()) {
    o.checkPipeline = lookupPipeline(checkName);
    if (!o.checkPipeline)
      return error("unknown --check pipeline '" + checkName +
                   "'; known pipelines: " + knownPipelineNames());
  }
  const PipelineEntry *pipeline = o.pipeline, *checkPipeline = o.checkPipeline;
  bool timing = o.timing = repeat.getNumOccurrences() > 0;
  bool sharded = o.sharded =
      ranksText.getNumOccurrences() > 0 || !rankDir.empty();
  int64_t &ranks = o.ranks;
  if (ranksText.getNumOccurrences()) {
    if (StringRef(ranksText).trim().getAsInteger(10, ranks))
      return error("--ranks must be a number of processes, got '" + ranksText +
                   "'");
    if (ranks < 1)
      return error("--ranks must be at least 1, got " + Twine(ranks));
  }
  if (!(ranksTimeout >= 0) || !std::isfinite(ranksTimeout))
    return error("--ranks-timeout must be a finite number of seconds, at "
                 "least 0");
  if (sharded && pipelineName.getNumOccurrences())
    return error("--pipeline does not apply with --ranks (each rank runs "
                 "pe-shard-pipeline)");
  if (sharded && (roofline || flops.getNumOccurrences()))
    return error("--roofline and --flops do not apply with --ranks");
  if (timing && repeat < 1)
    return error("--repeat must be at least 1, got " +
                 Twine(repeat.getValue()));
  if (roofline && !timing)
    return error("--roofline needs --repeat (it times the calls)");
  bool flopRoof = o.flopRoof = flops.getNumOccurrences() > 0;
  if (flopRoof && !(flops > 0 && std::isfinite(flops))) {
    char given[32];
    std::snprintf(given, sizeof(given), "%g", flops.getValue());
    return error("--flops must be a positive, finite number of operations, "
                 "got " +
                 Twine(given));
  }
  if (flopRoof && !timing)
    return error("--flops needs --repeat (it times the calls)");
  // The GPU pipelines' kernels read device memory (or, on lavapipe, run on
  // a Vulkan driver's threads): the host roofs say nothing about them.
  auto onHost = [](const PipelineEntry *p) {
    return p->name == "reference" || p->name == "cpu";
  };
  const PipelineEntry *offHost = !onHost(pipeline) ? pipeline
                                 : checkPipeline && !onHost(checkPipeline)
                                     ? checkPipeline
                                     : nullptr;
  if (offHost && (roofline || flopRoof))
    return error(Twine(roofline ? "--roofline measures host memory"
                                : "--flops measures the host's compute peak") +
                 ": it applies to the reference and cpu pipelines, not to '" +
                 offHost->name + "'");
  bool emitting = o.emitting = emitPath.getNumOccurrences() > 0;
  if (emitting && emitPath.empty())
    return error("--emit-executable needs a path");
  if (emitting && (sharded || checkPipeline || timing || !inputs.empty() ||
                   !outputs.empty() || randomInputs ||
                   seed.getNumOccurrences() || !sharedLibs.empty()))
    return error("--emit-executable only compiles: --input, --output, "
                 "--random-inputs, --seed, --repeat, --check, --ranks and "
                 "--shared-libs do not apply (the executable takes --input, "
                 "--output, --random-inputs, --seed and --repeat)");
  if (!(rtol >= 0) || !(atol >= 0) || !std::isfinite(rtol) ||
      !std::isfinite(atol))
    return error("--rtol and --atol must be finite and non-negative");
  return success();
}

LogicalResult parseCommandLine(int argc, char **argv, DriverOptions &o) {
  if (failed(parseAndSetPipelines(argc, argv)) || failed(checkOptions(o)))
    return failure();
  o.inputFile = inputFile;
  o.entry = entry;
  o.inputs.assign(inputs.begin(), inputs.end());
  o.outputs.assign(outputs.begin(), outputs.end());
  o.rtol = rtol;
  o.atol = atol;
  o.repeat = repeat;
  o.roofline = roofline;
  o.flops = flops;
  o.seed = seed;
  o.randomInputs = randomInputs;
  if (remarks.getNumOccurrences())
    o.remarks = remarks;
  o.runtimeChecks = runtimeChecks;
  o.sharedLibs.assign(sharedLibs.begin(), sharedLibs.end());
  o.emitPath = emitPath;
  o.mpiexec = mpiexec;
  o.ranksTimeout = ranksTimeout;
  o.mpiLib = mpiLib;
  o.rankDir = rankDir;
  return success();
}

FailureOr<SmallVector<std::string>> jitLibraries(const DriverOptions &o,
                                                 const char *argv0) {
  SmallVector<std::string> libs;
  std::string runnerUtils =
      std::string(PE_MLIR_LIB_DIR) + "/libmlir_c_runner_utils.so";
  if (llvm::sys::fs::exists(runnerUtils))
    libs.push_back(runnerUtils);
  else
    llvm::errs() << "pe-run: warning: " << runnerUtils
                 << " not found; memrefCopy & co. will be unresolved\n";
  for (const PipelineEntry *entry : {o.pipeline, o.checkPipeline}) {
    if (!entry || entry->runtimeLib.empty())
      continue;
    std::string dir =
        entry->peRuntime ? peLibraryDir(argv0) : std::string(PE_MLIR_LIB_DIR);
    std::string lib = (Twine(dir) + "/" + entry->runtimeLib).str();
    if (!llvm::sys::fs::exists(lib))
      return error("pipeline '" + entry->name.str() + "' needs " + lib + " (" +
                   entry->runtimeHint + ")");
    if (!llvm::is_contained(libs, lib))
      libs.push_back(lib);
  }
  for (const std::string &lib : o.sharedLibs) {
    if (!llvm::sys::fs::exists(lib))
      return error("--shared-libs: cannot find '" + lib + "'");
    libs.push_back(lib);
  }
  if (!o.rankDir.empty()) {
    if (o.mpiLib.empty() || !llvm::sys::fs::exists(o.mpiLib))
      return error("--ranks needs the MPICH library ('" + o.mpiLib +
                   "' not found; Debian package libmpich-dev, or --mpi-lib)");
    libs.push_back(o.mpiLib);
  }
  return libs;
}

} // namespace pe::run
