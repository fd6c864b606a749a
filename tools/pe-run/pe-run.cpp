//===- pe-run.cpp - JIT runtime harness -----------------------------------===//
//
// Part of the pe-mlir project.
//
// pe-run JIT-compiles one function of a .mlir file with MLIR's
// ExecutionEngine and runs it on .npy data: it reads the function's tensor
// signature before lowering, lowers a clone of the module with a named
// pipeline, calls the function through the ExecutionEngine's packed
// interface, writes the results as .npy, and optionally compares against a
// second pipeline (--check) and times the calls (--repeat). See --help.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/Conversion/PEToGPU/PEToGPU.h"
#include "pe/InitAllPE.h"
#include "pe/Pipelines/Pipelines.h"
#include "pe/Support/Npy.h"
#include "pe/Version.h"

#include "Harness.h"
#include "NumberParser.h"
#include "Ranks.h"
#include "Roofline.h"
#include "ShardExecutable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace mlir;
namespace npy = mlir::pe::npy;
using llvm::ArrayRef;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;
using llvm::Twine;
using namespace ::pe::run;

static_assert(sizeof(void *) == 8 && sizeof(int64_t) == 8,
              "pe-run assumes 64-bit pointers (memref descriptor layout)");

#ifndef PE_MPI_LIBRARY
#define PE_MPI_LIBRARY ""
#endif

#ifndef PE_AOT_LINKER
#define PE_AOT_LINKER "/usr/lib/llvm-22/bin/clang++"
#endif

#ifndef PE_MLIR_LIB_DIR
#define PE_MLIR_LIB_DIR "/usr/lib/llvm-22/lib"
#endif

//===----------------------------------------------------------------------===//
// Pipelines: name -> builder. Adding a pipeline is one line here.
//===----------------------------------------------------------------------===//

/// pe-cpu-pipeline{triple cpu features} of the cpu pipeline
/// (--target-triple, --target-cpu, --target-features); an empty triple: the
/// module's llvm.target, else the host (pe's default CPU target, set in
/// main).
static mlir::pe::CPUTargetSpec cpuTarget;
/// pe-cpu-pipeline{openmp} of the cpu pipeline (--cpu-openmp).
static bool cpuOpenMP = true;

/// pe-gpu-pipeline{tensor-cores} of the vulkan and cuda pipelines
/// (--gpu-tensor-cores).
static std::string gpuTensorCores = "auto";
/// pe-gpu-pipeline{decode-split-keys} of the vulkan and cuda pipelines
/// (--gpu-decode-split-keys).
static int64_t gpuDecodeSplitKeys = 128;

/// pe-gpu-pipeline{target=spirv}: SPIR-V kernels, run by the Vulkan runtime.
static void buildVulkanPipeline(OpPassManager &pm, bool runtimeChecks) {
  mlir::pe::GPUPipelineOptions options;
  options.target = mlir::pe::GPUTarget::SPIRV;
  options.tensorCores = gpuTensorCores;
  options.decodeSplitKeys = gpuDecodeSplitKeys;
  options.runtimeChecks = runtimeChecks;
  mlir::pe::buildGPUPipeline(pm, options);
}

/// pe-gpu-pipeline{target=nvvm}: PTX kernels (JIT-compiled by the driver),
/// run by the CUDA runtime on device copies of the buffers.
static void buildCUDAPipeline(OpPassManager &pm, bool runtimeChecks) {
  mlir::pe::GPUPipelineOptions options;
  options.target = mlir::pe::GPUTarget::NVVM;
  options.tensorCores = gpuTensorCores;
  options.decodeSplitKeys = gpuDecodeSplitKeys;
  options.runtimeChecks = runtimeChecks;
  mlir::pe::buildGPUPipeline(pm, options);
}

static const PipelineEntry kPipelines[] = {
    {"reference",
     [](OpPassManager &pm, bool runtimeChecks) {
       mlir::pe::ReferencePipelineOptions options;
       options.runtimeChecks = runtimeChecks;
       mlir::pe::buildReferencePipeline(pm, options);
     },
     "", "", false},
    // scf.parallel is lowered to OpenMP: the code calls __kmpc_* in libomp.
    {"cpu",
     [](OpPassManager &pm, bool runtimeChecks) {
       mlir::pe::CPUPipelineOptions options;
       options.runtimeChecks = runtimeChecks;
       options.triple = cpuTarget.triple;
       options.cpu = cpuTarget.cpu;
       options.features = cpuTarget.features;
       options.openmp = cpuOpenMP;
       mlir::pe::buildCPUPipeline(pm, options);
     },
     "libomp.so", "Debian package libomp-22-dev", false},
    // The kernels run through Vulkan (lavapipe on a CPU): the host code calls
    // mgpu* in pe's Vulkan runtime.
    {"vulkan", buildVulkanPipeline, "libpe_vulkan_runtime.so",
     "built with the Vulkan headers, Debian package libvulkan-dev", true},
    // The kernels run on an NVIDIA GPU: the host code calls mgpu* in pe's
    // CUDA runtime, which loads the driver (libcuda.so.1) when first called.
    {"cuda", buildCUDAPipeline, "libpe_cuda_runtime.so", "built with pe-run",
     true},
};

/// pe's own library directory: ../lib beside the pe-run executable.
static std::string peLibraryDir(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&peLibraryDir));
  SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

static const PipelineEntry *lookupPipeline(StringRef name) {
  for (const PipelineEntry &entry : kPipelines)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

static std::string knownPipelineNames() {
  std::string names;
  for (const PipelineEntry &entry : kPipelines) {
    if (!names.empty())
      names += ", ";
    names += entry.name.str();
  }
  return names;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static void report(const Twine &msg) {
  llvm::errs() << "pe-run: error: " << msg << "\n";
}

namespace pe::run {
LogicalResult error(const Twine &msg) {
  report(msg);
  return failure();
}

LogicalResult error(llvm::Error err) {
  return error(llvm::toString(std::move(err)));
}

int fail(const Twine &msg) {
  report(msg);
  return 1;
}

int fail(llvm::Error err) { return fail(llvm::toString(std::move(err))); }

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}
} // namespace pe::run

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

static std::optional<Elem> tensorElem(Type t) {
  if (t.isF16())
    return Elem::F16;
  if (t.isBF16())
    return Elem::BF16;
  if (t.isF32())
    return Elem::F32;
  if (t.isF64())
    return Elem::F64;
  if (t.isSignlessInteger(1))
    return Elem::I1;
  if (t.isSignlessInteger(8))
    return Elem::I8;
  if (t.isSignlessInteger(32))
    return Elem::I32;
  if (t.isSignlessInteger(64))
    return Elem::I64;
  return std::nullopt;
}

static std::optional<Elem> scalarElem(Type t) {
  if (t.isIndex())
    return Elem::Index;
  if (t.isSignlessInteger(32))
    return Elem::I32;
  if (t.isSignlessInteger(64))
    return Elem::I64;
  if (t.isF32())
    return Elem::F32;
  if (t.isF64())
    return Elem::F64;
  return std::nullopt;
}

namespace pe::run {
npy::DType storageDType(Elem elem) {
  switch (elem) {
  case Elem::F16:
    return npy::DType::F16;
  case Elem::BF16:
    return npy::DType::BF16;
  case Elem::F32:
    return npy::DType::F32;
  case Elem::F64:
    return npy::DType::F64;
  case Elem::I1:
    return npy::DType::I1;
  case Elem::I8:
    return npy::DType::I8;
  case Elem::I32:
    return npy::DType::I32;
  case Elem::I64:
  case Elem::Index:
    return npy::DType::I64;
  }
  llvm_unreachable("unknown Elem");
}
} // namespace pe::run

static const char kSupportedArgs[] =
    "supported are ranked tensors of f32, f64, f16, bf16, i32, i64, i8, i1 "
    "and index, i32, i64, f32, f64 scalars";

static FailureOr<Signature> readSignature(func::FuncOp fn) {
  Signature sig;
  sig.name = fn.getSymName().str();
  FunctionType type = fn.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    ArgSpec arg;
    arg.type = t;
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      std::optional<Elem> elem = tensorElem(tensor.getElementType());
      if (!elem || tensor.getEncoding()) {
        return error("function '" + sig.name + "' argument " + Twine(i) +
                     " has unsupported type " + typeString(t) + "; " +
                     kSupportedArgs);
      }
      arg.isTensor = true;
      arg.elem = *elem;
      arg.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    } else if (std::optional<Elem> elem = scalarElem(t)) {
      arg.elem = *elem;
    } else {
      return error("function '" + sig.name + "' argument " + Twine(i) +
                   " has unsupported type " + typeString(t) + "; " +
                   kSupportedArgs);
    }
    sig.args.push_back(std::move(arg));
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    std::optional<Elem> elem =
        tensor ? tensorElem(tensor.getElementType()) : std::nullopt;
    if (!tensor || !elem || tensor.getEncoding()) {
      return error(
          "function '" + sig.name + "' result " + Twine(i) + " has type " +
          typeString(t) +
          "; pe-run supports only ranked tensor results of f32, f64, f16, "
          "bf16, i32, i64, i8, i1");
    }
    ResultSpec res;
    res.elem = *elem;
    res.rank = tensor.getRank();
    res.type = t;
    sig.results.push_back(res);
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Converts the array read for argument `index` to the argument's storage
/// dtype, checking dtype and shape. `file` names the source in messages.
static FailureOr<npy::Array> adaptInput(const ArgSpec &arg, unsigned index,
                                        StringRef file, npy::Array a) {
  std::string where = "argument " + std::to_string(index) + " (" +
                      typeString(arg.type) + ") from '" + file.str() + "'";
  npy::DType want = storageDType(arg.elem);
  if (arg.isTensor) {
    bool dtypeOk = a.dtype == want ||
                   (arg.elem == Elem::BF16 && a.dtype == npy::DType::F32);
    if (!dtypeOk) {
      std::string expected = npy::dtypeName(want).str();
      if (arg.elem == Elem::BF16)
        expected = "float32 or bfloat16";
      return error(where + ": expected dtype " + expected + ", got " +
                   npy::dtypeName(a.dtype));
    }
    bool shapeOk = a.shape.size() == arg.shape.size();
    for (size_t d = 0; shapeOk && d < arg.shape.size(); ++d)
      if (!ShapedType::isDynamic(arg.shape[d]) && arg.shape[d] != a.shape[d])
        shapeOk = false;
    if (!shapeOk)
      return error(where + ": expected shape " + shapeString(arg.shape) +
                   ", got " + shapeString(a.shape));
    if (a.dtype != want) {
      llvm::Expected<npy::Array> converted = npy::convert(a, want);
      if (!converted)
        return error(where + ": " + llvm::toString(converted.takeError()));
      return std::move(*converted);
    }
    return std::move(a);
  }

  // Scalars: a 0-d array or a 1-element 1-d array of a matching kind.
  if (!(a.shape.empty() || (a.shape.size() == 1 && a.shape[0] == 1)))
    return error(
        where + ": expected a scalar (0-d or 1-element 1-d array), got shape " +
        shapeString(a.shape));
  bool wantFloat = npy::isFloat(want);
  bool isInt = !npy::isFloat(a.dtype) && a.dtype != npy::DType::I1;
  if (wantFloat ? !npy::isFloat(a.dtype) : !isInt)
    return error(where + ": expected " +
                 (wantFloat ? "a float dtype" : "an integer dtype") + ", got " +
                 npy::dtypeName(a.dtype));
  a.shape.clear();
  llvm::Expected<npy::Array> converted = npy::convert(a, want);
  if (!converted)
    return error(where + ": " + llvm::toString(converted.takeError()));
  return std::move(*converted);
}

namespace {
/// splitmix64 (Steele, Lea, Flood 2014): fixed output on every platform.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};
} // namespace

/// Deterministic data for argument `index` (see --help). Each argument has its
/// own stream, so its data depends only on (seed, index, type).
static FailureOr<npy::Array> randomInput(const ArgSpec &arg, unsigned index,
                                         uint64_t seed) {
  npy::DType dtype = storageDType(arg.elem);
  if (!arg.isTensor) {
    llvm::Expected<npy::Array> a = npy::makeArray(dtype, {});
    if (!a)
      return error(a.takeError());
    return std::move(*a); // scalars are 0
  }
  if (llvm::any_of(arg.shape, ShapedType::isDynamic)) {
    return error("--random-inputs: argument " + Twine(index) + " has type " +
                 typeString(arg.type) +
                 " with dynamic dimensions; give it an --input file");
  }
  llvm::Expected<npy::Array> made = npy::makeArray(dtype, arg.shape);
  if (!made)
    return error("--random-inputs: argument " + Twine(index) + ": " +
                 llvm::toString(made.takeError()));
  npy::Array a = std::move(*made);
  SplitMix64 rng{seed ^ (0xD1B54A32D192ED03ull * (uint64_t(index) + 1))};
  rng.next();
  int64_t n = a.numElements();
  uint8_t *p = a.data.data();
  // Floats are k * 2^-(b-1) - 1 for a b-bit k, with b the precision of the
  // type: exact in the type and in [-1, 1).
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng.next();
    switch (arg.elem) {
    case Elem::F32: {
      float v = float((double(r >> 40) - 8388608.0) * 0x1p-23);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case Elem::F64: {
      double v = (double(r >> 11) - 4503599627370496.0) * 0x1p-52;
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case Elem::F16: {
      uint16_t v =
          npy::floatToHalf(float((double(r >> 53) - 1024.0) * 0x1p-10));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case Elem::BF16: {
      uint16_t v =
          npy::floatToBFloat16(float((double(r >> 56) - 128.0) * 0x1p-7));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case Elem::I1:
      p[i] = uint8_t(r >> 63);
      break;
    case Elem::I8:
      p[i] = uint8_t(r >> 61);
      break;
    case Elem::I32: {
      int32_t v = int32_t(r >> 61);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case Elem::I64:
    case Elem::Index: {
      int64_t v = int64_t(r >> 61);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    }
  }
  return std::move(a);
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Number of 8-byte slots of an LLVM memref-descriptor return type, or -1 if
/// it contains anything other than pointers, i64 and arrays/structs of them.
static int64_t slotCount(Type t) {
  if (isa<LLVM::LLVMPointerType>(t) || t.isSignlessInteger(64))
    return 1;
  if (auto array = dyn_cast<LLVM::LLVMArrayType>(t)) {
    int64_t inner = slotCount(array.getElementType());
    return inner < 0 ? -1 : inner * int64_t(array.getNumElements());
  }
  if (auto st = dyn_cast<LLVM::LLVMStructType>(t)) {
    int64_t total = 0;
    for (Type member : st.getBody()) {
      int64_t inner = slotCount(member);
      if (inner < 0)
        return -1;
      total += inner;
    }
    return total;
  }
  return -1;
}

static int64_t resultSlots(const ResultSpec &r) { return 3 + 2 * r.rank; }

/// The name a function of the input has in the JIT: prefixed, so that no
/// function of the input can take the place of a C library function that the
/// lowered code calls (LLVM lowers `math.sin` to a call to `sin`; a function
/// of the input named `sin` would receive it and recurse).
static std::string jitName(StringRef name) {
  return ("__pe_run_" + name).str();
}

/// Renames every function that `module` defines to its jitName.
static LogicalResult renameFunctionsForJit(ModuleOp module) {
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  for (func::FuncOp fn : functions) {
    if (fn.isExternal())
      continue; // A declaration names a function of a loaded library.
    auto newName =
        StringAttr::get(module.getContext(), jitName(fn.getSymName()));
    if (failed(SymbolTable::replaceAllSymbolUses(fn, newName, module)))
      return error("cannot rename function '" + fn.getSymName() +
                   "' for the JIT");
    SymbolTable::setSymbolName(fn, newName);
  }
  return success();
}

/// Checks that the lowered function has the calling convention pe-run
/// assumes, so that a pipeline with another convention fails cleanly instead
/// of corrupting memory.
static LogicalResult checkLoweredSignature(ModuleOp module,
                                           const Signature &sig,
                                           StringRef pipeline) {
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(jitName(sig.name));
  if (!fn || fn.isExternal())
    return error("pipeline '" + pipeline +
                 "' did not produce an llvm.func named '" + sig.name + "'");
  LLVM::LLVMFunctionType type = fn.getFunctionType();
  std::string why;
  ArrayRef<Type> params = type.getParams();
  size_t p = 0;
  for (auto [i, arg] : llvm::enumerate(sig.args)) {
    auto mismatch = [&, i = i](const Twine &what) {
      why = ("argument " + Twine(i) + ": " + what).str();
    };
    if (arg.isTensor) {
      size_t n = 3 + 2 * arg.shape.size();
      for (size_t k = 0; k < n && why.empty(); ++k, ++p) {
        if (p >= params.size()) {
          mismatch("too few LLVM parameters");
          break;
        }
        bool ok = k < 2 ? isa<LLVM::LLVMPointerType>(params[p])
                        : params[p].isSignlessInteger(64);
        if (!ok)
          mismatch("expected an expanded memref descriptor, got " +
                   typeString(params[p]));
      }
    } else {
      if (p >= params.size()) {
        mismatch("too few LLVM parameters");
      } else {
        Type want;
        Builder b(module.getContext());
        switch (arg.elem) {
        case Elem::Index:
        case Elem::I64:
          want = b.getI64Type();
          break;
        case Elem::I32:
          want = b.getI32Type();
          break;
        case Elem::F32:
          want = b.getF32Type();
          break;
        case Elem::F64:
          want = b.getF64Type();
          break;
        default:
          break;
        }
        if (params[p] != want)
          mismatch("expected " + typeString(want) + ", got " +
                   typeString(params[p]));
      }
      ++p;
    }
    if (!why.empty())
      break;
  }
  if (why.empty() && p != params.size())
    why = "the lowered function has " + std::to_string(params.size()) +
          " parameters, expected " + std::to_string(p);
  if (why.empty() && type.isVarArg())
    why = "the lowered function is variadic";
  if (why.empty()) {
    Type ret = type.getReturnType();
    int64_t want = 0;
    for (const ResultSpec &r : sig.results)
      want += resultSlots(r);
    int64_t got = isa<LLVM::LLVMVoidType>(ret) ? 0 : slotCount(ret);
    if (got != want)
      why = "unexpected return type " + typeString(ret);
  }
  if (!why.empty())
    return error("pipeline '" + pipeline + "' produced '" + sig.name +
                 "' with an unsupported calling convention (" + why + ")");
  return success();
}

//===----------------------------------------------------------------------===//
// Run-time failures of the compiled code
//===----------------------------------------------------------------------===//

// The compiled code reports a failed run-time check (cf.assert, lowered by
// upstream's convert-cf-to-llvm) as puts(message) then abort(). pe-run gives
// the JIT its own puts and abort, and a malloc that does not return null, so
// that each of these ends the run with one `pe-run: error:` line and exit
// status 1 instead of a crash. Other libraries (libc, libomp, libm) keep the
// real functions.
static std::mutex jitMessageMutex;
static std::string jitMessage;

extern "C" int peRunJitPuts(const char *message) {
  std::lock_guard<std::mutex> lock(jitMessageMutex);
  jitMessage = message ? message : "";
  return 0;
}

[[noreturn]] static void exitFromJit(const Twine &message) {
  std::fflush(stdout);
  report(message);
  llvm::errs().flush();
  std::_Exit(1);
}

extern "C" [[noreturn]] void peRunJitAbort() {
  std::string message;
  {
    std::lock_guard<std::mutex> lock(jitMessageMutex);
    message = jitMessage;
  }
  if (message.empty())
    exitFromJit("the compiled code aborted");
  exitFromJit("run-time check failed: " + message);
}

extern "C" void *peRunJitMalloc(size_t bytes) {
  void *p = std::malloc(bytes);
  if (!p && bytes != 0)
    exitFromJit("out of memory: the compiled code allocates " + Twine(bytes) +
                " bytes");
  return p;
}

extern "C" void *peRunJitAlignedAlloc(size_t alignment, size_t bytes) {
  void *p = std::aligned_alloc(alignment, bytes);
  if (!p && bytes != 0)
    exitFromJit("out of memory: the compiled code allocates " + Twine(bytes) +
                " bytes aligned to " + Twine(alignment));
  return p;
}

static llvm::orc::SymbolMap
jitRuntimeSymbols(llvm::orc::MangleAndInterner mangle) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *fn) {
    symbols[mangle(name)] = {llvm::orc::ExecutorAddr::fromPtr(fn),
                             llvm::JITSymbolFlags::Exported};
  };
  add("puts", &peRunJitPuts);
  add("abort", &peRunJitAbort);
  add("malloc", &peRunJitMalloc);
  add("aligned_alloc", &peRunJitAlignedAlloc);
  return symbols;
}

/// The TargetMachine builder for a lowered module: the CPU target it names
/// (llvm.target, written by pe-cpu-pipeline), else the host. The JIT runs
/// code in this process, so `forJit` rejects a target of another
/// architecture (an executable for it: --emit-executable).
static FailureOr<llvm::orc::JITTargetMachineBuilder>
targetMachineBuilder(ModuleOp module, bool forJit) {
  LLVM::TargetAttr attr = mlir::pe::getModuleCPUTarget(module);
  if (!attr) {
    llvm::Expected<llvm::orc::JITTargetMachineBuilder> host =
        llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!host)
      return error(host.takeError());
    return std::move(*host);
  }
  mlir::pe::CPUTargetSpec spec = mlir::pe::getCPUTargetSpec(attr);
  llvm::Triple triple(spec.triple);
  if (forJit &&
      triple.getArch() != llvm::Triple(llvm::sys::getProcessTriple()).getArch())
    return error("the code is for '" + spec.triple + "', which this machine (" +
                 llvm::sys::getProcessTriple() +
                 ") cannot run; --emit-executable writes an executable "
                 "for it");
  llvm::orc::JITTargetMachineBuilder jtmb(triple);
  jtmb.setCPU(spec.cpu);
  SmallVector<StringRef> flags;
  StringRef(spec.features).split(flags, ',', -1, /*KeepEmpty=*/false);
  for (StringRef flag : flags)
    jtmb.getFeatures().AddFeature(flag);
  return jtmb;
}

/// A clone of `original` with its functions renamed (jitName) and lowered by
/// `pipeline`, with the calling convention checked.
static FailureOr<OwningOpRef<ModuleOp>> lower(ModuleOp original,
                                              const Signature &sig,
                                              const PipelineEntry &pipeline,
                                              bool runtimeChecks) {
  OwningOpRef<ModuleOp> module = original.clone();
  if (failed(renameFunctionsForJit(*module)))
    return failure();
  PassManager pm = PassManager::on<ModuleOp>(original.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return error("cannot apply the pass manager options");
  pipeline.build(pm, runtimeChecks);
  if (failed(pm.run(*module)))
    return error("pipeline '" + pipeline.name + "' failed");
  if (failed(checkLoweredSignature(*module, sig, pipeline.name)))
    return failure();
  return module;
}

namespace pe::run {
FailureOr<Compiled> compile(ModuleOp original, const Signature &sig,
                            const PipelineEntry &pipeline,
                            ArrayRef<std::string> sharedLibs,
                            bool runtimeChecks) {
  FailureOr<OwningOpRef<ModuleOp>> lowered =
      lower(original, sig, pipeline, runtimeChecks);
  if (failed(lowered))
    return failure();
  OwningOpRef<ModuleOp> module = std::move(*lowered);

  FailureOr<llvm::orc::JITTargetMachineBuilder> jtmb =
      targetMachineBuilder(*module, /*forJit=*/true);
  if (failed(jtmb))
    return failure();
  jtmb->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // One TargetMachine for the optimizer (its vectorizers need the host
  // features), one owned by the engine for code generation (RECIPE 5/6).
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> optTM =
      jtmb->createTargetMachine();
  if (!optTM)
    return error(optTM.takeError());
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> codegenTM =
      jtmb->createTargetMachine();
  if (!codegenTM)
    return error(codegenTM.takeError());

  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, optTM->get());
  SmallVector<StringRef> libs(sharedLibs.begin(), sharedLibs.end());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  options.sharedLibPaths = libs;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*module, options, std::move(*codegenTM));
  if (!engine)
    return error("JIT compilation (pipeline '" + pipeline.name +
                 "') failed: " + llvm::toString(engine.takeError()));

  Compiled compiled;
  compiled.pipeline = pipeline.name.str();
  compiled.engine = std::move(*engine);
  compiled.engine->registerSymbols(jitRuntimeSymbols);
  // lookupPacked materializes the code and reports unresolved symbols as an
  // error; initialize() (which runs global constructors and cannot fail
  // gracefully) comes after it. Calling the packed function is what
  // ExecutionEngine::invokePacked(name, args) does, without a symbol lookup
  // per call.
  llvm::Expected<void (*)(void **)> fn =
      compiled.engine->lookupPacked(jitName(sig.name));
  if (!fn)
    return error("JIT compilation (pipeline '" + pipeline.name +
                 "') failed: " + llvm::toString(fn.takeError()));
  compiled.engine->initialize();
  compiled.fn = *fn;
  return compiled;
}
} // namespace pe::run

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

namespace pe::run {
LogicalResult Invocation::prepare() {
  for (auto [i, arg] : llvm::enumerate(sig.args)) {
    auto slot = std::make_unique<ArgSlot>();
    const npy::Array &data = inputs[i];
    if (arg.isTensor) {
      size_t bytes = data.data.size();
      size_t rounded = std::max<size_t>(64, (bytes + 63) / 64 * 64);
      void *buffer = std::aligned_alloc(64, rounded);
      if (!buffer)
        return error("out of memory allocating argument " + Twine(i));
      slot->buffer.reset(buffer);
      slot->bytes = bytes;
      slot->allocated = slot->aligned = buffer;
      slot->sizes.assign(data.shape.begin(), data.shape.end());
      slot->strides.resize(data.shape.size());
      int64_t stride = 1;
      for (int64_t d = int64_t(data.shape.size()) - 1; d >= 0; --d) {
        slot->strides[d] = stride;
        stride *= data.shape[d];
      }
      packed.push_back(&slot->allocated);
      packed.push_back(&slot->aligned);
      packed.push_back(&slot->offset);
      for (int64_t &s : slot->sizes)
        packed.push_back(&s);
      for (int64_t &s : slot->strides)
        packed.push_back(&s);
    } else {
      std::memcpy(&slot->scalar, data.data.data(), data.data.size());
      packed.push_back(&slot->scalar);
    }
    slots.push_back(std::move(slot));
  }
  int64_t total = 0;
  for (const ResultSpec &r : sig.results)
    total += resultSlots(r);
  resultBuffer.assign(total, 0);
  if (total)
    packed.push_back(resultBuffer.data());
  return success();
}

LogicalResult Invocation::call(void (*fn)(void **),
                               SmallVectorImpl<npy::Array> *outputs, double *ms,
                               Roofline *evictBefore) {
  // A zero-size tensor has no data (data() may be null): memcpy with a
  // null pointer is undefined even for 0 bytes.
  for (auto [i, slot] : llvm::enumerate(slots))
    if (slot->buffer && slot->bytes)
      std::memcpy(slot->buffer.get(), inputs[i].data.data(), slot->bytes);
  std::fill(resultBuffer.begin(), resultBuffer.end(), 0);
  if (evictBefore)
    evictBefore->evict();

  auto start = std::chrono::steady_clock::now();
  fn(packed.data());
  auto stop = std::chrono::steady_clock::now();
  if (ms)
    *ms = std::chrono::duration<double, std::milli>(stop - start).count();

  LogicalResult status = success();
  lastResultBytes = 0;
  llvm::SmallPtrSet<void *, 8> keep;
  for (const auto &slot : slots)
    if (slot->allocated)
      keep.insert(slot->allocated);
  // memref.get_global lowers to this dummy allocated pointer.
  keep.insert(reinterpret_cast<void *>(uintptr_t(0xdeadbeef)));
  size_t pos = 0;
  for (auto [i, r] : llvm::enumerate(sig.results)) {
    const int64_t *d = resultBuffer.data() + pos;
    pos += resultSlots(r);
    void *allocated, *aligned;
    std::memcpy(&allocated, &d[0], 8);
    std::memcpy(&aligned, &d[1], 8);
    int64_t offset = d[2];
    ArrayRef<int64_t> sizes(d + 3, r.rank), strides(d + 3 + r.rank, r.rank);
    int64_t elements = 1;
    for (int64_t size : sizes)
      elements *= size;
    lastResultBytes += elements * npy::dtypeSize(storageDType(r.elem));
    if (outputs && succeeded(status)) {
      FailureOr<npy::Array> out =
          copyOut(r, i, aligned, offset, sizes, strides);
      if (failed(out))
        status = failure();
      else
        outputs->push_back(std::move(*out));
    }
    if (allocated && keep.insert(allocated).second)
      std::free(allocated);
  }
  return status;
}

int64_t Invocation::tensorBytes() const {
  int64_t bytes = lastResultBytes;
  for (const auto &slot : slots)
    bytes += int64_t(slot->bytes);
  return bytes;
}

FailureOr<npy::Array> Invocation::copyOut(const ResultSpec &r, size_t index,
                                          void *aligned, int64_t offset,
                                          ArrayRef<int64_t> sizes,
                                          ArrayRef<int64_t> strides) {
  npy::DType dtype = storageDType(r.elem);
  llvm::Expected<npy::Array> made = npy::makeArray(dtype, sizes);
  if (!made)
    return error("result " + Twine(index) + ": bad sizes " +
                 shapeString(sizes) + ": " + llvm::toString(made.takeError()));
  npy::Array a = std::move(*made);
  int64_t n = a.numElements();
  int64_t es = npy::dtypeSize(dtype);
  if (n > 0) {
    if (!aligned)
      return error("result " + Twine(index) + " has a null data pointer");
    const uint8_t *base = static_cast<const uint8_t *>(aligned);
    bool contiguous = true;
    int64_t expect = 1;
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      if (sizes[d] != 1 && strides[d] != expect)
        contiguous = false;
      expect *= sizes[d];
    }
    if (contiguous) {
      std::memcpy(a.data.data(), base + offset * es, n * es);
    } else {
      SmallVector<int64_t> idx(sizes.size(), 0);
      for (int64_t e = 0; e < n; ++e) {
        int64_t lin = offset;
        for (size_t d = 0; d < sizes.size(); ++d)
          lin += idx[d] * strides[d];
        std::memcpy(a.data.data() + e * es, base + lin * es, es);
        for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
          if (++idx[d] < sizes[d])
            break;
          idx[d] = 0;
        }
      }
    }
  }
  if (r.elem == Elem::I1)
    for (uint8_t &b : a.data)
      b &= 1; // LLVM stores i1 as a zero-extended byte
  if (r.elem == Elem::BF16) {
    llvm::Expected<npy::Array> widened = npy::convert(a, npy::DType::F32);
    if (!widened)
      return error(widened.takeError());
    return std::move(*widened);
  }
  return std::move(a);
}
} // namespace pe::run

//===----------------------------------------------------------------------===//
// Check and timing
//===----------------------------------------------------------------------===//

static std::vector<double> toDoubles(const npy::Array &a) {
  int64_t n = a.numElements();
  std::vector<double> v(n);
  const uint8_t *p = a.data.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (a.dtype) {
    case npy::DType::F16: {
      uint16_t x;
      std::memcpy(&x, p + 2 * i, 2);
      v[i] = npy::halfToFloat(x);
      break;
    }
    case npy::DType::BF16: {
      uint16_t x;
      std::memcpy(&x, p + 2 * i, 2);
      v[i] = npy::bfloat16ToFloat(x);
      break;
    }
    case npy::DType::F32: {
      float x;
      std::memcpy(&x, p + 4 * i, 4);
      v[i] = x;
      break;
    }
    case npy::DType::F64:
      std::memcpy(&v[i], p + 8 * i, 8);
      break;
    case npy::DType::I1:
      v[i] = p[i] ? 1.0 : 0.0;
      break;
    case npy::DType::I8:
      v[i] = int8_t(p[i]);
      break;
    case npy::DType::I32: {
      int32_t x;
      std::memcpy(&x, p + 4 * i, 4);
      v[i] = x;
      break;
    }
    case npy::DType::I64: {
      int64_t x;
      std::memcpy(&x, p + 8 * i, 8);
      v[i] = double(x);
      break;
    }
    }
  }
  return v;
}

bool ::pe::run::checkResult(size_t index, const npy::Array &actual,
                            const npy::Array &expected, double rtol,
                            double atol) {
  if (actual.shape != expected.shape) {
    llvm::outs() << "pe-run: check result " << index << ": shape "
                 << shapeString(actual.shape) << " vs reference "
                 << shapeString(expected.shape) << ": FAIL\n";
    return false;
  }
  std::vector<double> a = toDoubles(actual), e = toDoubles(expected);
  constexpr double kTiny = std::numeric_limits<double>::min();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double maxAbs = 0, maxRel = 0;
  bool pass = true;
  for (size_t i = 0; i < a.size(); ++i) {
    double x = a[i], y = e[i];
    if (x == y || (std::isnan(x) && std::isnan(y)))
      continue; // exact (incl. equal infinities and NaN at the same place)
    double absErr = std::fabs(x - y);
    if (std::isnan(absErr) || !std::isfinite(x) || !std::isfinite(y)) {
      maxAbs = maxRel = kInf;
      pass = false;
      continue;
    }
    double relErr = absErr / std::max(std::fabs(y), kTiny);
    maxAbs = std::max(maxAbs, absErr);
    maxRel = std::max(maxRel, relErr);
    if (!(absErr <= atol + rtol * std::fabs(y)))
      pass = false;
  }
  llvm::outs() << "pe-run: check result " << index << ": "
               << llvm::format("max_abs_err=%.3g max_rel_err=%.3g", maxAbs,
                               maxRel)
               << llvm::format(" rtol=%g atol=%g", rtol, atol) << ": "
               << (pass ? "PASS" : "FAIL") << "\n";
  return pass;
}

namespace {
struct Timing {
  double minMs = 0, medianMs = 0;
};
} // namespace

static double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// With `roofline`, the caches are evicted before each timed call, and each
/// call is followed by the memory roofs of the same bytes; with `flops` (the
/// floating-point operations of one call, 0 for none), by the compute roof
/// (see Roofline.h).
static FailureOr<Timing> timeCalls(Invocation &inv, const Compiled &c, int runs,
                                   bool roofline, double flops) {
  if (failed(inv.call(c.fn, nullptr, nullptr))) // warm-up
    return failure();
  std::unique_ptr<::pe::run::Roofline> roof;
  if (roofline || flops > 0) {
    // The compiled code's OpenMP runtime, when the JIT has loaded it.
    auto fork = reinterpret_cast<::pe::run::Roofline::ForkCall>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "__kmpc_fork_call"));
    roof = ::pe::run::Roofline::create(roofline ? inv.tensorBytes() : 0,
                                       ::pe::run::Roofline::defaultThreads(),
                                       fork);
    if (!roof)
      return error("--roofline: out of memory allocating the roofs' buffers "
                   "for " +
                   Twine(inv.tensorBytes()) + " bytes");
  }
  std::vector<double> ms(runs), readGbs, copyGbs, copyNtGbs, callGbs,
      readFraction, copyFraction, callGflops, peakGflops, peakFraction;
  for (int i = 0; i < runs; ++i) {
    if (failed(
            inv.call(c.fn, nullptr, &ms[i], roofline ? roof.get() : nullptr)))
      return failure();
    double call = ms[i] * 1e-3;
    if (flops > 0) {
      // As long as the call took, so that both see the same share of the
      // host; first, while the call's threads are still awake.
      double peak = roof->fmaFlopsPerSecond(call);
      callGflops.push_back(flops * 1e-9 / call);
      peakGflops.push_back(peak * 1e-9);
      peakFraction.push_back(flops / call / peak);
    }
    if (!roofline)
      continue;
    double read = roof->readSeconds(),
           copy = roof->copySeconds(/*nonTemporal=*/false),
           copyNt = roof->copySeconds(/*nonTemporal=*/true);
    // The roofs move the bytes rounded up to whole pairs of cache lines.
    double gb = double(roof->bytes()) * 1e-9;
    readGbs.push_back(gb / read);
    copyGbs.push_back(gb / copy);
    copyNtGbs.push_back(gb / copyNt);
    callGbs.push_back(double(inv.tensorBytes()) * 1e-9 / call);
    readFraction.push_back(read / call);
    copyFraction.push_back(std::min(copy, copyNt) / call);
  }
  Timing t;
  t.minMs = *std::min_element(ms.begin(), ms.end());
  t.medianMs = medianOf(ms);
  llvm::outs() << "pe-run: time pipeline=" << c.pipeline << " runs=" << runs
               << llvm::format(" min_ms=%.6f median_ms=%.6f", t.minMs,
                               t.medianMs)
               << "\n";
  if (roofline)
    llvm::outs() << "pe-run: roofline pipeline=" << c.pipeline
                 << " bytes=" << inv.tensorBytes()
                 << " threads=" << roof->threads()
                 << (roof->onOpenMP() ? " team=libomp" : " team=pool")
                 << llvm::format(" call_gbs=%.2f read_gbs=%.2f copy_gbs=%.2f "
                                 "copy_nt_gbs=%.2f read_fraction=%.3f "
                                 "copy_fraction=%.3f",
                                 medianOf(callGbs), medianOf(readGbs),
                                 medianOf(copyGbs), medianOf(copyNtGbs),
                                 medianOf(readFraction), medianOf(copyFraction))
                 << "\n";
  if (flops > 0)
    llvm::outs() << "pe-run: flops pipeline=" << c.pipeline
                 << llvm::format(" flops=%.0f", flops)
                 << " threads=" << roof->threads()
                 << (roof->onOpenMP() ? " team=libomp" : " team=pool")
                 << " isa=" << roof->fmaIsa()
                 << llvm::format(" call_gflops=%.2f peak_gflops=%.2f "
                                 "peak_fraction=%.3f",
                                 medianOf(callGflops), medianOf(peakGflops),
                                 medianOf(peakFraction))
                 << "\n";
  return t;
}

//===----------------------------------------------------------------------===//
// Ahead-of-time executables (--emit-executable)
//===----------------------------------------------------------------------===//
//
// The lowered module is translated to LLVM IR, optimized as the JIT does,
// compiled to an object in-process and linked by clang++ with pe's AOT
// archives: libpe_aot_main.a (main(): .npy in and out, timing; no LLVM or
// MLIR) and, for the GPU pipelines, the CUDA or Vulkan runtime as an archive.
// The object carries what main() needs (lib/Runtime/AOT/AOTMain.cpp):
// pe_aot_signature, pe_aot_entry (the packed interface pe-run calls through
// the ExecutionEngine), pe_aot_init/fini (the module's global constructors
// and destructors, run by main() once the inputs are read), and calls
// pe_aot_puts/abort/malloc/aligned_alloc where the JIT substitutes
// peRunJitPuts & co.

static StringRef elemName(Elem elem) {
  switch (elem) {
  case Elem::F16:
    return "f16";
  case Elem::BF16:
    return "bf16";
  case Elem::F32:
    return "f32";
  case Elem::F64:
    return "f64";
  case Elem::I1:
    return "i1";
  case Elem::I8:
    return "i8";
  case Elem::I32:
    return "i32";
  case Elem::I64:
    return "i64";
  case Elem::Index:
    return "index";
  }
  llvm_unreachable("unknown Elem");
}

/// The signature as AOTMain.cpp's parseSignature reads it.
static std::string aotSignatureText(const Signature &sig, StringRef pipeline) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "function " << sig.name << "\npipeline " << pipeline << "\n";
  auto dims = [&](ArrayRef<int64_t> shape) {
    os << shape.size();
    for (int64_t d : shape)
      os << " " << (ShapedType::isDynamic(d) ? int64_t(-1) : d);
  };
  for (const ArgSpec &arg : sig.args) {
    os << "arg " << (arg.isTensor ? "tensor " : "scalar ")
       << elemName(arg.elem);
    if (arg.isTensor) {
      os << " ";
      dims(arg.shape);
    }
    os << "\n";
  }
  for (const ResultSpec &r : sig.results) {
    os << "result tensor " << elemName(r.elem) << " ";
    dims(cast<RankedTensorType>(r.type).getShape());
    os << "\n";
  }
  return text;
}

/// void pe_aot_entry(void **args): loads each parameter of `fn` through
/// args[i], calls it, stores the result through args[n] (the layout of the
/// ExecutionEngine's packed wrapper).
static void addPackedEntry(llvm::Module &m, llvm::Function *fn) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  llvm::Type *ptr = b.getPtrTy();
  auto *entry = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {ptr}, false),
      llvm::GlobalValue::ExternalLinkage, "pe_aot_entry", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::Value *packed = entry->getArg(0);
  SmallVector<llvm::Value *> args;
  for (llvm::Argument &arg : fn->args()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, packed, arg.getArgNo(), "slot");
    args.push_back(b.CreateLoad(arg.getType(), b.CreateLoad(ptr, slot)));
  }
  llvm::Value *result = b.CreateCall(fn, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot =
        b.CreateConstGEP1_64(ptr, packed, fn->arg_size(), "result");
    b.CreateStore(result, b.CreateLoad(ptr, slot));
  }
  b.CreateRetVoid();
}

/// Replaces the appending global `list` (llvm.global_ctors or
/// llvm.global_dtors) by a function `name` that calls its entries in
/// priority order, so that main() decides when GPU modules are loaded.
static LogicalResult outlineGlobalStructors(llvm::Module &m, StringRef list,
                                            StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), false),
                             llvm::GlobalValue::ExternalLinkage, name, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  if (llvm::GlobalVariable *gv = m.getNamedGlobal(list)) {
    SmallVector<std::pair<uint64_t, llvm::Function *>> entries;
    if (auto *init = dyn_cast_or_null<llvm::ConstantArray>(
            gv->hasInitializer() ? gv->getInitializer() : nullptr)) {
      for (llvm::Value *op : init->operands()) {
        auto *entry = dyn_cast<llvm::ConstantStruct>(op);
        auto *prio =
            entry ? dyn_cast<llvm::ConstantInt>(entry->getOperand(0)) : nullptr;
        auto *callee =
            entry ? dyn_cast<llvm::Function>(entry->getOperand(1)) : nullptr;
        if (!prio || !callee ||
            !isa<llvm::ConstantPointerNull>(entry->getOperand(2)))
          return error("--emit-executable: unsupported entry in " + list);
        entries.emplace_back(prio->getZExtValue(), callee);
      }
    } else if (gv->hasInitializer() &&
               !isa<llvm::ConstantAggregateZero>(gv->getInitializer())) {
      return error("--emit-executable: unsupported " + list);
    }
    // Stable: entries of equal priority keep their order.
    for (size_t i = 1; i < entries.size(); ++i)
      for (size_t j = i; j > 0 && entries[j].first < entries[j - 1].first; --j)
        std::swap(entries[j], entries[j - 1]);
    // Destructors run in the reverse order of their priorities.
    if (list == "llvm.global_dtors")
      std::reverse(entries.begin(), entries.end());
    for (auto &[prio, callee] : entries)
      b.CreateCall(callee);
    gv->eraseFromParent();
  }
  b.CreateRetVoid();
  return success();
}

/// A temporary file removed when this goes out of scope.
namespace {
struct TempFile {
  SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

/// The features the AOT main() checks: every feature the module's CPU
/// target enables (its CPU's included, so that `x86-64-v3` alone checks
/// AVX2 and FMA), else the TargetMachine builder's (the host's).
static std::string aotFeatureList(ModuleOp lowered,
                                  llvm::orc::JITTargetMachineBuilder &jtmb) {
  LLVM::TargetAttr attr = mlir::pe::getModuleCPUTarget(lowered);
  if (!attr)
    return jtmb.getFeatures().getString();
  FailureOr<mlir::pe::CPUTarget> target = mlir::pe::resolveCPUTarget(
      mlir::pe::getCPUTargetSpec(attr), [&] { return lowered.emitError(); });
  if (failed(target))
    return jtmb.getFeatures().getString();
  SmallVector<std::string> flags;
  for (const auto &feature : target->enabled)
    flags.push_back("+" + feature.getKey().str());
  llvm::sort(flags);
  return llvm::join(flags, ",");
}

static LogicalResult emitExecutable(ModuleOp original, const Signature &sig,
                                    const PipelineEntry &pipeline,
                                    bool runtimeChecks, StringRef path,
                                    StringRef libDir,
                                    const ShardedExecutable *sharded) {
  bool cuda = pipeline.name == "cuda", vulkan = pipeline.name == "vulkan";
  // What the executable is linked with, checked before compiling.
  SmallVector<std::string> archives = {
      (Twine(libDir) + "/" +
       (sharded ? sharded->mainArchive : "libpe_aot_main.a"))
          .str()};
  if (cuda)
    archives.push_back((Twine(libDir) + "/libpe_aot_cuda_runtime.a").str());
  if (vulkan)
    archives.push_back((Twine(libDir) + "/libpe_aot_vulkan_runtime.a").str());
  for (const std::string &archive : archives)
    if (!llvm::sys::fs::exists(archive))
      return error("--emit-executable: cannot find " + archive +
                   " (built with pe-run)");
  std::string linker = PE_AOT_LINKER;
  if (!llvm::sys::fs::can_execute(linker))
    return error("--emit-executable: cannot find the linker driver " + linker +
                 " (Debian package clang-22)");

  FailureOr<OwningOpRef<ModuleOp>> lowered =
      lower(original, sharded ? sharded->local : sig, pipeline, runtimeChecks);
  if (failed(lowered))
    return failure();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> m =
      translateModuleToLLVMIR(**lowered, llvmContext, "pe-aot");
  if (!m)
    return error("--emit-executable: translation to LLVM IR failed");

  // The CPU pipeline's code is for the CPU target the lowered module names
  // (the host by default, or --target-*); the GPU pipelines' host code only
  // marshals buffers and launches kernels, so it is compiled for the generic
  // CPU of the triple and runs on any GPU machine of the same architecture.
  bool hostCPU = !cuda && !vulkan;
  // The triple of a CPU target of another architecture, or empty.
  std::string crossTriple;
  llvm::orc::JITTargetMachineBuilder jtmb{
      llvm::Triple(llvm::sys::getProcessTriple())};
  if (hostCPU) {
    FailureOr<llvm::orc::JITTargetMachineBuilder> target =
        targetMachineBuilder(**lowered, /*forJit=*/false);
    if (failed(target))
      return failure();
    jtmb = std::move(*target);
    // Another architecture: main() from its copy of libpe_aot_main.a
    // (lib/<arch>/, built with the Debian cross toolchain), linked by the
    // same clang++ with --target.
    const llvm::Triple &triple = jtmb.getTargetTriple();
    if (triple.getArch() !=
        llvm::Triple(llvm::sys::getProcessTriple()).getArch()) {
      std::string crossMain =
          (Twine(libDir) + "/" + triple.getArchName() + "/libpe_aot_main.a")
              .str();
      if (!llvm::sys::fs::exists(crossMain))
        return error("--emit-executable: the code is for '" + triple.str() +
                     "', but pe's AOT runtime for it (" + crossMain +
                     ") was not built (pe-run builds it for aarch64 when the "
                     "Debian packages gcc-aarch64-linux-gnu and "
                     "libstdc++-12-dev-arm64-cross are installed)");
      archives.front() = crossMain;
      crossTriple = triple.str();
    }
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.setRelocationModel(llvm::Reloc::PIC_);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm =
      jtmb.createTargetMachine();
  if (!tm)
    return error(tm.takeError());
  m->setDataLayout((*tm)->createDataLayout());
  m->setTargetTriple((*tm)->getTargetTriple());
  if (llvm::Error err = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, tm->get())(m.get()))
    return error(std::move(err));

  llvm::Function *fn = m->getFunction(jitName(sig.name));
  if (!fn || fn->isDeclaration())
    return error("--emit-executable: '" + sig.name +
                 "' is missing from the LLVM module");
  addPackedEntry(*m, fn);
  if (failed(outlineGlobalStructors(*m, "llvm.global_ctors", "pe_aot_init")) ||
      failed(outlineGlobalStructors(*m, "llvm.global_dtors", "pe_aot_fini")))
    return failure();
  for (StringRef name : {"puts", "abort", "malloc", "aligned_alloc"})
    if (llvm::Function *f = m->getFunction(name); f && f->isDeclaration())
      f->setName(("pe_aot_" + name).str());
  std::string signature = aotSignatureText(sig, pipeline.name);
  if (sharded)
    signature += sharded->signatureText;
  // The CPU the code was compiled for: main() checks the x86 features it can
  // query before the first call, so that a CPU executable copied to another
  // machine fails with a message instead of an illegal instruction.
  if (hostCPU)
    signature += "cpu " + jtmb.getCPU() + "\nfeatures " +
                 aotFeatureList(**lowered, jtmb) + "\n";
  new llvm::GlobalVariable(
      *m,
      llvm::ArrayType::get(llvm::Type::getInt8Ty(llvmContext),
                           signature.size() + 1),
      /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantDataArray::getString(llvmContext, signature),
      "pe_aot_signature");
  // OpenMP (the CPU pipeline's scf.parallel loops) calls into libomp.
  bool openmp = llvm::any_of(m->functions(), [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__kmpc_");
  });

  TempFile object, log;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pe-aot", "o", object.path))
    return error("cannot create a temporary file: " + ec.message());
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(object.path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return error(object.path + ": " + ec.message());
    llvm::legacy::PassManager codegen;
    if ((*tm)->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
      return error("--emit-executable: the target cannot emit objects");
    codegen.run(*m);
  }

  if (openmp && !crossTriple.empty())
    return error("--emit-executable: the code for '" + crossTriple +
                 "' calls the OpenMP runtime, which pe does not link for "
                 "that target: compile it without OpenMP "
                 "(--cpu-openmp=false, pe-cpu-pipeline{openmp=false})");
  SmallVector<std::string> args = {linker};
  if (!crossTriple.empty())
    args.push_back("--target=" + crossTriple);
  args.append({"-o", path.str(), object.path.str().str()});
  args.append(archives.begin(), archives.end());
  if (sharded)
    args.append(sharded->linkArgs.begin(), sharded->linkArgs.end());
  if (vulkan)
    args.push_back("-lvulkan");
  if (openmp) {
    args.push_back("-L" + std::string(PE_MLIR_LIB_DIR));
    args.push_back("-lomp");
  }
  // libstdc++ and libgcc linked in: the executable needs only libc, libm and
  // the driver (or libomp / libvulkan) at run time.
  for (const char *flag :
       {"-static-libstdc++", "-static-libgcc", "-lm", "-lpthread", "-ldl"})
    args.push_back(flag);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("pe-aot-link", "log", log.path))
    return error("cannot create a temporary file: " + ec.message());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, log.path.str(),
                                          log.path.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(linker, argRefs, std::nullopt, redirects,
                                     0, 0, &execError);
  if (rc != 0) {
    std::string output;
    if (auto buf = llvm::MemoryBuffer::getFile(log.path))
      output = (*buf)->getBuffer().rtrim().str();
    return error("--emit-executable: linking '" + path + "' failed (" +
                 llvm::join(args, " ") + ")" +
                 (execError.empty() ? "" : ": " + execError) +
                 (output.empty() ? "" : ":\n" + output));
  }
  std::string needs = sharded  ? sharded->needs
                      : cuda   ? "libcuda.so.1 (the NVIDIA driver)"
                      : vulkan ? "libvulkan.so.1 and a Vulkan driver"
                      : openmp ? "libomp.so.5"
                               : "only libc and libm";
  llvm::outs() << "pe-run: wrote '" << path << "' (function '" << sig.name
               << "', pipeline " << pipeline.name << "; needs " << needs
               << " at run time; see '" << path << " --help')\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

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
pe-run times a read of B bytes, and a copy of B/2 bytes into another B/2
with plain and with streaming stores, each after an eviction too. It prints
  pe-run: roofline pipeline=P bytes=B threads=N team=T call_gbs=G
          read_gbs=G copy_gbs=G copy_nt_gbs=G read_fraction=F copy_fraction=F
(one line; T is libomp or, when libomp is not loaded, pool: N threads of
pe-run's own, N from OMP_NUM_THREADS or the hardware threads): medians over
the calls of the bandwidths B / time, of
read_fraction = read time / call time and of copy_fraction = the faster copy's
time / call time, each ratio taken from one call and the roofs right after it.

--flops=F (with --repeat; host pipelines only) measures how close a
compute-bound function that performs F floating-point operations per call
comes to the FP32 multiply-add peak. After each timed call (caches not
evicted, unless with --roofline), on the same threads as the roofs, pe-run
runs a loop of independent multiply-adds in the widest vectors the CPU has
(I: avx512, avx2 or generic) for about as long as the call took, and prints
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

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Keep freed memory in the process: glibc would otherwise mmap every large
  // result buffer afresh and unmap it on free, so each timed call would pay
  // a page fault per 4 KiB of output (for a 64 MiB result, more than the
  // computation). Serving frameworks reuse memory the same way (caching
  // allocators). It changes what --repeat measures, not any result.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());

  llvm::cl::OptionCategory category("pe-run options");
  llvm::cl::opt<std::string> inputFile(llvm::cl::Positional, llvm::cl::Required,
                                       llvm::cl::desc("<input.mlir>"),
                                       llvm::cl::cat(category));
  llvm::cl::opt<std::string> entry(
      "e", llvm::cl::Required, llvm::cl::desc("The func.func to run"),
      llvm::cl::value_desc("function"), llvm::cl::cat(category));
  llvm::cl::list<std::string> inputs(
      "input", llvm::cl::desc("Argument data, one per argument, in order"),
      llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
  llvm::cl::list<std::string> outputs(
      "output", llvm::cl::desc("Where to write the results, one per result"),
      llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
  static const std::string pipelineHelp =
      "Lowering pipeline (default reference; known: " + knownPipelineNames() +
      ")";
  llvm::cl::opt<std::string> pipelineName(
      "pipeline", llvm::cl::desc(pipelineHelp), llvm::cl::init("reference"),
      llvm::cl::value_desc("name"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> checkName(
      "check",
      llvm::cl::desc("Also run the function lowered by this pipeline and "
                     "compare the results"),
      llvm::cl::value_desc("name"), llvm::cl::cat(category));
  llvm::cl::opt<double, false, pe_run::NumberParser<double>> rtol(
      "rtol", llvm::cl::desc("Relative tolerance of --check (default 1e-5)"),
      llvm::cl::init(1e-5), llvm::cl::cat(category));
  llvm::cl::opt<double, false, pe_run::NumberParser<double>> atol(
      "atol", llvm::cl::desc("Absolute tolerance of --check (default 1e-6)"),
      llvm::cl::init(1e-6), llvm::cl::cat(category));
  llvm::cl::opt<int, false, pe_run::NumberParser<int>> repeat(
      "repeat", llvm::cl::desc("Time N calls after one warm-up call"),
      llvm::cl::value_desc("N"), llvm::cl::cat(category));
  llvm::cl::opt<bool> roofline(
      "roofline",
      llvm::cl::desc("With --repeat: evict the caches before each timed call "
                     "and time read and copy roofs of the same bytes after "
                     "it (see below)"),
      llvm::cl::cat(category));
  llvm::cl::opt<double, false, pe_run::NumberParser<double>> flops(
      "flops",
      llvm::cl::desc("With --repeat: the floating-point operations of one "
                     "call; time the FP32 multiply-add peak after each call "
                     "(see below)"),
      llvm::cl::value_desc("F"), llvm::cl::cat(category));
  llvm::cl::opt<unsigned long long, false,
                pe_run::NumberParser<unsigned long long>>
      seed("seed", llvm::cl::desc("Seed of --random-inputs (default 0)"),
           llvm::cl::init(0), llvm::cl::value_desc("S"),
           llvm::cl::cat(category));
  llvm::cl::opt<bool> randomInputs(
      "random-inputs",
      llvm::cl::desc("Fill arguments without an --input with random data"),
      llvm::cl::cat(category));
  llvm::cl::opt<std::string> remarks(
      "remarks",
      llvm::cl::desc("Print the optimization remarks (passed, missed, "
                     "failed, analysis) of the categories matching this "
                     "regular expression, e.g. 'pe-.*|convert-pe-to-vector' "
                     "for why a fusion or a generated kernel did not apply"),
      llvm::cl::value_desc("regex"), llvm::cl::cat(category));
  llvm::cl::opt<bool> runtimeChecks(
      "runtime-checks",
      llvm::cl::desc("Check dynamic sizes against the pe ops' size relations "
                     "in the compiled code (the pipelines' runtime-checks "
                     "option; default true); a failed check is an error"),
      llvm::cl::init(true), llvm::cl::cat(category));
  llvm::cl::opt<std::string> targetTriple(
      "target-triple",
      llvm::cl::desc("CPU target of the cpu pipeline "
                     "(pe-cpu-pipeline{triple}); default: the module's "
                     "llvm.target, else this machine"),
      llvm::cl::value_desc("triple"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> targetCPU(
      "target-cpu",
      llvm::cl::desc("CPU of --target-triple (pe-cpu-pipeline{cpu}): "
                     "x86-64-v3 (AVX2 + FMA), x86-64-v4 (AVX-512), ..."),
      llvm::cl::value_desc("cpu"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> targetFeatures(
      "target-features",
      llvm::cl::desc("Features of --target-triple on top of its CPU's "
                     "(pe-cpu-pipeline{features}), as '+avx512bf16,-fma'"),
      llvm::cl::value_desc("features"), llvm::cl::cat(category));
  llvm::cl::opt<bool> cpuOpenMPFlag(
      "cpu-openmp",
      llvm::cl::desc("Run the cpu pipeline's parallel loops on OpenMP "
                     "threads (pe-cpu-pipeline{openmp}; default true); false: "
                     "sequential loops, no libomp needed"),
      llvm::cl::init(true), llvm::cl::cat(category));
  llvm::cl::opt<std::string> tensorCores(
      "gpu-tensor-cores",
      llvm::cl::desc("Tensor-core attention kernels of the vulkan and cuda "
                     "pipelines (pe-gpu-pipeline{tensor-cores}): auto, off, "
                     "emulate (mma.sync emulated through workgroup memory)"),
      llvm::cl::init("auto"), llvm::cl::value_desc("mode"),
      llvm::cl::cat(category));
  llvm::cl::opt<int64_t, false, pe_run::NumberParser<int64_t>> decodeSplitKeys(
      "gpu-decode-split-keys",
      llvm::cl::desc("Keys per split of a decode attention in the vulkan and "
                     "cuda pipelines (pe-gpu-pipeline{decode-split-keys}); 0: "
                     "no split"),
      llvm::cl::init(128), llvm::cl::value_desc("keys"),
      llvm::cl::cat(category));
  llvm::cl::list<std::string> sharedLibs(
      "shared-libs",
      llvm::cl::desc("Extra libraries for the JIT to load (comma separated); "
                     "libmlir_c_runner_utils.so is always loaded"),
      llvm::cl::value_desc("a.so,b.so"), llvm::cl::CommaSeparated,
      llvm::cl::cat(category));

  llvm::cl::opt<std::string> emitPath(
      "emit-executable",
      llvm::cl::desc("Compile the function with --pipeline into a standalone "
                     "executable at this path instead of running it (see "
                     "below)"),
      llvm::cl::value_desc("path"), llvm::cl::cat(category));

  // A string, so that a value that is not a number gets pe-run's error line.
  llvm::cl::opt<std::string> ranksText(
      "ranks",
      llvm::cl::desc("Run the sharded function on N MPI processes with "
                     "mpiexec and gather its results"),
      llvm::cl::value_desc("N"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> mpiexec(
      "mpiexec",
      llvm::cl::desc("The MPI launcher of --ranks and its arguments, e.g. "
                     "'mpiexec.mpich -f hosts' (default: $PE_MPIEXEC, else "
                     "mpiexec.mpich)"),
      llvm::cl::value_desc("command"), llvm::cl::cat(category));
  llvm::cl::opt<double> ranksTimeout(
      "ranks-timeout",
      llvm::cl::desc("Seconds the ranks of --ranks may run before they are "
                     "stopped (default 600; 0: no limit)"),
      llvm::cl::init(600), llvm::cl::value_desc("seconds"),
      llvm::cl::cat(category));
  llvm::cl::opt<std::string> mpiLib(
      "mpi-lib", llvm::cl::desc("The MPI library the ranks load (MPICH ABI)"),
      llvm::cl::init(PE_MPI_LIBRARY), llvm::cl::value_desc("libmpich.so"),
      llvm::cl::cat(category));
  llvm::cl::opt<std::string> rankDir(
      "rank-dir",
      llvm::cl::desc("Internal: run as one rank of --ranks, writing the "
                     "result blocks to this directory"),
      llvm::cl::Hidden, llvm::cl::cat(category));

  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "pe-mlir version " PE_VERSION_STRING "\n";
  });
  llvm::cl::ParseCommandLineOptions(argc, argv, kOverview);
  if (tensorCores != "auto" && tensorCores != "off" &&
      tensorCores != "emulate") {
    return fail("--gpu-tensor-cores must be auto, off or emulate, not '" +
                tensorCores + "'");
  }
  gpuTensorCores = tensorCores;
  if (targetTriple.empty() && (!targetCPU.empty() || !targetFeatures.empty()))
    return fail("--target-cpu and --target-features need --target-triple");
  cpuTarget = {targetTriple, targetCPU, targetFeatures};
  cpuOpenMP = cpuOpenMPFlag;
  // Modules that name no CPU target (and no --target-triple) are compiled
  // for this machine, where the JIT runs them.
  mlir::pe::setDefaultCPUTarget(mlir::pe::getHostCPUTargetSpec());
  if (decodeSplitKeys < 0)
    return fail("--gpu-decode-split-keys must be at least 0, not " +
                std::to_string(decodeSplitKeys));
  gpuDecodeSplitKeys = decodeSplitKeys;

  // Option checks that need no IR.
  const PipelineEntry *pipeline = lookupPipeline(pipelineName);
  if (!pipeline)
    return fail("unknown pipeline '" + pipelineName +
                "'; known pipelines: " + knownPipelineNames());
  const PipelineEntry *checkPipeline = nullptr;
  if (checkName.getNumOccurrences()) {
    checkPipeline = lookupPipeline(checkName);
    if (!checkPipeline)
      return fail("unknown --check pipeline '" + checkName +
                  "'; known pipelines: " + knownPipelineNames());
  }
  bool timing = repeat.getNumOccurrences() > 0;
  bool sharded = ranksText.getNumOccurrences() > 0 || !rankDir.empty();
  int64_t ranks = 0;
  if (ranksText.getNumOccurrences()) {
    if (StringRef(ranksText).trim().getAsInteger(10, ranks))
      return fail("--ranks must be a number of processes, got '" + ranksText +
                  "'");
    if (ranks < 1)
      return fail("--ranks must be at least 1, got " + Twine(ranks));
  }
  if (!(ranksTimeout >= 0) || !std::isfinite(ranksTimeout))
    return fail("--ranks-timeout must be a finite number of seconds, at "
                "least 0");
  if (sharded && pipelineName.getNumOccurrences())
    return fail("--pipeline does not apply with --ranks (each rank runs "
                "pe-shard-pipeline)");
  if (sharded && (roofline || flops.getNumOccurrences()))
    return fail("--roofline and --flops do not apply with --ranks");
  if (timing && repeat < 1)
    return fail("--repeat must be at least 1, got " + Twine(repeat.getValue()));
  if (roofline && !timing)
    return fail("--roofline needs --repeat (it times the calls)");
  bool flopRoof = flops.getNumOccurrences() > 0;
  if (flopRoof && !(flops > 0 && std::isfinite(flops))) {
    char given[32];
    std::snprintf(given, sizeof(given), "%g", flops.getValue());
    return fail("--flops must be a positive, finite number of operations, "
                "got " +
                Twine(given));
  }
  if (flopRoof && !timing)
    return fail("--flops needs --repeat (it times the calls)");
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
    return fail(Twine(roofline ? "--roofline measures host memory"
                               : "--flops measures the host's compute peak") +
                ": it applies to the reference and cpu pipelines, not to '" +
                offHost->name + "'");
  bool emitting = emitPath.getNumOccurrences() > 0;
  if (emitting && emitPath.empty())
    return fail("--emit-executable needs a path");
  if (emitting && (sharded || checkPipeline || timing || !inputs.empty() ||
                   !outputs.empty() || randomInputs ||
                   seed.getNumOccurrences() || !sharedLibs.empty()))
    return fail("--emit-executable only compiles: --input, --output, "
                "--random-inputs, --seed, --repeat, --check, --ranks and "
                "--shared-libs do not apply (the executable takes --input, "
                "--output, --random-inputs, --seed and --repeat)");
  if (!(rtol >= 0) || !(atol >= 0) || !std::isfinite(rtol) ||
      !std::isfinite(atol))
    return fail("--rtol and --atol must be finite and non-negative");

  SmallVector<std::string> libs;
  std::string runnerUtils =
      std::string(PE_MLIR_LIB_DIR) + "/libmlir_c_runner_utils.so";
  if (llvm::sys::fs::exists(runnerUtils))
    libs.push_back(runnerUtils);
  else
    llvm::errs() << "pe-run: warning: " << runnerUtils
                 << " not found; memrefCopy & co. will be unresolved\n";
  for (const PipelineEntry *entry : {pipeline, checkPipeline}) {
    if (!entry || entry->runtimeLib.empty())
      continue;
    std::string dir =
        entry->peRuntime ? peLibraryDir(argv[0]) : std::string(PE_MLIR_LIB_DIR);
    std::string lib = (Twine(dir) + "/" + entry->runtimeLib).str();
    if (!llvm::sys::fs::exists(lib))
      return fail("pipeline '" + entry->name.str() + "' needs " + lib + " (" +
                  entry->runtimeHint + ")");
    if (!llvm::is_contained(libs, lib))
      libs.push_back(lib);
  }
  for (const std::string &lib : sharedLibs) {
    if (!llvm::sys::fs::exists(lib))
      return fail("--shared-libs: cannot find '" + lib + "'");
    libs.push_back(lib);
  }
  if (!rankDir.empty()) {
    if (mpiLib.empty() || !llvm::sys::fs::exists(mpiLib))
      return fail("--ranks needs the MPICH library ('" + mpiLib +
                  "' not found; Debian package libmpich-dev, or --mpi-lib)");
    libs.push_back(mpiLib);
  }

  // Every target LLVM was built with: --emit-executable compiles for the
  // CPU target of --target-triple, which may be another architecture.
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  mlir::registerAllPasses();
  mlir::pe::registerAllPasses();

  DialectRegistry registry;
  mlir::pe::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu.launch_func memory effects for buffer deallocation (pe-gpu-pipeline).
  mlir::pe::registerLaunchFuncMemoryEffectsModel(registry);
  // Builtin and LLVM dialect translations (and the others, for pipelines
  // that leave omp/gpu ops for the translation).
  mlir::registerAllToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  if (remarks.getNumOccurrences()) {
    if (std::string error; !llvm::Regex(remarks).isValid(error))
      return fail("--remarks: invalid regular expression '" + remarks +
                  "': " + error);
    remark::RemarkCategories categories{remarks, remarks, remarks, remarks,
                                        remarks};
    if (failed(remark::enableOptimizationRemarks(
            context, /*streamer=*/nullptr,
            std::make_unique<remark::RemarkEmittingPolicyAll>(), categories,
            /*printAsEmitRemarks=*/true)))
      return fail("--remarks: cannot enable the remark engine");
  }

  // Parse and verify, with located diagnostics.
  std::string errorMessage;
  auto file = openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("cannot parse '" + inputFile + "'");

  auto fn = module->lookupSymbol<func::FuncOp>(entry);
  if (!fn || fn.isExternal()) {
    SmallVector<std::string> names;
    for (auto f : module->getOps<func::FuncOp>())
      if (!f.isExternal())
        names.push_back(f.getSymName().str());
    std::string available =
        names.empty() ? std::string("none") : llvm::join(names, ", ");
    if (fn)
      return fail("function '" + entry + "' in '" + inputFile +
                  "' is a declaration; available: " + available);
    return fail("no func.func named '" + entry + "' in '" + inputFile +
                "'; available: " + available);
  }
  FailureOr<Signature> sig = readSignature(fn);
  if (failed(sig))
    return 1;
  // A sharded function is emitted as an MPI program (ShardExecutable.h).
  bool emitSharded =
      emitting && pipeline->name == "cpu" && hasShardAnnotations(fn);
  if (!sharded && !emitSharded && failed(checkNotSharded(fn, emitting)))
    return 1;
  if (emitting) {
    FailureOr<ShardedExecutable> shardExe = ShardedExecutable();
    if (emitSharded)
      shardExe = prepareShardedExecutable(fn, *sig);
    if (failed(shardExe))
      return 1;
    return failed(emitExecutable(*module, *sig,
                                 emitSharded ? *shardExe->pipeline : *pipeline,
                                 runtimeChecks, emitPath, peLibraryDir(argv[0]),
                                 emitSharded ? &*shardExe : nullptr))
               ? 1
               : 0;
  }

  // Inputs.
  size_t numArgs = sig->args.size();
  if (inputs.size() > numArgs)
    return fail(Twine(inputs.size()) + " --input files given but function '" +
                entry + "' takes " + Twine(numArgs) + " argument" +
                (numArgs == 1 ? "" : "s"));
  if (inputs.size() < numArgs && !randomInputs)
    return fail("function '" + entry + "' takes " + Twine(numArgs) +
                " argument" + (numArgs == 1 ? "" : "s") + " but " +
                Twine(inputs.size()) +
                " --input files were given (--random-inputs fills the "
                "rest)");
  std::vector<npy::Array> args;
  for (size_t i = 0; i < numArgs; ++i) {
    FailureOr<npy::Array> a;
    if (i < inputs.size()) {
      llvm::Expected<npy::Array> read = npy::readNpy(inputs[i]);
      if (!read)
        return fail(read.takeError());
      a = adaptInput(sig->args[i], i, inputs[i], std::move(*read));
    } else {
      a = randomInput(sig->args[i], i, seed);
    }
    if (failed(a))
      return 1;
    args.push_back(std::move(*a));
  }

  size_t numResults = sig->results.size();
  if (sharded) {
    FailureOr<ShardedSignature> shardedSig = readShardedSignature(fn);
    if (failed(shardedSig))
      return 1;
    if (!rankDir.empty())
      return runRank(*module, *sig, *shardedSig, args, rankDir, libs,
                     runtimeChecks, timing ? repeat.getValue() : 0);
    if (outputs.size() != numResults &&
        !((checkPipeline || timing) && outputs.empty()))
      return fail("function '" + entry + "' has " + Twine(numResults) +
                  " result" + (numResults == 1 ? "" : "s") + " but " +
                  Twine(outputs.size()) + " --output files were given");
    // What each rank is started with.
    SmallVector<std::string> rankArgs = {inputFile, "-e", entry};
    for (const std::string &in : inputs)
      rankArgs.push_back("--input=" + in);
    if (randomInputs)
      rankArgs.push_back("--random-inputs");
    rankArgs.push_back("--seed=" + std::to_string(seed));
    for (const std::string &lib : sharedLibs)
      rankArgs.push_back("--shared-libs=" + lib);
    rankArgs.push_back("--mpi-lib=" + mpiLib);
    if (remarks.getNumOccurrences())
      rankArgs.push_back("--remarks=" + remarks);
    if (!runtimeChecks)
      rankArgs.push_back("--runtime-checks=false");
    if (timing)
      rankArgs.push_back("--repeat=" + std::to_string(repeat));
    RanksOptions options;
    options.ranks = ranks;
    options.rankArgs = std::move(rankArgs);
    options.outputs.assign(outputs.begin(), outputs.end());
    options.checkPipeline = checkPipeline;
    options.libs = libs;
    options.rtol = rtol;
    options.atol = atol;
    options.runtimeChecks = runtimeChecks;
    options.timeoutSeconds = ranksTimeout;
    options.repeat = timing ? repeat.getValue() : 0;
    FailureOr<SmallVector<std::string>> launcher = launcherCommand(mpiexec);
    if (failed(launcher))
      return 1;
    options.mpiexec = std::move(*launcher);
    return runRanks(*module, *sig, *shardedSig, args, options);
  }

  bool outputsOptional = checkPipeline || timing;
  if (outputs.size() != numResults && !(outputsOptional && outputs.empty()))
    return fail("function '" + entry + "' has " + Twine(numResults) +
                " result" + (numResults == 1 ? "" : "s") + " but " +
                Twine(outputs.size()) + " --output files were given");

  // Compile.
  FailureOr<Compiled> primary =
      compile(*module, *sig, *pipeline, libs, runtimeChecks);
  if (failed(primary))
    return 1;
  FailureOr<Compiled> check;
  if (checkPipeline) {
    check = compile(*module, *sig, *checkPipeline, libs, runtimeChecks);
    if (failed(check))
      return 1;
  }

  // Run.
  Invocation mainInv(*sig, args);
  if (failed(mainInv.prepare()))
    return 1;
  SmallVector<npy::Array> results;
  if (failed(mainInv.call(primary->fn, &results, nullptr)))
    return 1;
  for (auto [path, result] : llvm::zip(outputs, results))
    if (llvm::Error err = npy::writeNpy(path, result))
      return fail(std::move(err));

  int status = 0;
  std::optional<Invocation> checkInv;
  if (checkPipeline) {
    checkInv.emplace(*sig, args);
    if (failed(checkInv->prepare()))
      return 1;
    SmallVector<npy::Array> expected;
    if (failed(checkInv->call(check->fn, &expected, nullptr)))
      return 1;
    for (size_t i = 0; i < numResults; ++i)
      if (!checkResult(i, results[i], expected[i], rtol, atol))
        status = 1;
  }

  if (timing) {
    FailureOr<Timing> t = timeCalls(mainInv, *primary, repeat, roofline,
                                    flopRoof ? flops.getValue() : 0.0);
    if (failed(t))
      return 1;
    if (checkPipeline) {
      FailureOr<Timing> tc = timeCalls(*checkInv, *check, repeat, roofline,
                                       flopRoof ? flops.getValue() : 0.0);
      if (failed(tc))
        return 1;
      double speedup = t->medianMs > 0 ? tc->medianMs / t->medianMs
                       : tc->medianMs > 0
                           ? std::numeric_limits<double>::infinity()
                           : 1.0;
      llvm::outs() << "pe-run: speedup " << check->pipeline << "/"
                   << primary->pipeline
                   << llvm::format(" median=%.3fx", speedup) << "\n";
    }
  }
  llvm::outs().flush();
  return status;
}
