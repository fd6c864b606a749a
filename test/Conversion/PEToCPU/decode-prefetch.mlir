// The decode kernel prefetches the K and V cache rows decode-prefetch-bytes
// (default 8192) ahead of the row in use: ceil(bytes / row bytes) rows
// ahead, clamped to the last row, one memref.prefetch per 64-byte line, in
// the score loop (K) and the P V loop (V).
// Before each of the two loops, the first rows of that distance are
// prefetched (K rows [lo, min(lo + ahead, hi)) at the task's start, V rows
// once the scores are done), so that each pass starts with them in flight.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-bytes=100" --split-input-file | FileCheck %s --check-prefix=NEAR
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-bytes=0" --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4 decode-prefetch-bytes=0" --split-input-file | FileCheck %s --check-prefix=PIPE-OFF
// A pass prefetches only if it runs at least decode-prefetch-min-ops
// (default 2) vector operations per 64-byte line: per 16 lanes one
// multiply-add per query head of the group, one conversion from f16/bf16,
// two for rotating a key in the kernel.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-min-ops=1" --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-min-ops=5" --split-input-file | FileCheck %s --check-prefix=MIN5
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4 decode-prefetch-min-ops=1" --split-input-file | FileCheck %s --check-prefix=PIPE-ALL
// A pass with fewer than decode-prefetch-l2-min-ops (default 8) operations
// per line prefetches into the L1 (locality 3), a heavier one into the L2
// (locality 2); 0: every pass into the L2.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-l2-min-ops=0" --split-input-file | FileCheck %s --check-prefix=L2ALL
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="decode-prefetch-l2-min-ops=6" --split-input-file | FileCheck %s --check-prefix=L2AT6
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4" --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4 decode-prefetch-l2-min-ops=0" --split-input-file | FileCheck %s --check-prefix=PIPE-L2ALL

// f32 cache, D = 32: 128-byte rows, 8192 bytes = 64 rows ahead, two lines
// per row. Two query heads per KV head: two multiply-adds per line, so both
// passes prefetch into the L1 by default.
// CHECK-LABEL: func @decode_f32
// CHECK-DAG: %[[KM:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<1x2x?x32xf32> to memref<1x2x?x32xf32>
// CHECK-DAG: %[[VM:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<1x2x?x32xf32> to memref<1x2x?x32xf32>
// CHECK: %[[TK:.*]] = memref.dim %[[KM]], %c2 : memref<1x2x?x32xf32>
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]]) =
// The last row, once per task, before the score loop.
// CHECK: %[[LAST:.*]] = arith.subi %[[TK]], %c1{{(_[0-9]+)?}} : index
// The first 64 K rows, two lines each.
// CHECK: %[[KEND:.*]] = arith.minsi %{{.*}}, %[[TK]] : index
// CHECK: scf.for %[[KP:.*]] = %{{.*}} to %[[KEND]] step
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.prefetch %[[KM]][%[[B]], %[[H]], %[[KP]], %{{.*}}], read, locality<3>, data
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: memref.prefetch %[[KM]][%[[B]], %[[H]], %[[KP]], %{{.*}}], read, locality<3>, data
// CHECK-NEXT: }
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[J:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[A:.*]] = arith.addi %[[J]], %[[C64]] : index
// CHECK: %[[R:.*]] = arith.minsi %[[A]], %[[LAST]] : index
// CHECK: memref.prefetch %[[KM]][%[[B]], %[[H]], %[[R]], %{{.*}}], read, locality<3>, data : memref<1x2x?x32xf32>
// CHECK: memref.prefetch %[[KM]][%[[B]], %[[H]], %[[R]], %{{.*}}], read, locality<3>, data : memref<1x2x?x32xf32>
// CHECK-NOT: memref.prefetch %[[KM]][%[[B]], %[[H]], %[[R]]
// CHECK: vector.fma
// The first 64 V rows, after the scores.
// CHECK: %[[VEND:.*]] = arith.minsi %{{.*}}, %[[TK]] : index
// CHECK: scf.for %[[VP:.*]] = %{{.*}} to %[[VEND]] step
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.prefetch %[[VM]][%[[B]], %[[H]], %[[VP]], %{{.*}}], read, locality<3>, data
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: memref.prefetch %[[VM]][%[[B]], %[[H]], %[[VP]], %{{.*}}], read, locality<3>, data
// CHECK-NEXT: }
// The P V loop: V rows ahead.
// CHECK: math.exp
// CHECK: memref.prefetch %[[VM]][%[[B]], %[[H]], %{{.*}}, %{{.*}}], read, locality<3>, data : memref<1x2x?x32xf32>
// CHECK: return
// NEAR-LABEL: func @decode_f32
// NEAR: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c16
// NEAR: %[[J:.*]] = arith.addi %[[J0]], %{{.*}} : index
// NEAR: %[[C1:.*]] = arith.constant 1 : index
// NEAR: arith.addi %[[J]], %[[C1]] : index
// NEAR: memref.prefetch
// OFF-LABEL: func @decode_f32
// OFF-NOT: memref.prefetch
// PIPE-OFF-LABEL: func @decode_f32
// PIPE-OFF-NOT: llvm.intr.prefetch
// L2ALL-LABEL: func @decode_f32
// L2ALL-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1
// L2ALL-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2
// L2ALL: memref.prefetch %[[KM]][{{.*}}], read, locality<2>, data
// L2ALL: vector.fma
// L2ALL: memref.prefetch %[[VM]][{{.*}}], read, locality<2>, data
// L2ALL-NOT: locality<3>
// L2ALL: return
// L2AT6-LABEL: func @decode_f32
// L2AT6-NOT: locality<2>
// L2AT6: memref.prefetch {{.*}}, read, locality<3>, data
// L2AT6-NOT: locality<2>
// L2AT6: return
// PIPE-LABEL: llvm.func @decode_f32
// PIPE: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 3 : i32, rw = 0 : i32}>
// PIPE-NOT: hint = 2
// PIPE: llvm.return
// PIPE-L2ALL-LABEL: llvm.func @decode_f32
// PIPE-L2ALL: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// PIPE-L2ALL-NOT: hint = 3
// PIPE-L2ALL: llvm.return
// Two query heads per KV head, f32: two multiply-adds per line.
// MIN5-LABEL: func @decode_f32
// MIN5-NOT: memref.prefetch
// MIN5: return
func.func @decode_f32(%q: tensor<1x4x1x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>) -> tensor<1x4x1x32xf32> {
  %init = tensor.empty() : tensor<1x4x1x32xf32>
  %o = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x32xf32>) : tensor<1x4x1x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x4x1x32xf32>
  return %o : tensor<1x4x1x32xf32>
}

// -----

// f16 cache, D = 32: 64-byte rows, 128 rows ahead, one line per row.
// CHECK-LABEL: func @decode_f16
// CHECK: scf.for %{{.*}} step %c16
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: arith.addi %{{.*}}, %[[C128]] : index
// CHECK: %[[R:.*]] = arith.minsi
// CHECK: memref.prefetch %[[KM:.*]][%{{.*}}, %{{.*}}, %[[R]], %{{.*}}], read, locality<3>, data : memref<1x2x64x32xf16>
// CHECK-NOT: memref.prefetch %[[KM]][%{{.*}}, %{{.*}}, %[[R]],
// CHECK: arith.minsi
// CHECK: vector.fma
// OFF-LABEL: func @decode_f16
// OFF-NOT: memref.prefetch
// Two query heads, f16: per line two vectors of (2 multiply-adds and a
// conversion), 6 operations: into the L1 by default, into the L2 from
// decode-prefetch-l2-min-ops=6.
// L2AT6-LABEL: func @decode_f16
// L2AT6-NOT: locality<3>
// L2AT6: memref.prefetch {{.*}}, read, locality<2>, data
// L2AT6-NOT: locality<3>
// L2AT6: return
// MIN5-LABEL: func @decode_f16
// MIN5-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1
// MIN5-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2
// MIN5: memref.prefetch %[[KM]][
// MIN5: memref.prefetch %[[VM]][
func.func @decode_f16(%q: tensor<1x4x1x32xf32>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>) -> tensor<1x4x1x32xf32> {
  %init = tensor.empty() : tensor<1x4x1x32xf32>
  %o = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x32xf32>) : tensor<1x4x1x32xf32>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16> -> tensor<1x4x1x32xf32>
  return %o : tensor<1x4x1x32xf32>
}

// -----

// One query head per KV head, f32: one multiply-add per line in either
// pass, so neither prefetches by default; with decode-prefetch-min-ops=1
// both do.
// CHECK-LABEL: func @decode_mha_f32
// CHECK-NOT: memref.prefetch
// CHECK: return
// ALL-LABEL: func @decode_mha_f32
// ALL-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1
// ALL-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2
// ALL: memref.prefetch %[[KM]][
// ALL: scf.for
// ALL: memref.prefetch %[[KM]][
// ALL: memref.prefetch %[[VM]][
// ALL: math.exp
// ALL: memref.prefetch %[[VM]][
// PIPE-ALL-LABEL: func @decode_mha_f32
// PIPE-ALL: llvm.intr.prefetch
func.func @decode_mha_f32(%q: tensor<1x2x1x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>) -> tensor<1x2x1x32xf32> {
  %init = tensor.empty() : tensor<1x2x1x32xf32>
  %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x1x32xf32>) : tensor<1x2x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x2x1x32xf32>
  return %o : tensor<1x2x1x32xf32>
}

// -----

// One query head per KV head, bf16: two vectors of (a multiply-add and a
// conversion) per line, 4 operations: both passes prefetch.
// CHECK-LABEL: func @decode_mha_bf16
// CHECK-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1 {{.*}} to memref<1x2x64x32xbf16>
// CHECK-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2 {{.*}} to memref<1x2x64x32xbf16>
// CHECK: memref.prefetch %[[KM]][
// CHECK: memref.prefetch %[[VM]][
// MIN5-LABEL: func @decode_mha_bf16
// MIN5-NOT: memref.prefetch
// MIN5: return
func.func @decode_mha_bf16(%q: tensor<1x2x1x32xf32>, %k: tensor<1x2x64x32xbf16>, %v: tensor<1x2x64x32xbf16>) -> tensor<1x2x1x32xf32> {
  %init = tensor.empty() : tensor<1x2x1x32xf32>
  %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x1x32xf32>) : tensor<1x2x1x32xf32>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x2x1x32xf32>
  return %o : tensor<1x2x1x32xf32>
}

// -----

// One query head per KV head, f32, the keys rotated in the kernel: the key
// pass runs a multiply-add and the rotation's two operations per line and
// prefetches K; the value pass (one multiply-add per line) does not
// prefetch V.
// CHECK-LABEL: func @decode_mha_f32_rotated
// CHECK-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1 {{.*}} to memref<1x2x64x32xf32>
// CHECK-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2 {{.*}} to memref<1x2x64x32xf32>
// CHECK: memref.prefetch %[[KM]][
// CHECK-NOT: memref.prefetch %[[VM]][
// CHECK: return
func.func @decode_mha_f32_rotated(%q: tensor<1x2x1x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>, %f: tensor<16xf32>) -> tensor<1x2x1x32xf32> {
  %init = tensor.empty() : tensor<1x2x1x32xf32>
  %o = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<16xf32>) outs(%init : tensor<1x2x1x32xf32>) : tensor<1x2x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x2x1x32xf32>
  return %o : tensor<1x2x1x32xf32>
}

// -----

// Four query heads per KV head, f16: two vectors of (4 multiply-adds and a
// conversion) per line, 10 operations: both passes prefetch into the L2.
// CHECK-LABEL: func @decode_gqa4_f16
// CHECK-DAG: %[[KM:.*]] = bufferization.to_buffer %arg1 {{.*}} to memref<1x2x64x32xf16>
// CHECK-DAG: %[[VM:.*]] = bufferization.to_buffer %arg2 {{.*}} to memref<1x2x64x32xf16>
// CHECK-NOT: locality<3>
// CHECK: memref.prefetch %[[KM]][{{.*}}], read, locality<2>, data
// CHECK-NOT: locality<3>
// CHECK: memref.prefetch %[[VM]][{{.*}}], read, locality<2>, data
// CHECK-NOT: locality<3>
// CHECK: return
// PIPE-LABEL: llvm.func @decode_gqa4_f16
// PIPE: "llvm.intr.prefetch"(%{{.*}}) <{cache = 1 : i32, hint = 2 : i32, rw = 0 : i32}>
// PIPE-NOT: hint = 3
// PIPE: llvm.return
func.func @decode_gqa4_f16(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>) -> tensor<1x8x1x32xf32> {
  %init = tensor.empty() : tensor<1x8x1x32xf32>
  %o = pe.attention %q, %k, %v outs(%init : tensor<1x8x1x32xf32>) : tensor<1x8x1x32xf32>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// -----

// Prefill (more than one query per head): no software prefetch.
// CHECK-LABEL: func @prefill
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @prefill(%q: tensor<1x4x8x32xf32>, %k: tensor<1x2x64x32xf32>) -> tensor<1x4x8x32xf32> {
  %init = tensor.empty() : tensor<1x4x8x32xf32>
  %o = pe.attention %q, %k, %k outs(%init : tensor<1x4x8x32xf32>) : tensor<1x4x8x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x4x8x32xf32>
  return %o : tensor<1x4x8x32xf32>
}
