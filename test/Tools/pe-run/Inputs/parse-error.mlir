func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32
  return %r : tensor<4xf32>
}
