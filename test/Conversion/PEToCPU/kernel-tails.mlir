// Head dimensions that are not a whole number of vectors get the generated
// kernels: the last, partial vector of a row of the operands or the result is
// a masked load (zeros past the row) or a masked store, with a constant mask
// of the row's remaining lanes; the kernels' own scratch rows are padded to
// whole vectors. No remark: --verify-diagnostics fails on any.
// Whole vectors (D = 128 here) get no mask at all.
// RUN: pe-opt %s --split-input-file --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics | FileCheck %s

// AVX2 (8 lanes), D = 10: one whole vector and 2 lanes. Prefill (causal,
// GQA 4/2), decode (GQA 4/1) and a half-layout RoPE of 5 pairs (one partial
// vector per half).
// CHECK-LABEL: func @d10_avx2
// CHECK: vector.constant_mask [2] : vector<8xi1>
// CHECK: vector.maskedload %{{.*}} : memref<1x2x?x10xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK: vector.maskedstore %{{.*}} : memref<1x4x?x10xf32>, vector<8xi1>, vector<8xf32>
// CHECK: vector.maskedstore %{{.*}} : memref<1x4x1x10xf32>, vector<8xi1>, vector<8xf32>
// CHECK: vector.constant_mask [5] : vector<8xi1>
// CHECK: vector.maskedstore %{{.*}} : memref<1x?x10xf32>, vector<8xi1>, vector<8xf32>
// CHECK-NOT: pe.attention
// CHECK-NOT: pe.rope
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @d10_avx2(%q: tensor<1x4x?x10xf32>, %k: tensor<1x2x?x10xf32>, %qd: tensor<1x4x1x10xf32>,
                      %kd: tensor<1x1x?x10xf32>, %x: tensor<?x10xf32>, %f: tensor<5xf32>)
      -> (tensor<1x4x?x10xf32>, tensor<1x4x1x10xf32>, tensor<?x10xf32>) {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x4x?x10xf32>
    %init = tensor.empty(%t) : tensor<1x4x?x10xf32>
    %o = pe.attention %q, %k, %k outs(%init : tensor<1x4x?x10xf32>) {causal} : tensor<1x4x?x10xf32>, tensor<1x2x?x10xf32>, tensor<1x2x?x10xf32> -> tensor<1x4x?x10xf32>
    %initd = tensor.empty() : tensor<1x4x1x10xf32>
    %d = pe.attention %qd, %kd, %kd outs(%initd : tensor<1x4x1x10xf32>) {causal} : tensor<1x4x1x10xf32>, tensor<1x1x?x10xf32>, tensor<1x1x?x10xf32> -> tensor<1x4x1x10xf32>
    %r = pe.rope half %x inv_freq(%f : tensor<5xf32>) : tensor<?x10xf32>
    return %o, %d, %r : tensor<1x4x?x10xf32>, tensor<1x4x1x10xf32>, tensor<?x10xf32>
  }
}

// -----

// AVX-512 (16 lanes), D = 72 with RoPE in the attention (half layout, 36
// pairs: two whole vectors and 4 lanes) and Dv = 80 (whole vectors).
// CHECK-LABEL: func @d72_avx512
// CHECK: vector.constant_mask [4] : vector<16xi1>
// CHECK: vector.maskedload %{{.*}} : memref<?x36xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.maskedload %{{.*}} : memref<1x2x?x72xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK-NOT: pe.attention
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @d72_avx512(%q: tensor<1x2x?x72xf32>, %v: tensor<1x2x?x80xf32>, %f: tensor<36xf32>) -> tensor<1x2x?x80xf32> {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x72xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x80xf32>
    %o = pe.attention %q, %q, %v rope <half> inv_freq(%f : tensor<36xf32>) outs(%init : tensor<1x2x?x80xf32>) {causal} : tensor<1x2x?x72xf32>, tensor<1x2x?x72xf32>, tensor<1x2x?x80xf32> -> tensor<1x2x?x80xf32>
    return %o : tensor<1x2x?x80xf32>
  }
}

// -----

// Whole vectors: no masks in the kernels (the same code as before masked
// tails existed).
// CHECK-LABEL: func @d128_avx512
// CHECK-NOT: vector.constant_mask
// CHECK-NOT: vector.masked
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @d128_avx512(%q: tensor<1x2x?x128xf32>, %qd: tensor<1x2x1x128xf32>, %x: tensor<?x128xf32>, %f: tensor<64xf32>)
      -> (tensor<1x2x?x128xf32>, tensor<1x2x1x128xf32>, tensor<?x128xf32>) {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x128xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x128xf32>
    %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<64xf32>) outs(%init : tensor<1x2x?x128xf32>) {causal} : tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x2x?x128xf32>
    %initd = tensor.empty() : tensor<1x2x1x128xf32>
    %d = pe.attention %qd, %q, %q outs(%initd : tensor<1x2x1x128xf32>) {causal} : tensor<1x2x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x2x1x128xf32>
    %r = pe.rope interleaved %x inv_freq(%f : tensor<64xf32>) : tensor<?x128xf32>
    return %o, %d, %r : tensor<1x2x?x128xf32>, tensor<1x2x1x128xf32>, tensor<?x128xf32>
  }
}

// -----

// NEON (4 lanes), D = 10 with interleaved RoPE: 2 whole vectors and 2 lanes.
// CHECK-LABEL: func @d10_neon
// CHECK: vector.constant_mask [2] : vector<4xi1>
// CHECK: vector.maskedstore %{{.*}} : memref<1x2x?x10xf32>, vector<4xi1>, vector<4xf32>
// CHECK-NOT: pe.attention
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @d10_neon(%q: tensor<1x2x?x10xf32>, %f: tensor<5xf32>) -> tensor<1x2x?x10xf32> {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x10xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x10xf32>
    %o = pe.attention %q, %q, %q rope <interleaved> inv_freq(%f : tensor<5xf32>) outs(%init : tensor<1x2x?x10xf32>) : tensor<1x2x?x10xf32>, tensor<1x2x?x10xf32>, tensor<1x2x?x10xf32> -> tensor<1x2x?x10xf32>
    return %o : tensor<1x2x?x10xf32>
  }
}

// -----

// bf16 dot products pair channels and keys in whole vectors: a bf16
// attention with D = 24 on AVX512-BF16 gets the f32 kernel on widened
// operands (with masked tails) and says why.
// CHECK-LABEL: func @bf16_d24
// CHECK-NOT: x86vector
// CHECK: vector.maskedload %{{.*}} : memref<1x2x64x24xbf16>, vector<16xi1>, vector<16xbf16> into vector<16xbf16>
// CHECK-NOT: pe.attention
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4", features = #llvm.target_features<["+avx512bf16"]>>} {
  func.func @bf16_d24(%q: tensor<1x2x64x24xbf16>) -> tensor<1x2x64x24xf32> {
    %init = tensor.empty() : tensor<1x2x64x24xf32>
    // expected-remark@+1 {{[Missed] bf16-dot | Category:convert-pe-to-vector | Reason="bf16 attention without bf16 dot products (the f32 kernel on widened operands is used): head dimensions must be multiples of 16 (the bf16 channel and key pairs fill whole vectors)"}}
    %o = pe.attention %q, %q, %q outs(%init : tensor<1x2x64x24xf32>) : tensor<1x2x64x24xbf16>, tensor<1x2x64x24xbf16>, tensor<1x2x64x24xbf16> -> tensor<1x2x64x24xf32>
    return %o : tensor<1x2x64x24xf32>
  }
}
