//===- Pipelines.h - pe pass pipelines --------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_PIPELINES_PIPELINES_H
#define PE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace pe {

/// Options of `pe-reference-pipeline`
/// (`pe-reference-pipeline{runtime-checks=false}`).
struct ReferencePipelineOptions
    : public PassPipelineOptions<ReferencePipelineOptions> {
  PassOptions::Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Check at run time that dynamic sizes satisfy the size "
                     "relations of the pe ops (pe-insert-runtime-checks); "
                     "false trusts them, for programs whose sizes are "
                     "checked elsewhere"),
      llvm::cl::init(true)};
};

/// Options of `pe-raise-pipeline`: those of `pe-raise`.
struct RaisePipelineOptions : public PassPipelineOptions<RaisePipelineOptions> {
  PassOptions::Option<bool> assumeDuplicatedTables{
      *this, "assume-duplicated-tables",
      llvm::cl::desc("pe-raise's assume-duplicated-tables: raise rotary "
                     "embeddings whose cos/sin tables the pass cannot see, "
                     "checking at run time that their halves agree"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> recoverScaling{
      *this, "recover-scaling",
      llvm::cl::desc("pe-raise's recover-scaling: replace a constant "
                     "frequency table by the frequency op that computes it"),
      llvm::cl::init(true)};
  PassOptions::Option<double> tolerance{
      *this, "tolerance",
      llvm::cl::desc("pe-raise's tolerance: relative tolerance of a constant "
                     "frequency table against a frequency op"),
      llvm::cl::init(1e-5)};
};

/// The options of CPU code generation, declared once for every pipeline that
/// ends in the CPU pipeline: `pe-cpu-pipeline` and `pe-shard-pipeline` (whose
/// ranks' programs it compiles) both derive from this, so each rank gets
/// every CPU option. Every option changes which passes run or how they are
/// configured; the defaults give the pipeline `pe-opt --pe-cpu-pipeline`
/// runs.
template <typename Derived>
struct CPUCodegenOptions : public PassPipelineOptions<Derived> {
  template <typename T>
  using Option = typename PassPipelineOptions<Derived>::template Option<T>;

  Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse RoPE and ALiBi producers into pe.attention, fold "
                     "the RoPE attention scaling into the softmax scale and "
                     "head/sequence transposes into its layout, and fuse "
                     "absolute encodings with their producer and consumer "
                     "(pe-fuse-encodings-into-attention, "
                     "pe-fold-attention-scaling, pe-fold-attention-layout, "
                     "pe-fuse-absolute-pe)"),
      llvm::cl::init(true)};
  Option<int64_t> absolutePERowTile{
      *this, "absolute-pe-row-tile",
      llvm::cl::desc("Rows per tile of a contraction that consumes a fused "
                     "absolute encoding (pe-fuse-absolute-pe{row-tile})"),
      llvm::cl::init(32)};
  Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("Replace f32 exp, tanh, sin and cos by polynomials "
                     "(pe-approximate-math); otherwise they become LLVM "
                     "intrinsics and libm calls"),
      llvm::cl::init(true)};
  Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("Run scf.parallel loops on OpenMP threads "
                     "(convert-scf-to-openmp, needs libomp at run time); "
                     "otherwise they become sequential loops"),
      llvm::cl::init(true)};
  Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("OpenMP threads per parallel region (num_threads of "
                     "omp.parallel); 0: the OpenMP runtime's default "
                     "(OMP_NUM_THREADS, else all cores). Needs openmp=true"),
      llvm::cl::init(0)};
  Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Check at run time that dynamic sizes satisfy the size "
                     "relations of the pe ops (pe-insert-runtime-checks); "
                     "false trusts them, for programs whose sizes are "
                     "checked elsewhere"),
      llvm::cl::init(true)};
  Option<std::string> triple{
      *this, "triple",
      llvm::cl::desc("LLVM triple of the CPU the code is for "
                     "('x86_64-unknown-linux-gnu', 'aarch64-unknown-linux-"
                     "gnu'); empty: the module's llvm.target, else the "
                     "tool's default target (pe-opt, pe-run: the host) "
                     "(pe-attach-cpu-target{triple})"),
      llvm::cl::init("")};
  Option<std::string> cpu{
      *this, "cpu",
      llvm::cl::desc("Target CPU ('x86-64-v3': AVX2 + FMA, 8-lane kernels; "
                     "'x86-64-v4': AVX-512, 16 lanes; 'neoverse-n1'); empty: "
                     "the triple's generic CPU. Needs triple "
                     "(pe-attach-cpu-target{cpu})"),
      llvm::cl::init("")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("Target features on top of the CPU's, in LLVM's syntax "
                     "('+avx512bf16,-avx512fp16'). Needs triple "
                     "(pe-attach-cpu-target{features})"),
      llvm::cl::init("")};
  Option<int64_t> decodePrefetchBytes{
      *this, "decode-prefetch-bytes",
      llvm::cl::desc("How far ahead the decode kernel prefetches the K and V "
                     "cache rows, in bytes; 0: off "
                     "(convert-pe-to-vector{decode-prefetch-bytes})"),
      llvm::cl::init(8192)};
  Option<int64_t> decodePrefetchMinOps{
      *this, "decode-prefetch-min-ops",
      llvm::cl::desc("The decode kernel's passes over K or V prefetch only "
                     "if they run at least this many vector operations per "
                     "64-byte line; 0 or 1: all do "
                     "(convert-pe-to-vector{decode-prefetch-min-ops})"),
      llvm::cl::init(2)};
  Option<int64_t> decodePrefetchL2MinOps{
      *this, "decode-prefetch-l2-min-ops",
      llvm::cl::desc("The decode kernel's passes that prefetch do so into the "
                     "L2 if they run at least this many vector operations "
                     "per 64-byte line, into the L1 if fewer; 0: all into "
                     "the L2 (convert-pe-to-vector{decode-prefetch-l2-min-"
                     "ops})"),
      llvm::cl::init(8)};
  Option<int64_t> stackScratchBytes{
      *this, "stack-scratch-bytes",
      llvm::cl::desc("How many bytes of each attention task's scratch "
                     "buffers may go on the stack; 0: all on the heap "
                     "(convert-pe-to-vector{stack-scratch-bytes})"),
      llvm::cl::init(131072)};

  /// Copies every CPU code-generation option into `to` (the options of
  /// another pipeline that runs the CPU pipeline).
  template <typename To>
  void copyCPUCodegenOptionsTo(CPUCodegenOptions<To> &to) const {
    to.fuse = fuse;
    to.absolutePERowTile = absolutePERowTile;
    to.approximateMath = approximateMath;
    to.openmp = openmp;
    to.threads = threads;
    to.runtimeChecks = runtimeChecks;
    to.triple = triple;
    to.cpu = cpu;
    to.features = features;
    to.decodePrefetchBytes = decodePrefetchBytes;
    to.decodePrefetchMinOps = decodePrefetchMinOps;
    to.decodePrefetchL2MinOps = decodePrefetchL2MinOps;
    to.stackScratchBytes = stackScratchBytes;
  }
};

/// Options of `pe-cpu-pipeline` (`pe-cpu-pipeline{fuse=false threads=4}`):
/// the CPU code-generation options.
struct CPUPipelineOptions : public CPUCodegenOptions<CPUPipelineOptions> {};

/// The kernel targets of `pe-gpu-pipeline`.
enum class GPUTarget { NVVM, SPIRV };

/// Options of `pe-gpu-pipeline` (`pe-gpu-pipeline{target=spirv}`,
/// `pe-gpu-pipeline{target=nvvm chip=sm_90 format=isa}`).
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<GPUTarget> target{
      *this, "target", llvm::cl::desc("Kernel target"),
      llvm::cl::values(
          clEnumValN(GPUTarget::NVVM, "nvvm",
                     "NVVM: PTX / cubin for NVIDIA GPUs (the CUDA runtime)"),
          clEnumValN(GPUTarget::SPIRV, "spirv",
                     "SPIR-V compute shaders (the Vulkan runtime)")),
      llvm::cl::init(GPUTarget::NVVM)};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("NVVM target chip (nvvm-attach-target{chip})"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVVM target features, the PTX ISA version "
                     "(nvvm-attach-target{features})"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel object format (gpu-module-to-binary{format}): "
                     "isa (PTX text, JIT-compiled by the driver), bin "
                     "(cubin; runs ptxas), fatbin (runs ptxas and "
                     "fatbinary); spirv always gives a SPIR-V binary"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory for gpu-module-to-binary "
                     "(libdevice, ptxas); empty: CUDA_ROOT, CUDA_HOME, "
                     "CUDA_PATH or ptxas on PATH"),
      llvm::cl::init("")};
  PassOptions::Option<bool> deviceBuffers{
      *this, "device-buffers",
      llvm::cl::desc("nvvm: give each kernel launch device copies of its "
                     "host buffers (pe-gpu-device-buffers), as a discrete GPU "
                     "needs"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> blockRows{
      *this, "block-rows",
      llvm::cl::desc("Query rows (threads) per attention block "
                     "(convert-pe-to-gpu{block-rows})"),
      llvm::cl::init(64)};
  PassOptions::Option<int64_t> keyTile{
      *this, "key-tile",
      llvm::cl::desc("Keys per K/V tile in workgroup memory "
                     "(convert-pe-to-gpu{key-tile})"),
      llvm::cl::init(32)};
  PassOptions::Option<int64_t> decodeSplitKeys{
      *this, "decode-split-keys",
      llvm::cl::desc("Keys per split of a decode attention, each a block of "
                     "its own, combined by a second kernel; 0: no split "
                     "(convert-pe-to-gpu{decode-split-keys})"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> sharedMemoryBytes{
      *this, "shared-memory-bytes",
      llvm::cl::desc("Static workgroup memory a kernel may use, in bytes "
                     "(convert-pe-to-gpu{shared-memory-bytes}); 0: the "
                     "target's, 49152 on nvvm (a CUDA kernel's static shared "
                     "memory), 32768 on spirv (lavapipe's "
                     "maxComputeSharedMemorySize)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Tensor-core attention kernel for f16/bf16 "
                     "(convert-pe-to-gpu{tensor-cores}): auto (mma.sync on "
                     "nvvm with chip sm_80 or above; none on spirv), off, "
                     "emulate (the fragment kernel with mma.sync emulated "
                     "through workgroup memory, on either target)"),
      llvm::cl::init("auto")};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Fuse RoPE and ALiBi producers into pe.attention and "
                     "fold the RoPE attention scaling into the softmax scale "
                     "and head/sequence transposes into its layout "
                     "(pe-fuse-encodings-into-attention, "
                     "pe-fold-attention-scaling, pe-fold-attention-layout)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> runtimeChecks{
      *this, "runtime-checks",
      llvm::cl::desc("Check at run time, on the host, that dynamic sizes "
                     "satisfy the size relations of the pe ops "
                     "(pe-insert-runtime-checks)"),
      llvm::cl::init(true)};
};

/// The reference pipeline: IR with pe ops on tensors (func.func) all the way
/// to the LLVM dialect for the host CPU, through convert-pe-to-linalg, one-shot
/// bufferization with buffer deallocation, and scalar loops. Functions keep
/// their memref calling convention (identity layouts); returned buffers are
/// malloc'ed and owned by the caller. Dynamic sizes are checked first
/// (pe-insert-runtime-checks) unless `runtime-checks=false`. Registered as
/// `pe-reference-pipeline`. Built from pass constructors: it needs no pass
/// registration, only the dialects and interfaces of registerPipelineDialects
/// in the context.
void buildReferencePipeline(OpPassManager &pm,
                            const ReferencePipelineOptions &options);
/// buildReferencePipeline with the default options.
void buildReferencePipeline(OpPassManager &pm);

/// The raising flow for IR as frontends emit it: arith and math ops on whole
/// tensors become linalg.generic payloads (convert-elementwise-to-linalg),
/// which pe-raise traces; then pe-raise, canonicalize and cse. Registered as
/// `pe-raise-pipeline`.
void buildRaisePipeline(OpPassManager &pm, const RaisePipelineOptions &options);

/// TOSA as frontends emit it (Buddy's DynamoCompiler, MIGraphX's rocMLIR
/// tests) to linalg, tensor and arith: upstream tosa-to-linalg-pipeline's
/// passes without tosa-validate, whose profile check rejects the i1 and i64
/// -> f32 casts that tosa-to-linalg lowers, then tosa-to-tensor and
/// tosa-to-arith. Registered as `pe-tosa-to-linalg-pipeline`.
void buildTosaToLinalgPipeline(OpPassManager &pm);

/// The first pass of the lowering pipelines: arith and math ops on whole
/// tensors (as TOSA and Buddy frontends leave them) to linalg.generic
/// (convert-elementwise-to-linalg).
void addElementwiseToLinalg(OpPassManager &pm);

/// The optimised CPU pipeline: fold frequencies, fuse RoPE, ALiBi and the
/// attention scaling into pe.attention's encodings, generate flash-attention
/// kernels (convert-pe-to-vector) after checking dynamic sizes
/// (pe-insert-runtime-checks), lower the rest through the reference
/// lowering, approximate f32 math with polynomials, bufferize, and lower to the
/// LLVM dialect with scf.parallel on OpenMP (needs libomp at run time).
/// Registered as `pe-cpu-pipeline`. Built from pass constructors, like the
/// reference pipeline.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);
/// buildCPUPipeline with the default options.
void buildCPUPipeline(OpPassManager &pm);

/// Options of `pe-shard-pipeline`: its own, then the CPU code-generation
/// options of the ranks' programs (CPUCodegenOptions).
struct ShardPipelineOptions : public CPUCodegenOptions<ShardPipelineOptions> {
  /// Each rank's code runs without OpenMP threads unless asked: ranks usually
  /// share the machine's cores.
  ShardPipelineOptions() { openmp.setInitialValue(false); }

  PassOptions::Option<bool> lowerToLLVM{
      *this, "lower-to-llvm",
      llvm::cl::desc("Lower the per-rank program to the LLVM dialect (MPI "
                     "calls, the CPU pipeline's kernels); otherwise stop "
                     "after partitioning and lowering the collectives, with "
                     "pe ops on local tensors"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> mpiImplementation{
      *this, "mpi-implementation",
      llvm::cl::desc("The MPI library whose ABI the MPI calls follow, unless "
                     "the module names one (pe-set-mpi-implementation): "
                     "MPICH or OpenMPI"),
      llvm::cl::init("MPICH")};
};

/// The SPMD pipeline: a module whose functions carry `shard` annotations
/// (shard.grid, shard.shard) becomes the program each MPI rank runs:
/// sharding-propagation and shard-partition (the pe ops' ShardingInterface
/// places global positions and slopes), pe-lower-shard-collectives (what
/// convert-shard-to-mpi lacks), pe-set-mpi-implementation,
/// convert-shard-to-mpi, the mpi dialect to LLVM calls, then the CPU pipeline
/// (generated kernels on each rank's block). Registered as
/// `pe-shard-pipeline`.
void buildShardPipeline(OpPassManager &pm, const ShardPipelineOptions &options);
/// buildShardPipeline with the default options.
void buildShardPipeline(OpPassManager &pm);

/// The GPU pipeline: fold frequencies and fuse the encodings into
/// pe.attention as the CPU pipeline does, generate GPU kernels for attention
/// and RoPE (convert-pe-to-gpu; everything else through the reference
/// lowering on the host), outline them, bufferize the host code, and lower
/// the kernels to NVVM and PTX/cubin or to a SPIR-V binary, and the host code
/// to the LLVM dialect calling MLIR's GPU runtime entry points (mgpu*; for
/// spirv with bare pointers and interspersed buffer sizes, the convention of
/// the Vulkan runtime of pe-run). Registered as `pe-gpu-pipeline`.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// Registers the dialects and the external interface models (bufferization,
/// buffer deallocation, tiling, subsets) that the two pipelines need in the
/// context they run in, for hosts that do not register all of MLIR.
void registerPipelineDialects(DialectRegistry &registry);
/// The part of registerPipelineDialects that pe-shard-pipeline adds: the
/// shard, mpi and DLTI dialects, the pe ops' ShardingInterface and the mpi
/// dialect's lowering to LLVM.
void registerShardPipelineDialects(DialectRegistry &registry);

/// registerPipelineDialects plus what pe-gpu-pipeline needs: the gpu, nvvm
/// and spirv dialects, the NVVM and SPIR-V target models, and the LLVM IR
/// translations that gpu-module-to-binary and the host code's gpu ops use.
void registerGPUPipelineDialects(DialectRegistry &registry);

/// Registers the named pipelines (`pe-cpu-pipeline` with its options,
/// `pe-reference-pipeline`) with the global pass registry.
void registerPipelines();

/// The check the registered pipelines make of their option string before
/// parsing it: the error ("<pipeline>: <option> must be an integer in
/// [lo, hi]..., not <value>") for the first integer option of `pipeline`
/// (pe-cpu-pipeline, pe-gpu-pipeline, pe-reference-pipeline,
/// pe-shard-pipeline) in `options` that is not an integer in its range, or
/// std::nullopt. For hosts that parse pipeline options themselves
/// (PassPipelineOptions::parseFromString, whose parser reports such values
/// on stderr only).
std::optional<std::string> checkPipelineOptions(StringRef pipeline,
                                                StringRef options);

} // namespace pe
} // namespace mlir

#endif // PE_PIPELINES_PIPELINES_H
