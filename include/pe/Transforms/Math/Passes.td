//===- Passes.td - math passes -----------------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
// Passes that fill gaps of MLIR 22 itself, independent of the pe dialect;
// each one's description says what MLIR lacks.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_MATH_PASSES_TD
#define PE_TRANSFORMS_MATH_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"pe-approximate-math"> {
  let summary = "Replace f32 exp, tanh, sin and cos by vectorisable polynomials";
  let description = [{
    Applies MLIR's polynomial approximations of `math` ops on f32 scalars and
    vectors (`populateMathPolynomialApproximationPatterns`), so that the
    generated kernels do not call scalar libm functions per lane. The
    approximations are accurate to a few ulp in f32 (exp: about 2e-7
    relative). f64 math is left alone, and so is math on whole tensors
    (`math.exp %x : tensor<4x8xf32>`): the approximations build their
    constants for scalars and vectors only. The pipelines lower tensor-level
    elementwise ops to linalg payloads (`convert-elementwise-to-linalg`)
    first, where they are scalars.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // PE_TRANSFORMS_MATH_PASSES_TD
