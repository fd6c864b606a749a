//===- NpyConvert.cpp - Element type conversions of .npy arrays -----------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Npy.h"

#include <cstring>
#include <utility>

using namespace pe::rt;

template <typename T> static T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T)); // Little-endian hosts only (Npy.h).
  return v;
}

template <typename T> static void store(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

double pe::rt::loadFloat(DType dtype, const uint8_t *p) {
  switch (dtype) {
  case DType::F16:
    return halfToFloat(load<uint16_t>(p));
  case DType::BF16:
    return bfloat16ToFloat(load<uint16_t>(p));
  case DType::F32:
    return load<float>(p);
  case DType::F64:
    return load<double>(p);
  default:
    return 0;
  }
}

static void storeFloat(DType dtype, DType from, double value, uint8_t *p) {
  switch (dtype) {
  case DType::F16:
    // From f64 in one rounding step (no double rounding through float).
    store<uint16_t>(p, from == DType::F64
                           ? doubleToHalf(value)
                           : floatToHalf(static_cast<float>(value)));
    return;
  case DType::BF16:
    store<uint16_t>(p, from == DType::F64
                           ? doubleToBFloat16(value)
                           : floatToBFloat16(static_cast<float>(value)));
    return;
  case DType::F32:
    store<float>(p, static_cast<float>(value));
    return;
  case DType::F64:
    store<double>(p, value);
    return;
  default:
    return;
  }
}

int64_t pe::rt::loadInt(DType dtype, const uint8_t *p) {
  switch (dtype) {
  case DType::I1:
    return *p != 0;
  case DType::I8:
    return static_cast<int8_t>(*p);
  case DType::I32:
    return load<int32_t>(p);
  case DType::I64:
    return load<int64_t>(p);
  default:
    return 0;
  }
}

static std::pair<int64_t, int64_t> intRange(DType dtype) {
  switch (dtype) {
  case DType::I1:
    return {0, 1};
  case DType::I8:
    return {INT8_MIN, INT8_MAX};
  case DType::I32:
    return {INT32_MIN, INT32_MAX};
  default:
    return {INT64_MIN, INT64_MAX};
  }
}

static void storeInt(DType dtype, int64_t value, uint8_t *p) {
  switch (dtype) {
  case DType::I1:
  case DType::I8:
    *p = static_cast<uint8_t>(value);
    return;
  case DType::I32:
    store<int32_t>(p, static_cast<int32_t>(value));
    return;
  case DType::I64:
    store<int64_t>(p, value);
    return;
  default:
    return;
  }
}

Expected<Array> pe::rt::convert(const Array &a, DType to) {
  if (Error err = verify(a))
    return Error("convert: " + err.message());
  if (a.dtype == to)
    return a;
  if (isFloat(a.dtype) != isFloat(to))
    return Error(std::string("convert: cannot convert ") + dtypeName(a.dtype) +
                 " to " + dtypeName(to) +
                 ": conversions between floating-point and integer/bool "
                 "types are lossy by design and not supported");

  Expected<Array> result = makeArray(to, a.shape);
  if (!result)
    return result.takeError();
  int64_t n = a.numElements();
  size_t inSize = dtypeSize(a.dtype), outSize = dtypeSize(to);
  const uint8_t *in = a.data.data();
  uint8_t *out = result->data.data();

  if (isFloat(to)) {
    for (int64_t i = 0; i < n; ++i)
      storeFloat(to, a.dtype, loadFloat(a.dtype, in + i * inSize),
                 out + i * outSize);
    return result;
  }

  auto [lo, hi] = intRange(to);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = loadInt(a.dtype, in + i * inSize);
    if (v < lo || v > hi)
      return Error("convert: value " + std::to_string(v) + " at flat index " +
                   std::to_string(i) + " is out of range for " + dtypeName(to) +
                   " [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    storeInt(to, v, out + i * outSize);
  }
  return result;
}
