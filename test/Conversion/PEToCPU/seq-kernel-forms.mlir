// The standalone sequence kernels of convert-pe-to-vector on f16 and bf16,
// tokens along another dimension than -2, per-token caches and sinusoidal
// positions tensors (the default AVX-512 target: 16 f32 lanes). Where they do
// not apply (f64, rope positions tensors): kernel-remarks.mlir.
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s

// bf16 rope: rows loaded as bf16, widened, rotated in f32, rounded once and
// stored as bf16. A result of 32 MiB or more (a run-time branch: the shape is
// dynamic) is streamed two adjacent 16-channel chunks at a time (joined,
// rounded once, stores aligned to their 64 bytes), a smaller one one chunk
// at a time.
// CHECK-LABEL: func @rope_bf16
// CHECK: scf.parallel
// CHECK: scf.if
// CHECK: %[[LO:.*]] = vector.load %{{.*}} : memref<8x?x64xbf16>, vector<16xbf16>
// CHECK: arith.extf %[[LO]] : vector<16xbf16> to vector<16xf32>
// CHECK: %[[J:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] : vector<16xf32>, vector<16xf32>
// CHECK: %[[R:.*]] = arith.truncf %[[J]] : vector<32xf32> to vector<32xbf16>
// CHECK: vector.store %[[R]], %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<8x?x64xbf16>, vector<32xbf16>
// CHECK: } else {
// CHECK: %[[R1:.*]] = arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK: vector.store %[[R1]], %{{.*}} : memref<8x?x64xbf16>, vector<16xbf16>
// CHECK-NOT: pe.rope
func.func @rope_bf16(%x: tensor<2x4x?x64xbf16>, %f: tensor<32xf32>) -> tensor<2x4x?x64xbf16> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) : tensor<2x4x?x64xbf16>
  return %0 : tensor<2x4x?x64xbf16>
}

// -----

// f16 rope with bf16 caches: the cache rows widened into the f32 tables.
// CHECK-LABEL: func @rope_cache_bf16
// CHECK: %[[C:.*]] = vector.load %{{.*}} : memref<64x16xbf16>, vector<16xbf16>
// CHECK: arith.extf %[[C]] : vector<16xbf16> to vector<16xf32>
// CHECK: vector.load %{{.*}} : memref<4x8x32xf16>, vector<16xf16>
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
// CHECK-NOT: pe.rope
func.func @rope_cache_bf16(%x: tensor<4x8x32xf16>, %c: tensor<64x16xbf16>) -> tensor<4x8x32xf16> {
  %0 = pe.rope interleaved %x cache(%c, %c : tensor<64x16xbf16>, tensor<64x16xbf16>) : tensor<4x8x32xf16>
  return %0 : tensor<4x8x32xf16>
}

// -----

// [B, S, H, D] with sequence_dim = 1: no view, no transpose; tasks of (b,
// token block), rows indexed (b, s, h).
// CHECK-LABEL: func @rope_bshd
// CHECK-NOT: memref.collapse_shape
// CHECK-NOT: memref.expand_shape
// CHECK: scf.parallel (%[[A:.*]], %{{.*}}) =
// CHECK: vector.load %{{.*}}[%[[A]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x?x4x32xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[A]], %{{.*}}, %{{.*}}, %{{.*}}] {{.*}}: memref<2x?x4x32xf32>, vector<16xf32>
// CHECK-NOT: pe.rope
func.func @rope_bshd(%x: tensor<2x?x4x32xf32>, %f: tensor<16xf32>) -> tensor<2x?x4x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) {sequence_dim = 1 : i64} : tensor<2x?x4x32xf32>
  return %0 : tensor<2x?x4x32xf32>
}

// -----

// Tokens first (sequence_dim = 0): a unit leading dimension.
// CHECK-LABEL: func @rope_sbd
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [1, %{{.*}}, 4, 32] : memref<?x4x32xf32> into memref<1x?x4x32xf32>
// CHECK: vector.load %{{.*}} : memref<1x?x4x32xf32>, vector<16xf32>
// CHECK-NOT: pe.rope
func.func @rope_sbd(%x: tensor<?x4x32xf32>, %f: tensor<16xf32>) -> tensor<?x4x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) {sequence_dim = 0 : i64} : tensor<?x4x32xf32>
  return %0 : tensor<?x4x32xf32>
}

// -----

// Per-token caches [B, T, R/2]: leading row a (of B x H) reads the rows of
// batch a / H.
// CHECK-LABEL: func @rope_per_token
// CHECK: %[[H:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.parallel (%[[A:.*]], %{{.*}}) =
// CHECK: %[[B:.*]] = arith.divui %[[A]], %[[H]] : index
// CHECK: vector.load %{{.*}}[%[[B]], %{{.*}}, %{{.*}}] : memref<2x8x16xf32>, vector<16xf32>
// CHECK-NOT: pe.rope
func.func @rope_per_token(%x: tensor<2x4x8x32xf32>, %c: tensor<2x8x16xf32>) -> tensor<2x4x8x32xf32> {
  %0 = pe.rope half %x cache(%c, %c : tensor<2x8x16xf32>, tensor<2x8x16xf32>) : tensor<2x4x8x32xf32>
  return %0 : tensor<2x4x8x32xf32>
}

// -----

// f16 sinusoidal with a positions tensor: each row at its own position (no
// angle-addition recurrence), x + PE in f64 rounded once to f16 (through f32
// rounded to odd).
// CHECK-LABEL: func @sinusoidal_f16_positions
// CHECK: %[[P:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<8xi64>
// CHECK: arith.sitofp %[[P]] : i64 to f64
// CHECK: %[[N:.*]] = arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: arith.bitcast %[[N]] : vector<16xf32> to vector<16xi32>
// CHECK: arith.ori %{{.*}} : vector<16xi32>
// CHECK: %[[H:.*]] = arith.truncf %{{.*}} : vector<16xf32> to vector<16xf16>
// CHECK: vector.store %[[H]], %{{.*}} : memref<1x8x16xf16>, vector<16xf16>
// CHECK-NOT: math.fma {{.*}} : vector<8xf64>
// CHECK-NOT: pe.add_sinusoidal
func.func @sinusoidal_f16_positions(%x: tensor<8x16xf16>, %p: tensor<8xi64>) -> tensor<8x16xf16> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<8xi64>) : tensor<8x16xf16>
  return %0 : tensor<8x16xf16>
}

// -----

// bf16 with [B, T] i32 positions: leading row n (of B x 3) reads row n / 3.
// CHECK-LABEL: func @sinusoidal_bf16_batch_positions
// CHECK: scf.parallel (%[[N:.*]], %{{.*}}) =
// CHECK: %[[B:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK: %[[P:.*]] = memref.load %{{.*}}[%[[B]], %{{.*}}] : memref<2x8xi32>
// CHECK: arith.extsi %[[P]] : i32 to i64
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT: pe.add_sinusoidal
func.func @sinusoidal_bf16_batch_positions(%x: tensor<2x3x8x32xbf16>, %p: tensor<2x8xi32>) -> tensor<2x3x8x32xbf16> {
  %0 = pe.add_sinusoidal concat %x positions(%p : tensor<2x8xi32>) : tensor<2x3x8x32xbf16>
  return %0 : tensor<2x3x8x32xbf16>
}
