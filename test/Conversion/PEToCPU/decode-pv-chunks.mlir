// RUN: pe-opt %s --convert-pe-to-vector --split-input-file | FileCheck %s

// P V of the decode kernel keeps up to 32 accumulators: a GQA group of 4
// with D = 128 (8 vectors per head) accumulates in one pass over the keys,
// each V row read once in order, with no 64-key blocks and no accumulator
// buffer.
// CHECK-LABEL: func @decode_group4_d128
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK-NOT: step %c64
// CHECK-NOT: memref.alloc
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args
// CHECK-COUNT-32: vector.fma
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: return
func.func @decode_group4_d128(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x8x1x128xf32> {
  %i = tensor.empty() : tensor<1x8x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x8x1x128xf32>) : tensor<1x8x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// -----

// A group of 8 with D = 128 would need 64: two chunks of 64 value columns
// (32 accumulators each) pass over every 64-key block while its rows are in
// the cache, the accumulators kept in an [8, 128] buffer between blocks.
// CHECK-LABEL: func @decode_group8_d128
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: %[[O:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x128xf32>
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %[[J0]] to %{{.*}} step %c1
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %[[J0]] to %{{.*}} step %c1
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK: return
func.func @decode_group8_d128(%q: tensor<1x16x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x16x1x128xf32> {
  %i = tensor.empty() : tensor<1x16x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x16x1x128xf32>) : tensor<1x16x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x16x1x128xf32>
  return %o : tensor<1x16x1x128xf32>
}

// -----

// One head per KV head (MHA) with D = 128: 8 accumulators, one pass.
// CHECK-LABEL: func @decode_mha_d128
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK-NOT: step %c64
// CHECK: %{{.*}}:8 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args
// CHECK: return
func.func @decode_mha_d128(%q: tensor<1x2x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x2x1x128xf32> {
  %i = tensor.empty() : tensor<1x2x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x2x1x128xf32>) : tensor<1x2x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x2x1x128xf32>
  return %o : tensor<1x2x1x128xf32>
}
