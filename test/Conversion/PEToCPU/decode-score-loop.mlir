// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector | FileCheck %s

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
func.func @decode_group8_d32(%q: tensor<1x16x1x32xf32>, %k: tensor<1x2x?x32xf32>) -> tensor<1x16x1x32xf32> {
  %i = tensor.empty() : tensor<1x16x1x32xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x16x1x32xf32>) : tensor<1x16x1x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
