//===- Passes.h - math passes -----------------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// pe-approximate-math (lib/Transforms/Math): MLIR 22's polynomial
// approximations as a pass; the CPU pipelines run it.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_MATH_PASSES_H
#define PE_TRANSFORMS_MATH_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace pe {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pe/Transforms/Math/Passes.h.inc"

} // namespace pe
} // namespace mlir

#endif // PE_TRANSFORMS_MATH_PASSES_H
