//===- Inputs.cpp - The arguments of a call, from files or made -----------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Inputs.h"

#include <cstring>

using namespace pe::rt;

Expected<Array> pe::rt::adaptInput(const ValueSpec &arg, size_t index,
                                   const std::string &file, Array a) {
  std::string where = "argument " + std::to_string(index) + " (" +
                      typeString(arg) + ") from '" + file + "'";
  DType want = storageDType(arg.elem);
  if (arg.isTensor) {
    bool dtypeOk =
        a.dtype == want || (arg.elem == Elem::BF16 && a.dtype == DType::F32);
    if (!dtypeOk) {
      std::string expected = dtypeName(want);
      if (arg.elem == Elem::BF16)
        expected = "float32 or bfloat16";
      return Error(where + ": expected dtype " + expected + ", got " +
                   dtypeName(a.dtype));
    }
    bool shapeOk = a.shape.size() == arg.shape.size();
    for (size_t d = 0; shapeOk && d < arg.shape.size(); ++d)
      if (arg.shape[d] >= 0 && arg.shape[d] != a.shape[d])
        shapeOk = false;
    if (!shapeOk)
      return Error(where + ": expected shape " + shapeString(arg.shape) +
                   ", got " + shapeString(a.shape));
    if (a.dtype == want)
      return a;
    Expected<Array> converted = convert(a, want);
    if (!converted)
      return Error(where + ": " + converted.errorMessage());
    return converted;
  }

  // Scalars: a 0-d array or a 1-element 1-d array of a matching kind.
  if (!(a.shape.empty() || (a.shape.size() == 1 && a.shape[0] == 1)))
    return Error(
        where + ": expected a scalar (0-d or 1-element 1-d array), got shape " +
        shapeString(a.shape));
  bool wantFloat = isFloat(want);
  bool isInt = !isFloat(a.dtype) && a.dtype != DType::I1;
  if (wantFloat ? !isFloat(a.dtype) : !isInt)
    return Error(where + ": expected " +
                 (wantFloat ? "a float dtype" : "an integer dtype") + ", got " +
                 dtypeName(a.dtype));
  a.shape.clear();
  Expected<Array> converted = convert(a, want);
  if (!converted)
    return Error(where + ": " + converted.errorMessage());
  return converted;
}

namespace {
/// splitmix64 (Steele, Lea, Flood 2014): fixed output on every platform.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};
} // namespace

/// Element `i` of `elem` from the random bits `r`, stored at `p`.
static void storeRandom(Elem elem, uint64_t r, uint8_t *p, int64_t i) {
  switch (elem) {
  case Elem::F32: {
    float v = float((double(r >> 40) - 8388608.0) * 0x1p-23);
    std::memcpy(p + 4 * i, &v, 4);
    return;
  }
  case Elem::F64: {
    double v = (double(r >> 11) - 4503599627370496.0) * 0x1p-52;
    std::memcpy(p + 8 * i, &v, 8);
    return;
  }
  case Elem::F16: {
    uint16_t v = floatToHalf(float((double(r >> 53) - 1024.0) * 0x1p-10));
    std::memcpy(p + 2 * i, &v, 2);
    return;
  }
  case Elem::BF16: {
    uint16_t v = floatToBFloat16(float((double(r >> 56) - 128.0) * 0x1p-7));
    std::memcpy(p + 2 * i, &v, 2);
    return;
  }
  case Elem::I1:
    p[i] = uint8_t(r >> 63);
    return;
  case Elem::I8:
    p[i] = uint8_t(r >> 61);
    return;
  case Elem::I32: {
    int32_t v = int32_t(r >> 61);
    std::memcpy(p + 4 * i, &v, 4);
    return;
  }
  case Elem::I64:
  case Elem::Index: {
    int64_t v = int64_t(r >> 61);
    std::memcpy(p + 8 * i, &v, 8);
    return;
  }
  }
}

Expected<Array> pe::rt::randomInput(const ValueSpec &arg, size_t index,
                                    uint64_t seed) {
  DType dtype = storageDType(arg.elem);
  if (!arg.isTensor)
    return makeArray(dtype, {}); // scalars are 0
  for (int64_t d : arg.shape)
    if (d < 0)
      return Error("--random-inputs: argument " + std::to_string(index) +
                   " has type " + typeString(arg) +
                   " with dynamic dimensions; give it an --input file");
  Expected<Array> made = makeArray(dtype, arg.shape);
  if (!made)
    return Error("--random-inputs: argument " + std::to_string(index) + ": " +
                 made.errorMessage());
  SplitMix64 rng{seed ^ (0xD1B54A32D192ED03ull * (uint64_t(index) + 1))};
  rng.next();
  int64_t n = made->numElements();
  for (int64_t i = 0; i < n; ++i)
    storeRandom(arg.elem, rng.next(), made->data.data(), i);
  return made;
}
