//===- Invocation.h - Calls through the packed interface --------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Calls a lowered function through MLIR's packed interface, `void(void
// **args)`: one pointer per LLVM parameter (the fields of each tensor
// argument's expanded memref descriptor, or a scalar), then one to the
// result slots, where the function writes each result's descriptor
// (allocated, aligned, offset, sizes[r], strides[r]). pe-run calls the JIT's
// wrapper, the executables of --emit-executable their pe_aot_entry.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_INVOCATION_H
#define PE_RUNTIME_INVOCATION_H

#include "pe/Runtime/Signature.h"

#include <cstdlib>
#include <functional>
#include <memory>

namespace pe::rt {

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
  std::vector<int64_t> sizes, strides;
  union {
    int64_t i64;
    int32_t i32;
    float f32;
    double f64;
  } scalar = {0};
};

/// Argument buffers and the packed argument array for one function. The
/// pristine input data is copied in before every call, so functions that
/// write into their arguments see the same inputs each time.
class Invocation {
public:
  /// `inputs` holds one array per argument of `sig`, in storage dtypes
  /// (adaptInput, randomInput); both must outlive this.
  Invocation(const Signature &sig, const Array *inputs)
      : sig(sig), inputs(inputs) {}

  Error prepare();

  /// Calls `fn` once. With `outputs`, appends the results (copied out; i1
  /// as 0/1 bytes, bf16 widened to float32). Frees the results in any case.
  /// `ms` receives the duration of the call alone; `beforeCall`, if set,
  /// runs after the inputs are copied in, untimed.
  Error call(void (*fn)(void **), std::vector<Array> *outputs, double *ms,
             const std::function<void()> &beforeCall = {});

  /// The bytes of the tensor arguments (in their stored types) and of the
  /// last call's results: what a function that reads each input once and
  /// writes each result once moves.
  int64_t tensorBytes() const;

private:
  static Expected<Array> copyOut(const ValueSpec &r, size_t index,
                                 void *aligned, int64_t offset,
                                 const std::vector<int64_t> &sizes,
                                 const std::vector<int64_t> &strides);

  const Signature &sig;
  const Array *inputs;
  std::vector<std::unique_ptr<ArgSlot>> slots;
  std::vector<int64_t> resultBuffer;
  std::vector<void *> packed;
  int64_t lastResultBytes = 0;
};

} // namespace pe::rt

#endif // PE_RUNTIME_INVOCATION_H
