// RUN: pe-opt %s --split-input-file --pe-expand-bf16-conversions | FileCheck %s
// What the expansion is for: on x86-64 without AVX512-BF16, llc calls
// __truncsfbf2 once per lane of an f32 -> bf16 truncation; after the pass, no
// call is left.
// RUN: pe-opt %s --split-input-file --pe-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @round_vector
// LLVM-NOT: llvm.fptrunc
// LLVM: llvm.trunc {{.*}} : vector<8xi32> to vector<8xi16>
// LLVM-LABEL: llvm.func @round_vector_bf16_target
// LLVM: llvm.fptrunc {{.*}} : vector<16xf32> to vector<16xbf16>

// x86-64-v3 (AVX2): vector and scalar conversions become integer arithmetic.
// The NaN case is selected on the i32 bits (quiet bit set, sign and leading
// payload kept), before the shift and the cast to bf16: no select on bf16
// (expand-bf16-conversions-llvm.mlir).
// CHECK-LABEL: func @round_vector
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK-DAG: %[[QUIET:.*]] = arith.constant dense<4194304> : vector<8xi32>
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant dense<16> : vector<8xi32>
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X:.*]], %[[X]] : vector<8xf32>
// CHECK: %[[ROUNDED:.*]] = arith.addi %[[BITS]], %{{.*}} : vector<8xi32>
// CHECK: %[[QNAN:.*]] = arith.ori %[[BITS]], %[[QUIET]] : vector<8xi32>
// CHECK: %[[SEL:.*]] = arith.select %[[NAN]], %[[QNAN]], %[[ROUNDED]] : vector<8xi1>, vector<8xi32>
// CHECK: %[[HIGH:.*]] = arith.shrui %[[SEL]], %[[SIXTEEN]] : vector<8xi32>
// CHECK: arith.trunci %[[HIGH]] : vector<8xi32> to vector<8xi16>
// CHECK: arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.select %{{.*}} : i32
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: return
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @round_vector(%x: vector<8xf32>, %s: f32) -> (vector<8xbf16>, vector<8xf32>, bf16) {
    %b = arith.truncf %x : vector<8xf32> to vector<8xbf16>
    %w = arith.extf %b : vector<8xbf16> to vector<8xf32>
    %t = arith.truncf %s : f32 to bf16
    return %b, %w, %t : vector<8xbf16>, vector<8xf32>, bf16
  }
}

// -----

// x86-64-v4 has AVX-512 but not AVX512-BF16: expanded too.
// CHECK-LABEL: func @round_v4
// CHECK-NOT: arith.truncf
// CHECK: arith.trunci %{{.*}} : vector<16xi32> to vector<16xi16>
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4">} {
  func.func @round_v4(%x: vector<16xf32>) -> vector<16xbf16> {
    %b = arith.truncf %x : vector<16xf32> to vector<16xbf16>
    return %b : vector<16xbf16>
  }
}

// -----

// AVX512-BF16 (vcvtneps2bf16): unchanged, here through a feature flag.
// CHECK-LABEL: func @round_vector_bf16_target
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4", features = #llvm.target_features<["+avx512bf16"]>>} {
  func.func @round_vector_bf16_target(%x: vector<16xf32>) -> vector<16xbf16> {
    %b = arith.truncf %x : vector<16xf32> to vector<16xbf16>
    return %b : vector<16xbf16>
  }
}

// -----

// AArch64: the backend expands the conversion inline; unchanged.
// CHECK-LABEL: func @round_neon
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @round_neon(%x: vector<4xf32>) -> vector<4xbf16> {
    %b = arith.truncf %x : vector<4xf32> to vector<4xbf16>
    return %b : vector<4xbf16>
  }
}

// -----

// Not expanded: a rounding mode other than to-nearest-even, and f64 -> bf16
// (a double rounding through f32 would differ).
// CHECK-LABEL: func @not_expanded
// CHECK: arith.truncf %{{.*}} to_nearest_away : vector<8xf32> to vector<8xbf16>
// CHECK: arith.truncf %{{.*}} : vector<8xf64> to vector<8xbf16>
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3">} {
  func.func @not_expanded(%x: vector<8xf32>, %y: vector<8xf64>) -> (vector<8xbf16>, vector<8xbf16>) {
    %b = arith.truncf %x to_nearest_away : vector<8xf32> to vector<8xbf16>
    %c = arith.truncf %y : vector<8xf64> to vector<8xbf16>
    return %b, %c : vector<8xbf16>, vector<8xbf16>
  }
}
