//===- Compare.cpp - Results against expected ones ------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/Compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace pe::rt;

std::vector<double> pe::rt::toDoubles(const Array &a) {
  int64_t n = a.numElements();
  int64_t es = dtypeSize(a.dtype);
  std::vector<double> v(static_cast<size_t>(n));
  const uint8_t *p = a.data.data();
  for (int64_t i = 0; i < n; ++i)
    v[i] = isFloat(a.dtype) ? loadFloat(a.dtype, p + i * es)
                            : double(loadInt(a.dtype, p + i * es));
  return v;
}

Comparison pe::rt::compare(const Array &actual, const Array &expected,
                           double rtol, double atol) {
  Comparison c;
  if (actual.shape != expected.shape) {
    c.sameShape = c.pass = false;
    return c;
  }
  std::vector<double> a = toDoubles(actual), e = toDoubles(expected);
  constexpr double kTiny = std::numeric_limits<double>::min();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < a.size(); ++i) {
    double x = a[i], y = e[i];
    if (x == y || (std::isnan(x) && std::isnan(y)))
      continue; // exact (incl. equal infinities and NaN at the same place)
    double absErr = std::fabs(x - y);
    if (std::isnan(absErr) || !std::isfinite(x) || !std::isfinite(y)) {
      c.maxAbsErr = c.maxRelErr = kInf;
      c.pass = false;
      continue;
    }
    double relErr = absErr / std::max(std::fabs(y), kTiny);
    c.maxAbsErr = std::max(c.maxAbsErr, absErr);
    c.maxRelErr = std::max(c.maxRelErr, relErr);
    if (!(absErr <= atol + rtol * std::fabs(y)))
      c.pass = false;
  }
  return c;
}
