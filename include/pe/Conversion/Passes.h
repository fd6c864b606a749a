//===- Passes.h - pe conversion passes --------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PASSES_H
#define PE_CONVERSION_PASSES_H

#include "pe/Conversion/PEToLinalg/PEToLinalg.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace pe {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pe/Conversion/Passes.h.inc"

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PASSES_H
