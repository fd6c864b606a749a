//===- HalfFloatTest.cpp - Tests for the f16/bf16 conversions -------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The expected bit patterns were computed outside the code under test: the
// f16 ones by NumPy 1.24.2 (`np.array([x]).astype(np.float16)`, whose
// float64 -> float16 cast rounds once), the bf16 ones by exact rational
// round-to-nearest-even in Python (fractions.Fraction), with x as written in
// each row's comment.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/HalfFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace pe::rt;

namespace {

float floatOf(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

double doubleOf(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

struct FloatCase {
  uint32_t in;
  uint16_t out;
};

struct DoubleCase {
  uint64_t in;
  uint16_t out;
};

TEST(HalfFloat, FloatToHalfMatchesNumPy) {
  const FloatCase cases[] = {
      {0x3f800000u, 0x3c00}, // 1.0
      {0xc0200000u, 0xc100}, // -2.5
      {0x477fe000u, 0x7bff}, // 65504.0 (largest half)
      {0x477feffdu, 0x7bff}, // 65519.99
      {0x477ff000u, 0x7c00}, // 65520.0: rounds to inf
      {0x38800000u, 0x0400}, // 2^-14 (smallest normal half)
      {0x33800000u, 0x0001}, // 2^-24 (smallest subnormal half)
      {0x33000000u, 0x0000}, // 2^-25: tie, to even (zero)
      {0x33000001u, 0x0001}, // just above 2^-25
      {0x3f801000u, 0x3c00}, // 1 + 2^-11: tie, to even
      {0x3f803000u, 0x3c02}, // 1 + 3 * 2^-11: tie, to even (up)
      {0x7f800000u, 0x7c00}, // inf
      {0x80000000u, 0x8000}, // -0.0
      {0x2edbe6ffu, 0x0000}, // 1e-10
      {0xb8000000u, 0x8200}, // -2^-15 (subnormal)
      {0x3dcccccdu, 0x2e66}, // 0.1
      {0x7fc00000u, 0x7e00}, // quiet NaN
  };
  for (const FloatCase &c : cases)
    EXPECT_EQ(floatToHalf(floatOf(c.in)), c.out) << std::hex << c.in;
}

TEST(HalfFloat, DoubleToHalfRoundsOnce) {
  const DoubleCase cases[] = {
      // 1 + 2^-11 + 2^-40: through float it would be the tie 1 + 2^-11 and
      // round to 1.0; rounded once it is above the tie.
      {0x3ff0020000001000ull, 0x3c01},
      {0x3ff0020000000000ull, 0x3c00}, // 1 + 2^-11
      {0x40effdfffffde721ull, 0x7bff}, // 65519.999999
      {0x40effe0000000000ull, 0x7c00}, // 65520.0
      {0x3e60000000000000ull, 0x0000}, // 2^-25
      {0x3e60000000020000ull, 0x0001}, // 2^-25 + 2^-60
      {0x7e37e43c8800759cull, 0x7c00}, // 1e300
      {0x01a56e1fc2f8f359ull, 0x0000}, // 1e-300
      {0xbfb999999999999aull, 0xae66}, // -0.1
      {0x400921fb54442d11ull, 0x4248}, // 3.14159265358979
  };
  for (const DoubleCase &c : cases)
    EXPECT_EQ(doubleToHalf(doubleOf(c.in)), c.out) << std::hex << c.in;
}

TEST(HalfFloat, HalfToFloatIsExact) {
  const struct {
    uint16_t in;
    uint32_t out;
  } cases[] = {
      {0x0001, 0x33800000u}, {0x03ff, 0x387fc000u}, {0x0400, 0x38800000u},
      {0x3c00, 0x3f800000u}, {0x7bff, 0x477fe000u}, {0x7c00, 0x7f800000u},
      {0xfc00, 0xff800000u}, {0x8000, 0x80000000u}, {0xc500, 0xc0a00000u},
  };
  for (const auto &c : cases)
    EXPECT_EQ(bitsOf(halfToFloat(c.in)), c.out) << std::hex << c.in;
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
}

TEST(HalfFloat, FloatToBFloat16RoundsToNearestEven) {
  const FloatCase cases[] = {
      {0x3f800000u, 0x3f80}, // 1.0
      {0xc0200000u, 0xc020}, // -2.5
      {0x3f808000u, 0x3f80}, // 1 + 2^-8: tie, to even
      {0x3f818000u, 0x3f82}, // 1 + 3 * 2^-8: tie, to even (up)
      {0x7f7f0000u, 0x7f7f}, // largest bf16
      {0x7f7fffffu, 0x7f80}, // FLT_MAX: rounds to inf
      {0x000116c2u, 0x0001}, // 1e-40 (subnormal)
      {0x00010000u, 0x0001}, // 2^-133 (smallest subnormal bf16)
      {0x3dcccccdu, 0x3dcd}, // 0.1
  };
  for (const FloatCase &c : cases)
    EXPECT_EQ(floatToBFloat16(floatOf(c.in)), c.out) << std::hex << c.in;
  uint16_t nan = floatToBFloat16(floatOf(0x7f800001u)); // signalling NaN
  EXPECT_EQ(nan & 0x7f80, 0x7f80);
  EXPECT_NE(nan & 0x0040, 0); // quiet
}

TEST(HalfFloat, DoubleToBFloat16RoundsOnce) {
  const DoubleCase cases[] = {
      // 1 + 2^-8 + 2^-40: a tie through float, above it rounded once.
      {0x3ff0100000001000ull, 0x3f81},
      {0x3ff0100000000000ull, 0x3f80}, // 1 + 2^-8
      {0x7e37e43c8800759cull, 0x7f80}, // 1e300
      {0x01a56e1fc2f8f359ull, 0x0000}, // 1e-300
      {0x3fb999999999999aull, 0x3dcd}, // 0.1
      {0xc00921fb54442d11ull, 0xc049}, // -3.14159265358979
      {0x3790000000000000ull, 0x0000}, // 2^-134: tie, to even (zero)
      {0x3790000000010000ull, 0x0001}, // just above 2^-134
  };
  for (const DoubleCase &c : cases)
    EXPECT_EQ(doubleToBFloat16(doubleOf(c.in)), c.out) << std::hex << c.in;
}

TEST(HalfFloat, BFloat16ToFloatIsExact) {
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x3f80)), 0x3f800000u);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0xc049)), 0xc0490000u);
  EXPECT_EQ(bitsOf(bfloat16ToFloat(0x0001)), 0x00010000u);
}

} // namespace
