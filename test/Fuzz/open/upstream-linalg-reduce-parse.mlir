// pe-fuzz finding in upstream MLIR 22 (not pe): SEGV in mlir::Attribute::getContext
// <- NamedAttrList::set <- linalg::ReduceOp::parse (malformed 'dimensions =]').
// Reproduce: pe-opt FILE
func.func @add(%a: tensor<0x4xf32>, %b: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  %r = linalg.add ins(%a, %b : tensor<0x4xf32>, tensor<0x4xf32>)
                  outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

func.func @sum(%a: tensor<0x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%a : tensor<0x4xf32>) outs(%init : tensor<4xf32>) dimensions =] 
  0[  (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

func.func @neg(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf64>
  %m = tensor.dim %a, %c1 : tensor<?x?xf64>
  %e = tensor.empty(%n, %m) : tensor<?x?xf64>
  %r = linalg.negf ins(%a : tensor<?x?xf64>) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

func.func @concat(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
