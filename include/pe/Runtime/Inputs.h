//===- Inputs.h - The arguments of a call, from files or made ---*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// What pe-run and the executables of --emit-executable pass for each
// argument: an array read from an --input file, checked against the
// argument and converted to its storage dtype, or --random-inputs' data.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_INPUTS_H
#define PE_RUNTIME_INPUTS_H

#include "pe/Runtime/Signature.h"

#include <cstdint>
#include <string>

namespace pe::rt {

/// Converts `a`, read for argument `index` from `file`, to the argument's
/// storage dtype, checking dtype and shape: a tensor takes its own dtype (a
/// bf16 one float32 too, rounded) and shape; a scalar a 0-d or 1-element
/// 1-d array of a float or integer dtype as the scalar is.
Expected<Array> adaptInput(const ValueSpec &arg, size_t index,
                           const std::string &file, Array a);

/// Deterministic data for argument `index` (pe-run --random-inputs): each
/// argument has its own splitmix64 stream, so its data depends only on
/// (seed, index, type); floats are k * 2^-(b-1) - 1 for a b-bit k, with b
/// the precision of the type (exact in the type and in [-1, 1)), integers
/// are in [0, 8), booleans 0 or 1, scalars 0.
Expected<Array> randomInput(const ValueSpec &arg, size_t index, uint64_t seed);

} // namespace pe::rt

#endif // PE_RUNTIME_INPUTS_H
