// The prefill kernel's register tile comes from the target's vector
// registers (CPUTarget::accumulatorVectors, half of them): the 4-row score
// tile of a 64-key block and the P V chunk keep at most 16 accumulators with
// AVX-512's and NEON's 32 registers and 8 with AVX2's 16, in column chunks,
// instead of a tile that LLVM spills around every FMA.
// RUN: pe-opt %s --split-input-file --convert-pe-to-vector | FileCheck %s

// AVX2 (x86-64-v3): 8 lanes, 8 vectors per 64-key row. The scores of a block
// are four passes over the 32 channels of 4 rows x 2 vectors, and the 64
// value columns four chunks of 4 rows x 2 vectors; no pass keeps 16 or 32.
// CHECK-LABEL: func @tile_avx2
// CHECK-NOT: = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// CHECK-COUNT-4: :8 = scf.for %{{.*}} = %{{.*}} to %c32{{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// CHECK-COUNT-4: :8 = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NOT: = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @tile_avx2(%q: tensor<1x2x128x32xf32>, %k: tensor<1x2x128x32xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
    %init = tensor.empty() : tensor<1x2x128x64xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x128x64xf32>) : tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
    return %o : tensor<1x2x128x64xf32>
  }
}

// -----

// AVX-512 (x86-64-v4): 16 lanes, 4 vectors per row: the whole 4 x 64 tile
// is one pass of 16 accumulators, and the 64 value columns one chunk.
// CHECK-LABEL: func @tile_avx512
// CHECK: :16 = scf.for %{{.*}} = %{{.*}} to %c32{{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: :8 = scf.for
// CHECK: :16 = scf.for {{.*}} -> (vector<16xf32>
// CHECK-NOT: :8 = scf.for
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @tile_avx512(%q: tensor<1x2x128x32xf32>, %k: tensor<1x2x128x32xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
    %init = tensor.empty() : tensor<1x2x128x64xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x128x64xf32>) : tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
    return %o : tensor<1x2x128x64xf32>
  }
}

// -----

// NEON (neoverse-n1): 4 lanes, 16 vectors per row: four passes of 4 rows x
// 4 vectors, and four value chunks of 16 columns.
// CHECK-LABEL: func @tile_neon
// CHECK-NOT: :64 = scf.for
// CHECK-COUNT-4: :16 = scf.for %{{.*}} = %{{.*}} to %c32{{.*}} -> (vector<4xf32>
// CHECK-NOT: :64 = scf.for
// CHECK-COUNT-4: :16 = scf.for {{.*}} -> (vector<4xf32>
// CHECK-NOT: :64 = scf.for
// CHECK-NOT: :32 = scf.for
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @tile_neon(%q: tensor<1x2x128x32xf32>, %k: tensor<1x2x128x32xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
    %init = tensor.empty() : tensor<1x2x128x64xf32>
    %o = pe.attention %q, %k, %v outs(%init : tensor<1x2x128x64xf32>) : tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>, tensor<1x2x128x64xf32> -> tensor<1x2x128x64xf32>
    return %o : tensor<1x2x128x64xf32>
  }
}
