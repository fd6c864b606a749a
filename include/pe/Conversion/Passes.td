//===- Passes.td - pe conversion passes --------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PASSES_TD
#define PE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPEToLinalg : Pass<"convert-pe-to-linalg"> {
  let summary = "Lower every pe op to linalg, tensor, arith and math";
  let description = [{
    Rewrites each `pe` op into its plain, unfused meaning on tensors:
    `linalg.generic` ops whose bodies evaluate the formulas stated in the op
    descriptions, with `arith`/`math`/`tensor` ops around them.
    `pe.attention` becomes the textbook composition (scores, bias and
    masks, a max-subtracted softmax, the weighted sum of values); frequency
    ops with constant inputs become constants (through their folders) and
    the run-time ones (dynamic NTK, LongRoPE with a run-time length) become
    scalar arithmetic. This is a partial conversion with the `pe` dialect
    illegal: an op that cannot be lowered (for example attention with
    dynamic head counts) makes the pass fail with a diagnostic.

    It defines the reference semantics that `pe-run --check=reference`
    compares optimised pipelines against.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PE_CONVERSION_PASSES_TD
