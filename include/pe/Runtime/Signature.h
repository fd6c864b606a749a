//===- Signature.h - The tensor signature of a compiled function -*- C++
//-*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The arguments and results of a function pe-run calls (ranked tensors and
// scalars), and their text form: pe-run embeds it in the executables of
// --emit-executable as `pe_aot_signature`, whose main() reads it back.
//
// Lines: "function NAME", "pipeline NAME", "arg tensor ELEM RANK DIMS...",
// "arg scalar ELEM", "result tensor ELEM RANK DIMS...", "cpu NAME",
// "features +a,-b,..."; dynamic dimensions are -1. Lines of other kinds
// (the layouts of sharded functions) are left to their readers.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_SIGNATURE_H
#define PE_RUNTIME_SIGNATURE_H

#include "pe/Runtime/Npy.h"

#include <string>
#include <vector>

namespace pe::rt {

/// Element (tensor) or scalar kind of an argument or result.
enum class Elem { F16, BF16, F32, F64, I1, I8, I32, I64, Index };

/// The MLIR spelling: "f16", "bf16", ..., "index".
const char *elemName(Elem elem);

/// The dtype in which data of `elem` is held in memory (index is int64).
DType storageDType(Elem elem);

/// One argument or result. Negative dimensions are dynamic.
struct ValueSpec {
  bool isTensor = true;
  Elem elem = Elem::F32;
  std::vector<int64_t> shape;
};

/// The MLIR type of `v`: "tensor<2x?xf32>", "index".
std::string typeString(const ValueSpec &v);

struct Signature {
  std::string function, pipeline;
  std::vector<ValueSpec> args, results;
  /// The CPU the code was compiled for (CPU pipelines only) and its LLVM
  /// features ("+avx2,-amx-tile,...").
  std::string cpu, features;
};

/// The text form of `sig` (see above); "cpu" and "features" only if set.
std::string formatSignature(const Signature &sig);

/// Reads the text form; an error names the first line it cannot read.
Expected<Signature> parseSignature(const std::string &text);

} // namespace pe::rt

#endif // PE_RUNTIME_SIGNATURE_H
