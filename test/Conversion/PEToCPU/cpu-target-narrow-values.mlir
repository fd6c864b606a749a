// RUN: pe-opt %s --split-input-file --convert-pe-to-vector --canonicalize | FileCheck %s

// A value row as wide as one vector of the target: D = 8 on x86-64-v3 (8 f32
// lanes), D = 4 and D = 8 on NEON (4 lanes). The P V step accumulates in
// chunks of whole value rows: no load of V and no store of the output
// accumulator reaches past column D (a chunk of 16 columns once read the next
// row of V, or past its end, and overwrote the next row's accumulator).

// CHECK-LABEL: func @attention_avx2_d8
// CHECK: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NOT: %c8] : memref<{{[0-9?x]*}}x8xf32>, vector<8xf32>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @attention_avx2_d8(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x8xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x8xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x?x8xf32>) : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32> -> tensor<1x2x?x8xf32>
    return %o : tensor<1x2x?x8xf32>
  }
}

// -----

// CHECK-LABEL: func @attention_neon_d4
// CHECK: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: %c4] : memref<{{[0-9?x]*}}x4xf32>, vector<4xf32>
// CHECK-NOT: %c8] : memref<{{[0-9?x]*}}x4xf32>, vector<4xf32>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @attention_neon_d4(%q: tensor<1x2x?x4xf32>, %k: tensor<1x2x?x4xf32>, %v: tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32> {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x4xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x4xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x?x4xf32>) {causal} : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32> -> tensor<1x2x?x4xf32>
    return %o : tensor<1x2x?x4xf32>
  }
}

// -----

// CHECK-LABEL: func @attention_neon_d8
// CHECK: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT: %c8] : memref<{{[0-9?x]*}}x8xf32>, vector<4xf32>
// CHECK-NOT: %c12] : memref<{{[0-9?x]*}}x8xf32>, vector<4xf32>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @attention_neon_d8(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
    %c2 = arith.constant 2 : index
    %t = tensor.dim %q, %c2 : tensor<1x2x?x8xf32>
    %init = tensor.empty(%t) : tensor<1x2x?x8xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x?x8xf32>) : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32> -> tensor<1x2x?x8xf32>
    return %o : tensor<1x2x?x8xf32>
  }
}
