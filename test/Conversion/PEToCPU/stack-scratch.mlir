// Each task of the attention kernels builds in its own memref.alloca_scope,
// and its scratch buffers of static size go on the stack (memref.alloca)
// while the task's total stays within stack-scratch-bytes (128 KiB by
// default); larger ones, and those whose size is only known at run time, are
// heap-allocated. 0 puts every scratch buffer on the heap.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="stack-scratch-bytes=0" --split-input-file | FileCheck %s --check-prefix=HEAP
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector="stack-scratch-bytes=8192" --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4" --split-input-file | FileCheck %s --check-prefix=PIPE
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver4 stack-scratch-bytes=0" --split-input-file | FileCheck %s --check-prefix=PIPE-HEAP

// Decode, GQA group of 4, D = 128, a static cache of 4096 keys: queries
// [4, 128] (2 KiB), a key row (512 B), maximum and sum [4, 16] (256 B each),
// products [64, 16] (4 KiB) and the scores [4, 4096 + 16] (65,792 B): 72,960
// bytes, all on the stack by default. With 8 KiB, the scores go to the heap
// and the others (7,168 bytes) stay on the stack.
// CHECK-LABEL: func @decode_static
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope {
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4x128xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<128xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4x4112xf32>
// CHECK-NOT: memref.alloc(
// CHECK: scf.reduce
// HEAP-LABEL: func @decode_static
// HEAP: scf.parallel
// HEAP-NEXT: memref.alloca_scope {
// HEAP: memref.alloc() {alignment = 64 : i64} : memref<4x128xf32>
// HEAP-NOT: memref.alloca(
// HEAP: memref.alloc() {alignment = 64 : i64} : memref<4x4112xf32>
// HEAP-NOT: memref.alloca(
// HEAP: scf.reduce
// SMALL-LABEL: func @decode_static
// SMALL: memref.alloca_scope {
// SMALL: memref.alloca() {alignment = 64 : i64} : memref<4x128xf32>
// SMALL: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
// SMALL: memref.alloc() {alignment = 64 : i64} : memref<4x4112xf32>
// SMALL: scf.reduce
// Through pe-cpu-pipeline: stack slots released at the end of each task;
// with stack-scratch-bytes=0, malloc instead.
// PIPE-LABEL: llvm.func @decode_static(
// PIPE: %[[SP:.*]] = llvm.intr.stacksave
// PIPE: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// PIPE-NOT: llvm.call @malloc
// PIPE: llvm.intr.stackrestore %[[SP]]
// PIPE-HEAP-LABEL: llvm.func @decode_static(
// PIPE-HEAP: llvm.intr.stacksave
// PIPE-HEAP-NOT: llvm.alloca %{{.*}} x f32
// PIPE-HEAP: llvm.call @malloc
// PIPE-HEAP: llvm.intr.stackrestore
func.func @decode_static(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x4096x128xf16>) -> tensor<1x8x1x128xf32> {
  %i = tensor.empty() : tensor<1x8x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x8x1x128xf32>) : tensor<1x8x1x128xf32>, tensor<1x2x4096x128xf16>, tensor<1x2x4096x128xf16> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// -----

// A cache whose length is only known at run time: the scores buffer is
// heap-allocated whatever the budget; the small buffers stay on the stack.
// CHECK-LABEL: func @decode_dynamic
// CHECK: memref.alloca_scope {
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<4x128xf32>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<4x?xf32>
// CHECK: scf.reduce
func.func @decode_dynamic(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x?x128xf32>) -> tensor<1x8x1x128xf32> {
  %i = tensor.empty() : tensor<1x8x1x128xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x8x1x128xf32>) : tensor<1x8x1x128xf32>, tensor<1x2x?x128xf32>, tensor<1x2x?x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// -----

// Prefill: the query, output, softmax-state, P, score and key-tile blocks
// on the stack (53.5 KiB here); the packed keys on the heap (their block count is
// computed at run time, from the valid keys of the batch).
// CHECK-LABEL: func @prefill
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca_scope {
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x64x64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4x64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<16x16x16xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// CHECK-NOT: memref.alloc(
// CHECK: scf.reduce
// SMALL-LABEL: func @prefill
// SMALL: memref.alloca_scope {
// SMALL: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x64x64xf32>
// SMALL-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4x64xf32>
// SMALL-NEXT: memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
// SMALL-NEXT: memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
// SMALL-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// SMALL-NEXT: memref.alloca() {alignment = 64 : i64} : memref<64xf32>
// SMALL-NEXT: memref.alloc() {alignment = 64 : i64} : memref<16x16x16xf32>
// SMALL-NEXT: memref.alloca() {alignment = 64 : i64} : memref<16x64xf32>
// HEAP-LABEL: func @prefill
// HEAP: memref.alloca_scope {
// HEAP-NOT: memref.alloca(
// HEAP: scf.reduce
func.func @prefill(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %i = tensor.empty() : tensor<1x2x128x64xf32>
  %o = pe.attention %q, %k, %k outs(%i : tensor<1x2x128x64xf32>) {causal} : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
  return %o : tensor<1x2x128x64xf32>
}
