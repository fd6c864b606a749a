// pe-fuzz finding in upstream MLIR 22 (not pe): SEGV in
// mlir::NamedAttrList::set from linalg::TransposeOp::parse when the
// `permutation` list does not parse (here a stray token after the first
// integer); linalg.reduce and linalg.broadcast share the parser of
// `dimensions`. pe-fuzz skips such inputs (hasMalformedLinalgDimensionList).
// Reproduce: pe-opt FILE
func.func @t(%k: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%k : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [0or]
  return %t : tensor<3x2xf32>
}
