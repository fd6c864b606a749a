//===- Harness.h - What pe-run's parts share --------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of pe-run that its parts share: the error lines, a function's
// tensor signature and arguments (Harness.cpp), the lowering and JIT
// compilation of a module by a pipeline (Compile.cpp), the calls through the
// packed interface (the host runtime's, pe/Runtime/Invocation.h), their
// timing (Timing.cpp) and the comparison of a result with an expected one.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_HARNESS_H
#define PE_TOOLS_PE_RUN_HARNESS_H

#include "pe/Runtime/Invocation.h"
#include "pe/Runtime/Npy.h"
#include "pe/Runtime/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

/// Where the JIT finds memrefCopy & co. (libmlir_c_runner_utils.so) and
/// libomp (set by CMake).
#ifndef PE_MLIR_LIB_DIR
#define PE_MLIR_LIB_DIR "/usr/lib/llvm-22/lib"
#endif

namespace pe::run {

namespace npy = ::pe::rt;

class Roofline;

/// A lowering pipeline pe-run can compile a function with.
struct PipelineEntry {
  llvm::StringRef name;
  void (*build)(mlir::OpPassManager &pm, bool runtimeChecks);
  /// Runtime library (file name in the LLVM library directory, or in pe's
  /// own library directory if `peRuntime`) the lowered code calls into, or
  /// empty.
  llvm::StringRef runtimeLib;
  /// Where the runtime library comes from, for the error when it is missing.
  llvm::StringRef runtimeHint;
  bool peRuntime = false;
};

//===----------------------------------------------------------------------===//
// Errors: one 'pe-run: error: ...' line on stderr
//===----------------------------------------------------------------------===//

/// Prints 'pe-run: error: MSG'.
void report(const llvm::Twine &msg);
mlir::LogicalResult error(const llvm::Twine &msg);
mlir::LogicalResult error(llvm::Error err);
mlir::LogicalResult error(::pe::rt::Error err);
/// Reports `msg` and gives the exit status 1.
int fail(const llvm::Twine &msg);
int fail(llvm::Error err);
int fail(::pe::rt::Error err);

template <typename T> std::string typeString(T t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// NumPy-style shape: "(2, 3)", "(6,)", "()"; dynamic dims print as "?".
std::string shapeString(llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

/// Element (tensor) or scalar kind of an argument or result.
using ::pe::rt::Elem;
using ::pe::rt::storageDType;

struct ArgSpec {
  bool isTensor = false;
  Elem elem = Elem::F32;
  llvm::SmallVector<int64_t> shape; // tensors only; kDynamic if dynamic
  mlir::Type type;
};

struct ResultSpec {
  Elem elem = Elem::F32;
  int64_t rank = 0;
  mlir::Type type;
};

struct Signature {
  std::string name;
  llvm::SmallVector<ArgSpec> args;
  llvm::SmallVector<ResultSpec> results;
};

/// The signature of `fn`; an error for types pe-run cannot pass.
mlir::FailureOr<Signature> readSignature(mlir::func::FuncOp fn);

/// `sig` as the host runtime describes it (pipeline unset).
::pe::rt::Signature runtimeSignature(const Signature &sig);

/// Argument `index` of `sig`: read from `inputs[index]` and converted to its
/// storage dtype, or (past the end of `inputs`) --random-inputs' data.
mlir::FailureOr<npy::Array> readArgument(const Signature &sig, size_t index,
                                         llvm::ArrayRef<std::string> inputs,
                                         uint64_t seed);

//===----------------------------------------------------------------------===//
// Compilation and calls
//===----------------------------------------------------------------------===//

struct Compiled {
  std::string pipeline;
  /// The FP32 multiply-add probe in the code's vectors (pe::rt::fmaProbe:
  /// "avx512", "avx2", "generic"), from the lowered module's CPU target;
  /// empty when it names none (the host's widest).
  std::string fmaIsa;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void (*fn)(void **) = nullptr;
};

/// The name a function of the input has in the JIT (and in the object of
/// --emit-executable): prefixed, so that no function of the input can take
/// the place of a C library function that the lowered code calls.
std::string jitName(llvm::StringRef name);

/// A clone of `original` with its functions renamed (jitName) and lowered by
/// `pipeline`, with the calling convention checked.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
lower(mlir::ModuleOp original, const Signature &sig,
      const PipelineEntry &pipeline, bool runtimeChecks);

/// The TargetMachine builder for a lowered module: the CPU target it names
/// (llvm.target, written by pe-cpu-pipeline), else the host. The JIT runs
/// code in this process, so `forJit` rejects a target of another
/// architecture (an executable for it: --emit-executable).
mlir::FailureOr<llvm::orc::JITTargetMachineBuilder>
targetMachineBuilder(mlir::ModuleOp module, bool forJit);

/// JIT-compiles function `sig.name` of a clone of `original` lowered by
/// `pipeline`, with `sharedLibs` loaded.
mlir::FailureOr<Compiled> compile(mlir::ModuleOp original, const Signature &sig,
                                  const PipelineEntry &pipeline,
                                  llvm::ArrayRef<std::string> sharedLibs,
                                  bool runtimeChecks);

/// The host runtime's Invocation (pe/Runtime/Invocation.h) on a
/// Signature: argument buffers and the packed argument array for one
/// compiled function.
class Invocation {
public:
  Invocation(const Signature &sig, llvm::ArrayRef<npy::Array> inputs)
      : sig(runtimeSignature(sig)), impl(this->sig, inputs.data()) {}
  // `impl` refers to `sig`.
  Invocation(const Invocation &) = delete;
  Invocation &operator=(const Invocation &) = delete;

  mlir::LogicalResult prepare();

  /// Calls `fn` once. With `outputs`, copies the results out. Frees the
  /// results in any case. `ms` receives the duration of the call alone;
  /// with `evictBefore`, the caches are evicted after the inputs are copied
  /// in, untimed.
  mlir::LogicalResult call(void (*fn)(void **),
                           llvm::SmallVectorImpl<npy::Array> *outputs,
                           double *ms, Roofline *evictBefore = nullptr);

  /// The bytes of the tensor arguments (in their stored types) and of the
  /// last call's results.
  int64_t tensorBytes() const { return impl.tensorBytes(); }

private:
  ::pe::rt::Signature sig;
  ::pe::rt::Invocation impl;
};

struct Timing {
  double minMs = 0, medianMs = 0;
};

/// Times `runs` calls of `c` after a warm-up and prints the times. With
/// `roofline`, the caches are evicted before each timed call, and each call
/// is followed by the memory roofs of the same bytes; with `flops` (the
/// floating-point operations of one call, 0 for none), by the compute roof
/// (see Roofline.h).
mlir::FailureOr<Timing> timeCalls(Invocation &inv, const Compiled &c, int runs,
                                  bool roofline, double flops);

/// Compares `actual` with `expected` (see --help) and prints the check line.
bool checkResult(size_t index, const npy::Array &actual,
                 const npy::Array &expected, double rtol, double atol);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_HARNESS_H
