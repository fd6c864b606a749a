// RUN: pe-opt %s --canonicalize --split-input-file | FileCheck %s

// Constant dynamic offsets become static ones; a constant attention scaling
// of exactly 1 is dropped; and the cases where neither may happen.

// CHECK-LABEL: func @sequence_ops
// CHECK: pe.add_sinusoidal interleaved %{{.*}} {static_offset = 7 : i64}
// CHECK: pe.add_learned %{{.*}}, %{{.*}} {static_offset = 4 : i64}
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<4xf32>) {static_offset = 12 : i64}
// CHECK: pe.alibi_bias signed {static_offset = 9 : i64}
// CHECK-NOT: offset(
func.func @sequence_ops(%x: tensor<2x8x8xf32>, %t: tensor<16x8xf32>, %f: tensor<4xf32>)
    -> (tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<4x8x8xf32>) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : i64
  %c9 = arith.constant 9 : i32
  %one = arith.constant 1.0 : f32
  %0 = pe.add_sinusoidal interleaved %x offset(%c4 : i64) {static_offset = 3 : i64} : tensor<2x8x8xf32>
  // 4 + 8 rows = 12 <= 16: still in the table.
  %1 = pe.add_learned %x, %t offset(%c4 : i64) : tensor<2x8x8xf32>, tensor<16x8xf32>
  %2 = pe.rope half %x inv_freq(%f : tensor<4xf32>) attention_scaling(%one) offset(%c3 : index) {static_offset = 9 : i64} : tensor<2x8x8xf32>
  %3 = pe.alibi_bias signed offset(%c9 : i32) : tensor<4x8x8xf32>
  return %0, %1, %2, %3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<4x8x8xf32>
}

// -----

// Must not fold: the learned table and the rope cache would be read out of
// range statically (a verifier error), while the run-time offset is clamped;
// a negative constant; a run-time offset; a scaling other than 1.
// CHECK-LABEL: func @no_fold
// CHECK: pe.add_learned %{{.*}}, %{{.*}} offset(%{{.*}} : i64)
// CHECK: pe.rope half %{{.*}} cache(%{{.*}}, %{{.*}} : tensor<10x4xf32>, tensor<10x4xf32>) offset(%{{.*}} : i64)
// CHECK: pe.add_sinusoidal interleaved %{{.*}} offset(%{{.*}} : i64)
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<4xf32>) attention_scaling(%{{.*}}) offset(%{{.*}} : index)
func.func @no_fold(%x: tensor<2x8x8xf32>, %t: tensor<10x8xf32>, %c: tensor<10x4xf32>, %f: tensor<4xf32>, %p: index)
    -> (tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>) {
  %c4 = arith.constant 4 : i64
  %m1 = arith.constant -1 : i64
  %s = arith.constant 1.5 : f32
  %0 = pe.add_learned %x, %t offset(%c4 : i64) : tensor<2x8x8xf32>, tensor<10x8xf32>
  %1 = pe.rope half %x cache(%c, %c : tensor<10x4xf32>, tensor<10x4xf32>) offset(%c4 : i64) : tensor<2x8x8xf32>
  %2 = pe.add_sinusoidal interleaved %x offset(%m1 : i64) : tensor<2x8x8xf32>
  %3 = pe.rope half %x inv_freq(%f : tensor<4xf32>) attention_scaling(%s) offset(%p : index) : tensor<2x8x8xf32>
  return %0, %1, %2, %3 : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x8xf32>
}

// -----

// The attention's encodings: constant offsets move into the attributes
// (added to the static parts), a unit scaling disappears.
// CHECK-LABEL: func @attention
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_offset = 8, key_offset = 5> inv_freq(%{{.*}} : tensor<8xf32>) alibi <key, query_offset = 6> outs({{[^)]*}}) {causal}
// CHECK-LABEL: func @attention_runtime
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_offset = 1> inv_freq(%{{.*}} : tensor<8xf32>) attention_scaling(%{{.*}}) query_offset(%{{.*}} : index) alibi <key> alibi_offset(%{{.*}} : index) outs({{[^)]*}}) :
func.func @attention(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i64
  %one = arith.constant 1.0 : f32
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half, query_offset = 5> inv_freq(%f : tensor<8xf32>) attention_scaling(%one)
         query_offset(%c3 : index) key_offset(%c5 : i32) alibi <key> alibi_offset(%c6 : i64) outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal}
         : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}
func.func @attention_runtime(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: index, %m: f32) -> tensor<1x4x8x16xf32> {
  %attn_init1 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half, query_offset = 1> inv_freq(%f : tensor<8xf32>) attention_scaling(%m)
         query_offset(%p : index) alibi <key> alibi_offset(%p : index)
      outs(%attn_init1 : tensor<1x4x8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}
