// A Llama-style attention block written in TOSA (the form TOSA frontends
// such as TFLite / torch-mlir's TorchToTosa produce): rotate_half RoPE with
// cos/sin of positions times a constant inv_freq (base 10000, D = 16) via
// tosa.slice / negate / concat, repeat_kv as reshape + tile + reshape (4
// query heads over 2 KV heads), scores by tosa.matmul on [H, T, D] with the
// transposed keys, softmax as reduce_max / sub / exp / reduce_sum /
// reciprocal / mul, and P V. Lowered inside the tests by upstream
// tosa-to-linalg-pipeline, tosa-to-tensor and tosa-to-arith.
func.func @tosa_llama(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %pos: tensor<8xi32>) -> tensor<1x4x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv = "tosa.const"() <{values = dense<[[1.0, 0.31622776, 0.1, 0.031622775, 0.01, 0.0031622776, 0.001, 0.00031622776]]> : tensor<1x8xf32>}> : () -> tensor<1x8xf32>
  %posf = tosa.cast %pos : (tensor<8xi32>) -> tensor<8xf32>
  %s81 = tosa.const_shape {values = dense<[8, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %pcol = tosa.reshape %posf, %s81 : (tensor<8xf32>, !tosa.shape<2>) -> tensor<8x1xf32>
  %ang = tosa.mul %pcol, %inv, %shift : (tensor<8x1xf32>, tensor<1x8xf32>, tensor<1xi8>) -> tensor<8x8xf32>
  %emb = tosa.concat %ang, %ang {axis = 1 : i32} : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  %cos2 = tosa.cos %emb : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %sin2 = tosa.sin %emb : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s4 = tosa.const_shape {values = dense<[1, 1, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %cos = tosa.reshape %cos2, %s4 : (tensor<8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %sin = tosa.reshape %sin2, %s4 : (tensor<8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %st0 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %st8 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %szq = tosa.const_shape {values = dense<[1, 4, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %szk = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  // rope(q)
  %q1 = tosa.slice %q, %st0, %szq : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %q2 = tosa.slice %q, %st8, %szq : (tensor<1x4x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x4x8x8xf32>
  %nq2 = tosa.negate %q2, %zp, %zp : (tensor<1x4x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8x8xf32>
  %rq = tosa.concat %nq2, %q1 {axis = 3 : i32} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
  %qc = tosa.mul %q, %cos, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %qs = tosa.mul %rq, %sin, %shift : (tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x4x8x16xf32>
  %qr = tosa.add %qc, %qs : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  // rope(k)
  %k1 = tosa.slice %k, %st0, %szk : (tensor<1x2x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf32>
  %k2 = tosa.slice %k, %st8, %szk : (tensor<1x2x8x16xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf32>
  %nk2 = tosa.negate %k2, %zp, %zp : (tensor<1x2x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8x8xf32>
  %rk = tosa.concat %nk2, %k1 {axis = 3 : i32} : (tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<1x2x8x16xf32>
  %kc = tosa.mul %k, %cos, %shift : (tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x2x8x16xf32>
  %ks = tosa.mul %rk, %sin, %shift : (tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x2x8x16xf32>
  %kr = tosa.add %kc, %ks : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  // repeat_kv: [1, 2, 8, 16] -> [1, 2, 1, 8, 16] -> tile -> [1, 4, 8, 16]
  %s5 = tosa.const_shape {values = dense<[1, 2, 1, 8, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %mult = tosa.const_shape {values = dense<[1, 1, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %s4h = tosa.const_shape {values = dense<[1, 4, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %k5 = tosa.reshape %kr, %s5 : (tensor<1x2x8x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x8x16xf32>
  %kt5 = tosa.tile %k5, %mult : (tensor<1x2x1x8x16xf32>, !tosa.shape<5>) -> tensor<1x2x2x8x16xf32>
  %kx = tosa.reshape %kt5, %s4h : (tensor<1x2x2x8x16xf32>, !tosa.shape<4>) -> tensor<1x4x8x16xf32>
  %v5 = tosa.reshape %v, %s5 : (tensor<1x2x8x16xf32>, !tosa.shape<5>) -> tensor<1x2x1x8x16xf32>
  %vt5 = tosa.tile %v5, %mult : (tensor<1x2x1x8x16xf32>, !tosa.shape<5>) -> tensor<1x2x2x8x16xf32>
  %vx = tosa.reshape %vt5, %s4h : (tensor<1x2x2x8x16xf32>, !tosa.shape<4>) -> tensor<1x4x8x16xf32>
  // scores = q k^T / 4
  %s3 = tosa.const_shape {values = dense<[4, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %qr, %s3 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %ktr = tosa.transpose %kx {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x4x8x16xf32>) -> tensor<1x4x16x8xf32>
  %s3k = tosa.const_shape {values = dense<[4, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %ktr, %s3k : (tensor<1x4x16x8xf32>, !tosa.shape<3>) -> tensor<4x16x8xf32>
  %sc = tosa.matmul %q3, %k3, %zp, %zp : (tensor<4x8x16xf32>, tensor<4x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8xf32>
  %scale = "tosa.const"() <{values = dense<0.25> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %sc, %scale, %shift : (tensor<4x8x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  // softmax over keys
  %mx = tosa.reduce_max %ss {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %sub = tosa.sub %ss, %mx : (tensor<4x8x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8x8xf32>
  %ex = tosa.exp %sub : (tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %sum = tosa.reduce_sum %ex {axis = 2 : i32} : (tensor<4x8x8xf32>) -> tensor<4x8x1xf32>
  %rcp = tosa.reciprocal %sum : (tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %p = tosa.mul %ex, %rcp, %shift : (tensor<4x8x8xf32>, tensor<4x8x1xf32>, tensor<1xi8>) -> tensor<4x8x8xf32>
  %v3 = tosa.reshape %vx, %s3 : (tensor<1x4x8x16xf32>, !tosa.shape<3>) -> tensor<4x8x16xf32>
  %o = tosa.matmul %p, %v3, %zp, %zp : (tensor<4x8x8xf32>, tensor<4x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x16xf32>
  %o4 = tosa.reshape %o, %s4h : (tensor<4x8x16xf32>, !tosa.shape<4>) -> tensor<1x4x8x16xf32>
  return %o4 : tensor<1x4x8x16xf32>
}
