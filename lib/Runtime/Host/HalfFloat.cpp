//===- HalfFloat.cpp - IEEE binary16 and bfloat16 conversions -------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/HalfFloat.h"

#include <cstring>

using namespace pe::rt;

template <typename To, typename From> static To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "sizes differ");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

uint16_t pe::rt::floatToHalf(float value) {
  uint32_t bits = bitCast<uint32_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffffu;

  if (abs >= 0x7f800000u) {
    if (abs == 0x7f800000u)
      return sign | 0x7c00; // Infinity.
    // NaN: keep the top payload bits and force a quiet NaN.
    return sign | 0x7e00 | static_cast<uint16_t>((abs >> 13) & 0x3ff);
  }

  int32_t exp = static_cast<int32_t>(abs >> 23) - 127;
  if (exp > 15)
    return sign | 0x7c00; // Overflow (|x| >= 2^16).

  uint32_t mant = abs & 0x7fffffu;
  if (exp >= -14) {
    // Normal half. Rounding may carry into the exponent, which correctly
    // yields the next binade or infinity.
    uint32_t h = (static_cast<uint32_t>(exp + 15) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
      ++h;
    return sign | static_cast<uint16_t>(h);
  }

  // Subnormal half (or zero). |x| < 2^-25 always rounds to zero; float
  // subnormals have exp == -127 and land here too.
  if (exp < -25)
    return sign;
  // value = M * 2^(exp - 23) with the implicit bit; half subnormal unit is
  // 2^-24, so the half mantissa is M >> (-exp - 1).
  uint32_t m = mant | 0x800000u;
  unsigned shift = static_cast<unsigned>(-exp - 1); // 14 .. 24
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rem > halfway || (rem == halfway && (h & 1)))
    ++h; // May become 0x400, the smallest normal: still correct.
  return sign | static_cast<uint16_t>(h);
}

float pe::rt::halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  uint32_t out;
  if (exp == 0x1f) {
    out = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    out = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    out = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mant & 0x400)) {
      mant <<= 1;
      ++shift;
    }
    mant &= 0x3ff;
    out = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mant << 13);
  }
  return bitCast<float>(out);
}

uint16_t pe::rt::floatToBFloat16(float value) {
  uint32_t bits = bitCast<uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x0040); // Quiet NaN.
  uint32_t lsb = (bits >> 16) & 1;
  bits += 0x7fffu + lsb;
  return static_cast<uint16_t>(bits >> 16);
}

float pe::rt::bfloat16ToFloat(uint16_t bits) {
  return bitCast<float>(static_cast<uint32_t>(bits) << 16);
}

/// Rounds a double to a 16-bit format with `expBits` exponent bits and
/// 15 - expBits fraction bits, in one step.
static uint16_t doubleTo16(double value, int expBits) {
  const int fracBits = 15 - expBits;
  const int bias = (1 << (expBits - 1)) - 1;
  const uint32_t expMask = (1u << expBits) - 1;
  uint64_t bits = bitCast<uint64_t>(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  uint64_t abs = bits & 0x7fffffffffffffffull;
  int64_t biased = static_cast<int64_t>(abs >> 52);
  uint64_t frac = abs & 0xfffffffffffffull;
  if (biased == 0x7ff) {
    if (frac == 0)
      return sign | static_cast<uint16_t>(expMask << fracBits); // Infinity.
    // NaN: keep the top payload bits and force a quiet NaN.
    uint32_t payload = static_cast<uint32_t>(frac >> (52 - fracBits));
    return sign | static_cast<uint16_t>((expMask << fracBits) |
                                        (1u << (fracBits - 1)) | payload);
  }
  if (biased == 0)
    return sign; // Double subnormals are far below the 16-bit ones.
  int64_t exp = biased - 1023;
  if (exp > bias)
    return sign | static_cast<uint16_t>(expMask << fracBits); // Overflow.
  // The value is sig * 2^(exp - 52); the result's unit is
  // 2^(max(exp, 1 - bias) - fracBits).
  uint64_t sig = frac | (1ull << 52);
  int64_t minExp = 1 - bias;
  int64_t shift = (52 - fracBits) + (exp < minExp ? minExp - exp : 0);
  if (shift >= 64)
    return sign; // Below half the smallest subnormal.
  uint64_t q = sig >> shift;
  uint64_t rem = sig & ((1ull << shift) - 1);
  uint64_t halfway = 1ull << (shift - 1);
  if (rem > halfway || (rem == halfway && (q & 1)))
    ++q;
  // Subnormal results are q itself (a carry to 1 << fracBits is the smallest
  // normal); for normal ones a carry out of the fraction steps the exponent.
  uint64_t out = exp < minExp
                     ? q
                     : (static_cast<uint64_t>(exp + bias) << fracBits) +
                           (q - (1ull << fracBits));
  if (out >= (static_cast<uint64_t>(expMask) << fracBits))
    return sign | static_cast<uint16_t>(expMask << fracBits); // Overflow.
  return sign | static_cast<uint16_t>(out);
}

uint16_t pe::rt::doubleToHalf(double value) { return doubleTo16(value, 5); }

uint16_t pe::rt::doubleToBFloat16(double value) { return doubleTo16(value, 8); }
