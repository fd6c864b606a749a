// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver3" --convert-pe-to-vector --split-input-file | FileCheck %s --check-prefix=AVX2

// The sinusoidal kernel's streaming version (results of 32 MiB or more,
// decided at run time for a dynamic size) prefetches, in each 8-row pass of
// the angle-addition recurrence, the input lines of the next pass at the
// same channels into the L2: rows t + 8 .. t + 15, clamped to the block's
// last row. The pass goes over the channels in groups of 128 bytes of each
// row (two 16-lane f32 vectors with AVX-512, four 8-lane ones with AVX2)
// and prefetches each 64-byte line of a group. The version with plain
// stores, the single-row tail and the block's directly evaluated first row
// prefetch nothing.
// CHECK-LABEL: func @sinusoidal_dynamic
// CHECK: %[[X3:.*]] = memref.expand_shape
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: nontemporal = true
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1{{.*}} : index
// CHECK: %[[N0:.*]] = arith.addi %[[T:.*]], %c8{{.*}} : index
// CHECK: %[[R0:.*]] = arith.minsi %[[N0]], %[[LAST]] : index
// CHECK: %[[N7:.*]] = arith.addi %[[T]], %c15{{.*}} : index
// CHECK: %[[R7:.*]] = arith.minsi %[[N7]], %[[LAST]] : index
// CHECK: scf.for %[[C:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
// CHECK: %[[C1:.*]] = arith.addi %[[C]], %c16{{.*}} : index
// CHECK: memref.prefetch %[[X3]][%{{.*}}, %[[R0]], %[[C]]], read, locality<2>, data : memref<1x?x64xf32>
// CHECK: memref.prefetch %[[X3]][%{{.*}}, %[[R0]], %[[C1]]], read, locality<2>, data : memref<1x?x64xf32>
// CHECK-COUNT-13: memref.prefetch %[[X3]]
// CHECK: memref.prefetch %[[X3]][%{{.*}}, %[[R7]], %[[C1]]], read, locality<2>, data
// CHECK-NOT: memref.prefetch
// AVX2-LABEL: func @sinusoidal_dynamic
// AVX2: %[[X3:.*]] = memref.expand_shape
// AVX2: nontemporal = true
// AVX2: scf.for %[[C:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
// AVX2: arith.addi %[[C]], %c8{{.*}} : index
// AVX2: %[[C2:.*]] = arith.addi %[[C]], %c16{{.*}} : index
// AVX2: arith.addi %[[C]], %c24{{.*}} : index
// AVX2: memref.prefetch %[[X3]][%{{.*}}, %[[R0:.*]], %[[C]]], read
// AVX2-NEXT: memref.prefetch %[[X3]][%{{.*}}, %[[R0]], %[[C2]]], read
// AVX2-COUNT-14: memref.prefetch %[[X3]]
// AVX2-NOT: memref.prefetch
// AVX2: nontemporal = true
// AVX2: } else {
// AVX2-NOT: memref.prefetch
// AVX2: return
// CHECK: nontemporal = true
// CHECK: } else {
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @sinusoidal_dynamic(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// concat: each pair vector's channels c and h + c are two lines, both
// prefetched for each of the next pass's rows.
// CHECK-LABEL: func @sinusoidal_concat_large
// CHECK: %[[X3:.*]] = memref.expand_shape
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK: scf.for %[[C:.*]] = %c0{{.*}} to %c2048{{.*}} step %c32
// CHECK: memref.prefetch %[[X3]][%{{.*}}, %[[R:.*]], %[[C]]], read, locality<2>, data : memref<1x8192x4096xf32>
// CHECK: %[[H:.*]] = arith.addi %[[C]], %c2048{{.*}} : index
// CHECK: memref.prefetch %[[X3]][%{{.*}}, %[[R]], %[[H]]], read, locality<2>, data : memref<1x8192x4096xf32>
// CHECK-COUNT-30: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: nontemporal = true
func.func @sinusoidal_concat_large(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<8192x4096xf32>
  return %0 : tensor<8192x4096xf32>
}

// -----

// A static result below 32 MiB has only the plain-store version: no
// prefetch.
// CHECK-LABEL: func @sinusoidal_small
// CHECK-NOT: nontemporal
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @sinusoidal_small(%x: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<512x64xf32>
  return %0 : tensor<512x64xf32>
}
