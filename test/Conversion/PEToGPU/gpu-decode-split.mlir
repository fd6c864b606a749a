// Split-KV decode in convert-pe-to-gpu: an attention with one query token
// (static) gets a kernel per key split and a combine kernel when its key
// range holds more than one split of `decode-split-keys` keys (whole key
// tiles, at most 64 splits).
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu --canonicalize | FileCheck %s
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu=decode-split-keys=0 | FileCheck %s --check-prefix=OFF
// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu="decode-split-keys=512 key-tile=16" | FileCheck %s --check-prefix=LONG

// 1024 keys, 128 per split (4 tiles of 32): 8 splits of 1 x 4 rows, so the
// partial O holds 8 x 4 x 64 values and m, l 8 x 4 each; the grid has one
// row tile per split.
// CHECK-LABEL: func.func @decode_1024
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<2048xf32>
// CHECK-DAG: memref.alloc() {alignment = 64 : i64} : memref<32xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c4, %{{.*}} = %c1)
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

// Must not split: the key range is one split (128 keys).
// CHECK-LABEL: func.func @decode_128
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @decode_128(%q: tensor<1x4x1x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x1x64xf32> {
  %init = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x1x64xf32>) : tensor<1x4x1x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}

// -----

// Must not split: two query tokens (prefill; its blocks already cover the
// query rows).
// CHECK-LABEL: func.func @prefill_2
// CHECK: gpu.launch
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
