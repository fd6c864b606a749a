//===- HalfFloat.h - IEEE binary16 and bfloat16 conversions -----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Conversions between float/double and the 16-bit float formats, as bit
// patterns: IEEE binary16 (f16) and bfloat16 (bf16). Every narrowing rounds
// to nearest, ties to even, in a single step (a double is not rounded
// through float first); overflow gives +-inf, tiny values subnormals or
// signed zero; NaNs stay NaNs (quiet, with the top payload bits kept). The
// widenings are exact.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_HALFFLOAT_H
#define PE_RUNTIME_HALFFLOAT_H

#include <cstdint>

namespace pe::rt {

uint16_t floatToHalf(float value);
uint16_t doubleToHalf(double value);
float halfToFloat(uint16_t bits);

uint16_t floatToBFloat16(float value);
uint16_t doubleToBFloat16(double value);
float bfloat16ToFloat(uint16_t bits);

} // namespace pe::rt

#endif // PE_RUNTIME_HALFFLOAT_H
