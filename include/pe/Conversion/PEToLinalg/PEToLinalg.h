//===- PEToLinalg.h - pe to linalg conversion -------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PETOLINALG_PETOLINALG_H
#define PE_CONVERSION_PETOLINALG_PETOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace pe {

/// Patterns that lower every pe op to linalg/tensor/arith/math on tensors.
void populatePEToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PETOLINALG_PETOLINALG_H
