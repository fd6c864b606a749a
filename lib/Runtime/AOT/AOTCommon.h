//===- AOTCommon.h - What the mains of AOT executables share ----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// `pe-run FILE -e FUNC --pipeline=P --emit-executable=EXE` compiles the
// lowered function to an object and links it with libpe_aot_main.a
// (AOTMain.cpp; AOTShardMain.cpp for sharded functions) and, for the GPU
// pipelines, a static copy of pe's CUDA or Vulkan runtime. The object
// provides:
//
//   pe_aot_signature  text: the function's name, pipeline, arguments and
//                     results (pe/Runtime/Signature.h; sharded functions
//                     add their layouts)
//   pe_aot_entry      the packed interface: void(void **args), one pointer per
//                     LLVM parameter, then one to the result slots
//   pe_aot_init/fini  the module's global constructors and destructors (GPU
//                     module loading), called after the inputs are read
//
// and calls pe_aot_puts/abort/malloc/aligned_alloc (AOTCommon.cpp) where the
// lowered code calls puts/abort/malloc/aligned_alloc, so that a failed
// run-time check or an allocation failure ends the run with one error line,
// as in pe-run.
//
// The archives depend only on the C++ standard library and glibc (and MPI
// for sharded functions), with pe's host runtime (pe/Runtime) built in: the
// executables run where only a driver is installed.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_RUNTIME_AOT_AOTCOMMON_H
#define PE_LIB_RUNTIME_AOT_AOTCOMMON_H

#include "pe/Runtime/Npy.h"
#include "pe/Runtime/Signature.h"

#include <string>
#include <vector>

extern "C" {
extern const char pe_aot_signature[];
void pe_aot_entry(void **args);
void pe_aot_init();
void pe_aot_fini();
}

namespace pe::aot {

/// Prints 'pe-aot: error: MSG' and exits with status 1.
[[noreturn]] void fail(const std::string &msg);

/// The value of `e`, or fail() with its error.
template <typename T> T take(rt::Expected<T> e) {
  if (!e)
    fail(e.errorMessage());
  return std::move(*e);
}
inline void check(rt::Error err) {
  if (err)
    fail(err.message());
}

/// The command line (both mains take the same options).
struct Options {
  std::vector<std::string> inputs, outputs;
  bool randomInputs = false, timing = false, help = false;
  unsigned long long seed = 0, repeat = 0;
};
Options parseOptions(int argc, char **argv);

/// Fails unless `o` gives `sig` its arguments and results.
void checkCounts(const rt::Signature &sig, const Options &o);

/// Argument `i`: read from its --input or made by --random-inputs.
rt::Array argument(const rt::Signature &sig, size_t i, const Options &o);

/// Fails if the code was compiled for CPU features this CPU lacks.
/// PE_AOT_ASSUME_MISSING (comma-separated feature names) makes features
/// count as missing, for testing this check.
void checkCPU(const rt::Signature &sig);

/// Keeps freed memory in the process, as pe-run does (no page faults per
/// call on large results in --repeat).
void keepFreedMemory();

/// Prints "  argument I: TYPE" and "  result I: TYPE" lines (--help).
void printSignature(const rt::Signature &sig);

/// The median of `v` (not empty).
double median(std::vector<double> v);

} // namespace pe::aot

#endif // PE_LIB_RUNTIME_AOT_AOTCOMMON_H
