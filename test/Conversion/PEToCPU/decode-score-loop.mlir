// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector | FileCheck %s
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector | FileCheck %s --check-prefix=AVX2

// The decode kernel's score loop takes the keys four at a time, channel
// vector by channel vector: the four keys' vectors of one 16-channel block
// are loaded once and each feeds the products of up to four query heads (16
// accumulators), each query vector loaded from the rotated-query buffer
// once per block of four keys. A group of 8 heads goes in two chunks of 4;
// the second chunk loads the four keys' vectors again. The 16 products of a
// chunk are stored for the shuffle tree.
// CHECK-LABEL: func @decode_group8_d32
// CHECK: %[[KM:.*]] = bufferization.to_buffer %arg1 {{.*}} to memref<1x2x?x32xf32>
// CHECK: %[[QS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xf32>
// CHECK: %[[DOTS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<128x16xf32>
// CHECK: scf.for %{{.*}} step %c16
// Channels [0, 16) of keys j0 .. j0 + 3, heads 0 .. 3.
// CHECK: %[[K0:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// CHECK: %[[K1:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// CHECK: %[[K2:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// CHECK: %[[K3:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// CHECK-NOT: arith.mulf
// CHECK: %[[Q0:.*]] = vector.load %[[QS]]
// CHECK-NEXT: arith.mulf %[[Q0]], %[[K0]]
// CHECK-NEXT: arith.mulf %[[Q0]], %[[K1]]
// CHECK-NEXT: arith.mulf %[[Q0]], %[[K2]]
// CHECK-NEXT: arith.mulf %[[Q0]], %[[K3]]
// CHECK: %[[Q1:.*]] = vector.load %[[QS]]
// CHECK-NEXT: arith.mulf %[[Q1]], %[[K0]]
// CHECK-COUNT-11: arith.mulf
// Channels [16, 32): multiply-adds into the same 16 accumulators.
// CHECK: %[[L0:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c16{{(_[0-9]+)?}}]
// CHECK-COUNT-3: vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c16{{(_[0-9]+)?}}]
// CHECK: %[[Q0B:.*]] = vector.load %[[QS]]
// CHECK-NEXT: vector.fma %[[Q0B]], %[[L0]]
// CHECK-COUNT-15: vector.fma
// CHECK-NOT: vector.fma
// CHECK-COUNT-16: vector.store %{{.*}}, %[[DOTS]]
// Heads 4 .. 7: the keys' vectors loaded again.
// CHECK-NOT: vector.load %[[QS]]
// CHECK: vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// CHECK-COUNT-16: arith.mulf
// CHECK-COUNT-16: vector.fma
// CHECK-COUNT-16: vector.store %{{.*}}, %[[DOTS]]
// CHECK: return

// AVX2 (16 vector registers, an accumulator budget of 8): two keys per
// step, so that the products of 2 keys x 4 heads fit the budget; the 8-key
// block goes in four steps of 2 keys, each with its own 8 accumulators.
// AVX2-LABEL: func @decode_group8_d32
// AVX2: %[[KM:.*]] = bufferization.to_buffer %arg1 {{.*}} to memref<1x2x?x32xf32>
// AVX2: %[[QS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xf32>
// AVX2: %[[DOTS:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x8xf32>
// AVX2: scf.for %{{.*}} step %c8
// AVX2: %[[K0:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}] : memref<1x2x?x32xf32>, vector<8xf32>
// AVX2: %[[K1:.*]] = vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}] : memref<1x2x?x32xf32>, vector<8xf32>
// AVX2-NOT: vector.load %[[KM]]
// AVX2: %[[Q0:.*]] = vector.load %[[QS]]
// AVX2-NEXT: arith.mulf %[[Q0]], %[[K0]]
// AVX2-NEXT: arith.mulf %[[Q0]], %[[K1]]
// AVX2-NOT: vector.load %[[KM]]
// AVX2-COUNT-6: arith.mulf
// AVX2-NOT: arith.mulf
// AVX2: vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c8{{(_[0-9]+)?}}]
// AVX2-COUNT-24: vector.fma
// AVX2-NOT: vector.fma
// AVX2-COUNT-8: vector.store %{{.*}}, %[[DOTS]]
// AVX2-NOT: vector.load %[[QS]]
// AVX2: vector.load %[[KM]][%{{.*}}, %{{.*}}, %{{.*}}, %c0{{(_[0-9]+)?}}]
// AVX2-COUNT-8: arith.mulf
// AVX2: return
func.func @decode_group8_d32(%q: tensor<1x16x1x32xf32>, %k: tensor<1x2x?x32xf32>) -> tensor<1x16x1x32xf32> {
  %i = tensor.empty() : tensor<1x16x1x32xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x16x1x32xf32>) : tensor<1x16x1x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
