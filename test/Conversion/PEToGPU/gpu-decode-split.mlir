// The decode attention kernel of convert-pe-to-gpu: an attention with one
// query token (static) gets blocks of (key split, KV head, batch) whose
// threads share the (query head, key) pairs of a key tile, and a combine
// kernel when its key range holds more than one split of
// `decode-split-keys` keys (whole key tiles, at most 64 splits).
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu --canonicalize | FileCheck %s
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu=decode-split-keys=0 | FileCheck %s --check-prefix=OFF
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu="decode-split-keys=512 key-tile=16" | FileCheck %s --check-prefix=LONG

// 1024 keys, 128 per split (4 tiles of 32): 8 splits of 1 x 4 rows, so the
// partial O holds 8 x 4 x 64 values and m, l 8 x 4 each; the grid has one
// row tile per split.
// CHECK-LABEL: func.func @decode_1024
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<2048xf32>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// Workgroup buffers: Q of the group (1 x 64), K rows padded by one (32 x
// 65), V, the scores (1 x 32), and 4 values per row.
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c4, %{{.*}} = %c1)
// CHECK-SAME: workgroup({{.*}} : memref<1x64xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<1x32xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<4x1xf32, #gpu.address_space<workgroup>>)
// The combine kernel: one thread per row, 4 rows in one block of 64.
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-NOT: gpu.launch
// CHECK: return
// OFF-LABEL: func.func @decode_1024
// OFF: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
// 512 keys per split in tiles of 16 keys: 2 splits.
// LONG-LABEL: func.func @decode_1024
// LONG: memref.alloc() {alignment = 64 : i64} : memref<512xf32>
// LONG: gpu.launch
// LONG: gpu.launch
// LONG-NOT: gpu.launch
// LONG: return
func.func @decode_1024(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x1024x64xf32>, %v: tensor<1x4x1024x64xf32>) -> tensor<1x4x1x64xf32> {
  %init = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x64xf32>) {causal} : tensor<1x4x1x64xf32>, tensor<1x4x1024x64xf32>, tensor<1x4x1024x64xf32> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}

// -----

// Must not split: the key range is one split (128 keys); the decode kernel
// writes the result itself.
// CHECK-LABEL: func.func @decode_128
// CHECK: gpu.launch
// CHECK-SAME: memref<32x65xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @decode_128(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x1x64xf32> {
  %init = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x64xf32>) : tensor<1x4x1x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}

// -----

// Not the decode kernel: two query tokens (prefill; one thread per query
// row, unpadded K tiles).
// CHECK-LABEL: func.func @prefill_2
// CHECK: gpu.launch
// CHECK-SAME: workgroup({{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<32x64xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @prefill_2(%q: tensor<1x4x2x64xf32>, %k: tensor<1x4x1024x64xf32>, %v: tensor<1x4x1024x64xf32>) -> tensor<1x4x2x64xf32> {
  %init = tensor.empty() : tensor<1x4x2x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x2x64xf32>) : tensor<1x4x2x64xf32>, tensor<1x4x1024x64xf32>, tensor<1x4x1024x64xf32> -> tensor<1x4x2x64xf32>
  return %0 : tensor<1x4x2x64xf32>
}

// -----

// A long cache: 131072 keys are 4096 tiles; 64 splits at most, so each split
// takes 64 tiles (2048 keys) instead of 4: the partial O holds 64 x 2 x 32
// values.
// CHECK-LABEL: func.func @decode_long
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<4096xf32>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<128xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: gpu.launch
// CHECK: return
func.func @decode_long(%q: tensor<1x2x1x32xf16>, %k: tensor<1x1x131072x32xf16>, %v: tensor<1x1x131072x32xf16>) -> tensor<1x2x1x32xf16> {
  %init = tensor.empty() : tensor<1x2x1x32xf16>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x2x1x32xf16>) : tensor<1x2x1x32xf16>, tensor<1x1x131072x32xf16>, tensor<1x1x131072x32xf16> -> tensor<1x2x1x32xf16>
  return %0 : tensor<1x2x1x32xf16>
}

// -----

// A dynamic key length: the split count is computed on the host (ceil of
// the tiles over max(4, ceil(tiles / 64)) tiles per split) and the partial
// buffers have dynamic sizes; a run with one split still goes through the
// combine kernel.
// CHECK-LABEL: func.func @decode_dynamic
// CHECK: arith.maxsi
// CHECK: memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf32>
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: return
// OFF-LABEL: func.func @decode_dynamic
// OFF: gpu.launch
// OFF-NOT: gpu.launch
// OFF: return
func.func @decode_dynamic(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>) -> tensor<1x4x1x64xf32> {
  %init = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x64xf32>) : tensor<1x4x1x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}

// -----

// Not the decode kernel, with a remark: an MQA group of 64 query heads with
// Dv = 512 needs 64 x 8 accumulators per thread of 64. The one-row-per-thread
// kernel runs (one block, no split).
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK-NOT: decode-kernel
// REMARK: remark: [Missed] decode-kernel | Category:convert-pe-to-gpu | Reason="no decode attention kernel (the one-row-per-thread kernel runs, without key splits): 512 accumulators per thread (GQA group 64 x ceil(Dv 512 / block-rows 64)), more than 128"
// REMARK-NOT: decode-kernel
// CHECK-LABEL: func.func @decode_mqa_d512
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @decode_mqa_d512(%q: tensor<1x64x1x512xf32>, %k: tensor<1x1x1024x512xf32>, %v: tensor<1x1x1024x512xf32>) -> tensor<1x64x1x512xf32> {
  %init = tensor.empty() : tensor<1x64x1x512xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x64x1x512xf32>) : tensor<1x64x1x512xf32>, tensor<1x1x1024x512xf32>, tensor<1x1x1024x512xf32> -> tensor<1x64x1x512xf32>
  return %0 : tensor<1x64x1x512xf32>
}
