// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s

// P V of the decode kernel keeps up to 32 accumulators: a GQA group of 4
// with D = 128 (8 vectors per head) accumulates in one pass over the keys,
// each V row read once in order, with no 64-key blocks and no accumulator
// buffer. The softmax has no pass of its own: the score loop keeps each
// head's running maximum (16 lanes, in an [G, 16] buffer), and the P V loop
// takes exp(s - m) for the next 16 keys at every 16th key counted from the
// first visible key, in a branch, summing them per head in a second [G, 16]
// buffer.
// CHECK-LABEL: func @decode_group4_d128
// CHECK: %[[M:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK: %[[L:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK: scf.for %{{.*}} step %c16
// CHECK: %[[MX:.*]] = vector.load %[[M]]
// CHECK: arith.maxnumf %[[MX]], %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <maxnumf>
// CHECK-NOT: math.exp
// CHECK-NOT: step %c64
// CHECK-NOT: memref.alloc
// CHECK: %{{.*}}:32 = scf.for %[[J:.*]] = %[[LO:.*]] to %{{.*}} step %c1{{.*}} iter_args
// CHECK: %[[D:.*]] = arith.subi %[[J]], %[[LO]] : index
// CHECK: %[[R:.*]] = arith.remui %[[D]], %c16{{.*}} : index
// CHECK: %[[AT:.*]] = arith.cmpi eq, %[[R]], %{{.*}} : index
// CHECK: scf.if %[[AT]] {
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: vector.load %[[L]]
// CHECK: }
// CHECK-COUNT-32: vector.fma
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: vector.reduction <add>
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
// The block's softmax weights come first, 16 keys at a time.
// CHECK-LABEL: func @decode_group8_d128
// CHECK: %[[O:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x128xf32>
// CHECK: vector.reduction <maxnumf>
// CHECK-NOT: math.exp
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %[[J0]] to %{{.*}} step %c16
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %[[J0]] to %{{.*}} step %c1
// CHECK-NOT: math.exp
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK: %{{.*}}:32 = scf.for %{{.*}} = %[[J0]] to %{{.*}} step %c1
// CHECK-NOT: math.exp
// CHECK: vector.store %{{.*}}, %[[O]]
// CHECK: return
func.func @decode_group8_d128(%q: tensor<1x16x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x16x1x128xf32> {
  %i = tensor.empty() : tensor<1x16x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x16x1x128xf32>) : tensor<1x16x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x16x1x128xf32>
  return %o : tensor<1x16x1x128xf32>
}

// -----

// One head per KV head (MHA) with D = 128: 8 accumulators, one pass, the
// softmax weights taken in it.
// CHECK-LABEL: func @decode_mha_d128
// CHECK: vector.reduction <maxnumf>
// CHECK-NOT: math.exp
// CHECK-NOT: step %c64
// CHECK: %{{.*}}:8 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1{{.*}} iter_args
// CHECK: scf.if
// CHECK: math.exp
// CHECK: return
func.func @decode_mha_d128(%q: tensor<1x2x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x2x1x128xf32> {
  %i = tensor.empty() : tensor<1x2x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x2x1x128xf32>) : tensor<1x2x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x2x1x128xf32>
  return %o : tensor<1x2x1x128xf32>
}
