// RUN: pe-opt %s --split-input-file --convert-pe-to-vector | FileCheck %s
// The RoPE kernel's streaming stores of f16/bf16 rows go two adjacent
// chunks at a time: the f32 vectors of channels [c, c + lanes) and
// [c + lanes, c + 2 lanes) are joined, rounded once and stored as one
// non-temporal vector of 2 lanes elements aligned to its bytes (64 on
// AVX-512, 32 on AVX2), a whole register, where a half-register store lost
// the hint on AVX-512. Rows whose bytes are not a multiple of a pair keep one
// store per chunk. Each result is 32 MiB (the kernels stream from 32 MiB).

// AVX-512, bf16, D = 128: four pairs per row (half layout: lo and hi halves).
// CHECK-LABEL: func @pairs_avx512
// CHECK-NOT: vector.store {{.*}}nontemporal = true{{.*}}vector<16xbf16>
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<{{.*}}xbf16>, vector<32xbf16>
// CHECK-NOT: vector.store {{.*}}nontemporal = true{{.*}}vector<16xbf16>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @pairs_avx512(%x: tensor<1x32x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
    %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
    %r = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xbf16>
    return %r : tensor<1x32x4096x128xbf16>
  }
}

// -----

// AVX2, f16, interleaved, D = 64: 8-lane chunks in pairs of 16 halves.
// CHECK-LABEL: func @pairs_avx2_f16
// CHECK-COUNT-4: vector.store %{{.*}} {alignment = 32 : i64, nontemporal = true} : memref<{{.*}}xf16>, vector<16xf16>
// CHECK-NOT: vector.store {{.*}}nontemporal = true{{.*}}vector<8xf16>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @pairs_avx2_f16(%x: tensor<1x8x32768x64xf16>) -> tensor<1x8x32768x64xf16> {
    %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<32xf32>
    %r = pe.rope interleaved %x inv_freq(%f : tensor<32xf32>) : tensor<1x8x32768x64xf16>
    return %r : tensor<1x8x32768x64xf16>
  }
}

// -----

// AVX-512, bf16, interleaved, D = 48: a row is 96 bytes, not a multiple of
// a 64-byte pair: one streaming store per 16-channel chunk, aligned to its
// 32 bytes.
// CHECK-LABEL: func @no_pairs_odd_rows
// CHECK-NOT: vector<32xbf16>
// CHECK-COUNT-3: vector.store %{{.*}} {alignment = 32 : i64, nontemporal = true} : memref<{{.*}}xbf16>, vector<16xbf16>
// CHECK-NOT: vector<32xbf16>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @no_pairs_odd_rows(%x: tensor<1x4x87382x48xbf16>) -> tensor<1x4x87382x48xbf16> {
    %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<24xf32>
    %r = pe.rope interleaved %x inv_freq(%f : tensor<24xf32>) : tensor<1x4x87382x48xbf16>
    return %r : tensor<1x4x87382x48xbf16>
  }
}

// -----

// f32 rows: unchanged, one streaming store per whole vector.
// CHECK-LABEL: func @f32_unchanged
// CHECK-NOT: vector<32xf32>
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<{{.*}}xf32>, vector<16xf32>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @f32_unchanged(%x: tensor<1x16x4096x128xf32>) -> tensor<1x16x4096x128xf32> {
    %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
    %r = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<1x16x4096x128xf32>
    return %r : tensor<1x16x4096x128xf32>
  }
}

// -----

// The sinusoidal recurrence's streaming bf16 rows on AVX-512: its groups of
// four 16-channel vectors per row are stored as two 64-byte pairs.
// CHECK-LABEL: func @sinusoidal_pairs_avx512
// CHECK: vector.store %{{.*}} {alignment = 64 : i64, nontemporal = true} : memref<1x4100x4096xbf16>, vector<32xbf16>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @sinusoidal_pairs_avx512(%x: tensor<4100x4096xbf16>) -> tensor<4100x4096xbf16> {
    %0 = pe.add_sinusoidal interleaved %x : tensor<4100x4096xbf16>
    return %0 : tensor<4100x4096xbf16>
  }
}
