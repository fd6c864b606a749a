//===- Harness.h - What pe-run's parts share --------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The pieces of pe-run (pe-run.cpp) that its sharded runs (Ranks.cpp) use:
// the error lines, a function's tensor signature, the JIT compilation of a
// module by a pipeline, the calls through the packed interface and the
// comparison of a result with an expected one.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_HARNESS_H
#define PE_TOOLS_PE_RUN_HARNESS_H

#include "pe/Support/Npy.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace pe::run {

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

mlir::LogicalResult error(const llvm::Twine &msg);
mlir::LogicalResult error(llvm::Error err);
/// Reports `msg` and gives the exit status 1.
int fail(const llvm::Twine &msg);
int fail(llvm::Error err);

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
enum class Elem { F16, BF16, F32, F64, I1, I8, I32, I64, Index };

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

/// The dtype in which data of `elem` is held in memory (index is int64).
mlir::pe::npy::DType storageDType(Elem elem);

//===----------------------------------------------------------------------===//
// Compilation and calls
//===----------------------------------------------------------------------===//

struct Compiled {
  std::string pipeline;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  void (*fn)(void **) = nullptr;
};

/// JIT-compiles function `sig.name` of a clone of `original` lowered by
/// `pipeline`, with `sharedLibs` loaded.
mlir::FailureOr<Compiled> compile(mlir::ModuleOp original, const Signature &sig,
                                  const PipelineEntry &pipeline,
                                  llvm::ArrayRef<std::string> sharedLibs,
                                  bool runtimeChecks);

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

/// One argument as passed to the packed function: an expanded memref
/// descriptor (allocated, aligned, offset, sizes[r], strides[r]) or a scalar.
struct ArgSlot {
  std::unique_ptr<void, FreeDeleter> buffer; // tensors: 64-byte aligned data
  size_t bytes = 0;
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> sizes, strides;
  union {
    int64_t i64;
    int32_t i32;
    float f32;
    double f64;
  } scalar = {0};
};

/// Argument buffers and the packed argument array for one compiled function.
/// The pristine input data is copied in before every call, so functions that
/// write into their arguments see the same inputs each time.
class Invocation {
public:
  Invocation(const Signature &sig, llvm::ArrayRef<mlir::pe::npy::Array> inputs)
      : sig(sig), inputs(inputs) {}

  mlir::LogicalResult prepare();

  /// Calls `fn` once. With `outputs`, copies the results out. Frees the
  /// results in any case. `ms` receives the duration of the call alone;
  /// with `evictBefore`, the caches are evicted after the inputs are copied
  /// in, untimed.
  mlir::LogicalResult call(void (*fn)(void **),
                           llvm::SmallVectorImpl<mlir::pe::npy::Array> *outputs,
                           double *ms, Roofline *evictBefore = nullptr);

  /// The bytes of the tensor arguments (in their stored types) and of the
  /// last call's results: what a function that reads each input once and
  /// writes each result once moves.
  int64_t tensorBytes() const;

private:
  int64_t lastResultBytes = 0;

  static mlir::FailureOr<mlir::pe::npy::Array>
  copyOut(const ResultSpec &r, size_t index, void *aligned, int64_t offset,
          llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides);

  const Signature &sig;
  llvm::ArrayRef<mlir::pe::npy::Array> inputs;
  llvm::SmallVector<std::unique_ptr<ArgSlot>> slots;
  std::vector<int64_t> resultBuffer;
  llvm::SmallVector<void *> packed;
};

/// Compares `actual` with `expected` (see --help) and prints the check line.
bool checkResult(size_t index, const mlir::pe::npy::Array &actual,
                 const mlir::pe::npy::Array &expected, double rtol,
                 double atol);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_HARNESS_H
