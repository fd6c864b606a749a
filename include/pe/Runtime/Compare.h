//===- Compare.h - Results against expected ones ----------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_COMPARE_H
#define PE_RUNTIME_COMPARE_H

#include "pe/Runtime/Npy.h"

#include <vector>

namespace pe::rt {

/// The elements of `a` as doubles (exact for every dtype but large int64).
std::vector<double> toDoubles(const Array &a);

struct Comparison {
  bool sameShape = true;
  /// The largest absolute and relative errors (infinite where one side is
  /// not finite and the other differs).
  double maxAbsErr = 0, maxRelErr = 0;
  /// Every element within |actual - expected| <= atol + rtol * |expected|;
  /// equal values (equal infinities, NaN at the same place) always pass.
  bool pass = true;
};

Comparison compare(const Array &actual, const Array &expected, double rtol,
                   double atol);

} // namespace pe::rt

#endif // PE_RUNTIME_COMPARE_H
