// Attention on rank-3 [heads, T, D] tensors, as a TOSA program without a
// batch dimension writes it: tosa.transpose of K, tosa.matmul, the scale,
// the softmax as reduce_max / sub / exp / reduce_sum / reciprocal / mul, and
// the product with V. Lowered inside the tests by upstream
// tosa-to-linalg-pipeline.
func.func @tosa_attention3d(%q: tensor<4x8x16xf32>, %k: tensor<4x6x16xf32>, %v: tensor<4x6x16xf32>) -> tensor<4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x6x16xf32>) -> tensor<4x16x6xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x6xf32>
  %scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<4x8x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x6xf32>
  %mx = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<4x8x6xf32>) -> tensor<4x8x1xf32>
  %sub = tosa.sub %ss, %mx : (tensor<4x8x6xf32>, tensor<4x8x1xf32>) -> tensor<4x8x6xf32>
  %ex = tosa.exp %sub : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<4x8x6xf32>) -> tensor<4x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<4x8x6xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x6xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x8x6xf32>, tensor<4x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}
