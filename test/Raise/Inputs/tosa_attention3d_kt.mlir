// Rank-3 attentions whose key is stored transposed ([heads, D, T], the
// past_key layout of old Hugging Face and ONNX exports), as TOSA writes them:
// tosa.matmul of the queries with the key as it is, the scale, the softmax,
// the product with V (@tosa_attention3d_kt). @tosa_shared_v (batch 2)
// broadcasts one [heads, T, D] value tensor over the batch with a tosa.add of
// zeros; the broadcast tensor is the value. @tosa_cast_mask adds a causal
// mask computed in the program, -1e9 * cast<f32>(j > i) (an i1 -> f32
// tosa.cast, which upstream tosa-to-linalg-pipeline's tosa-validate
// rejects: lowered by pe-tosa-to-linalg-pipeline). @tosa_cast_mask_rows masks
// the keys before the query instead (i > j), which is not causal: a near
// miss. @tosa_constant_terms adds scores terms that do not change the
// softmax (below).
func.func @tosa_attention3d_kt(%q: tensor<4x8x16xf32>, %kt: tensor<4x16x6xf32>, %v: tensor<4x6x16xf32>) -> tensor<4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
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

func.func @tosa_shared_v(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x6x16xf32>, %v: tensor<4x6x16xf32>) -> tensor<2x4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3 = tosa.const_shape {values = dense<[8, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.const_shape {values = dense<[8, 6, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3 : (tensor<2x4x8x16xf32>, !tosa.shape<3>) -> tensor<8x8x16xf32>
  %kk = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<2x4x6x16xf32>) -> tensor<2x4x16x6xf32>
  %kt3s = tosa.const_shape {values = dense<[8, 16, 6]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %kt = tosa.reshape %kk, %kt3s : (tensor<2x4x16x6xf32>, !tosa.shape<3>) -> tensor<8x16x6xf32>
  %s = tosa.matmul %q3, %kt, %zp, %zp : (tensor<8x8x16xf32>, tensor<8x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x6xf32>
  %mx = tosa.reduce_max %s {axis = 2 : i32} : (tensor<8x8x6xf32>) -> tensor<8x8x1xf32>
  %sub = tosa.sub %s, %mx : (tensor<8x8x6xf32>, tensor<8x8x1xf32>) -> tensor<8x8x6xf32>
  %ex = tosa.exp %sub : (tensor<8x8x6xf32>) -> tensor<8x8x6xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<8x8x6xf32>) -> tensor<8x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<8x8x1xf32>) -> tensor<8x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<8x8x6xf32>, tensor<8x8x1xf32>, tensor<1xi8>) -> tensor<8x8x6xf32>
  %v4s = tosa.const_shape {values = dense<[1, 4, 6, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v4 = tosa.reshape %v, %v4s : (tensor<4x6x16xf32>, !tosa.shape<4>) -> tensor<1x4x6x16xf32>
  %zeros = "tosa.const"() <{values = dense<0.0> : tensor<2x4x6x16xf32>}> : () -> tensor<2x4x6x16xf32>
  %vb = tosa.add %v4, %zeros : (tensor<1x4x6x16xf32>, tensor<2x4x6x16xf32>) -> tensor<2x4x6x16xf32>
  %vb3 = tosa.reshape %vb, %k3 : (tensor<2x4x6x16xf32>, !tosa.shape<3>) -> tensor<8x6x16xf32>
  %o = tosa.matmul %p, %vb3, %zp, %zp : (tensor<8x8x6xf32>, tensor<8x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x8x16xf32>
  %o4s = tosa.const_shape {values = dense<[2, 4, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %o, %o4s : (tensor<8x8x16xf32>, !tosa.shape<4>) -> tensor<2x4x8x16xf32>
  return %o4 : tensor<2x4x8x16xf32>
}

func.func @tosa_cast_mask(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %cols = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7]]]> : tensor<1x1x8xi32>}> : () -> tensor<1x1x8xi32>
  %rows = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7]]]> : tensor<1x8x1xi32>}> : () -> tensor<1x8x1xi32>
  %gt = tosa.greater %cols, %rows : (tensor<1x1x8xi32>, tensor<1x8x1xi32>) -> tensor<1x8x8xi1>
  %gtf = tosa.cast %gt : (tensor<1x8x8xi1>) -> tensor<1x8x8xf32>
  %big = "tosa.const"() <{values = dense<-1.0e9> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %mask = tosa.mul %gtf, %big, %shift : (tensor<1x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x8xf32>
  %sm = tosa.add %s, %mask : (tensor<4x8x8xf32>, tensor<1x8x8xf32>) -> tensor<4x8x8xf32>
  %mx = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %sub = tosa.sub %sm, %mx : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %ex = tosa.exp %sub : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

func.func @tosa_cast_mask_rows(%q: tensor<4x8x16xf32>, %k: tensor<4x8x16xf32>, %v: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x8x16xf32>) -> tensor<4x16x8xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %cols = "tosa.const"() <{values = dense<[[[0, 1, 2, 3, 4, 5, 6, 7]]]> : tensor<1x1x8xi32>}> : () -> tensor<1x1x8xi32>
  %rows = "tosa.const"() <{values = dense<[[[0], [1], [2], [3], [4], [5], [6], [7]]]> : tensor<1x8x1xi32>}> : () -> tensor<1x8x1xi32>
  %gt = tosa.greater %rows, %cols : (tensor<1x8x1xi32>, tensor<1x1x8xi32>) -> tensor<1x8x8xi1>
  %gtf = tosa.cast %gt : (tensor<1x8x8xi1>) -> tensor<1x8x8xf32>
  %big = "tosa.const"() <{values = dense<-1.0e9> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %mask = tosa.mul %gtf, %big, %shift : (tensor<1x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x8xf32>
  %sm = tosa.add %s, %mask : (tensor<4x8x8xf32>, tensor<1x8x8xf32>) -> tensor<4x8x8xf32>
  %mx = tosa.reduce_max %sm {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %sub = tosa.sub %sm, %mx : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %ex = tosa.exp %sub : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}

// Terms that do not change the softmax, as Buddy's Llama emits its mask's
// all-valid padding part after TOSA's constant folding: a constant 2.0 added
// to every score and a linalg.generic select on a dense<false> mask.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @tosa_constant_terms(%q: tensor<4x8x16xf32>, %k: tensor<4x6x16xf32>, %v: tensor<4x6x16xf32>) -> tensor<4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<4x6x16xf32>) -> tensor<4x16x6xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x6xf32>
  %scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<4x8x6xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x6xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x8x6xf32>}> : () -> tensor<1x8x6xf32>
  %s2 = tosa.add %ss, %two : (tensor<4x8x6xf32>, tensor<1x8x6xf32>) -> tensor<4x8x6xf32>
  %none = arith.constant dense<false> : tensor<4x8x6xi1>
  %big = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4x8x6xf32>
  %s3 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%none, %s2 : tensor<4x8x6xi1>, tensor<4x8x6xf32>) outs(%e : tensor<4x8x6xf32>) {
  ^bb0(%m: i1, %x: f32, %out: f32):
    %r = arith.select %m, %big, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8x6xf32>
  %mx = tosa.reduce_max %s3 {axis = 2 : i32} : (tensor<4x8x6xf32>) -> tensor<4x8x1xf32>
  %sub = tosa.sub %s3, %mx : (tensor<4x8x6xf32>, tensor<4x8x1xf32>) -> tensor<4x8x6xf32>
  %ex = tosa.exp %sub : (tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<4x8x6xf32>) -> tensor<4x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<4x8x6xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x6xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<4x8x6xf32>, tensor<4x6x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}
