// RUN: pe-opt %s --convert-pe-to-linalg --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-reference-pipeline --split-input-file -o /dev/null
// RUN: pe-opt %s --pe-cpu-pipeline --split-input-file -o /dev/null

// Issue 11: lowerings of verified ops at extreme sizes and offsets.

// LongRoPE with L = INT64_MAX: L + 1 overflowed (UBSan) when the lowering
// evaluated the long table for a run-time length; no length exceeds L, so
// the op is its short table.
// CHECK-LABEL: func @longrope_max_original
// CHECK-NOT: arith.select
// CHECK-DAG: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK-DAG: arith.constant 1.000000e+00 : f32
// CHECK-NOT: arith.select
// CHECK: return
func.func @longrope_max_original(%n: i32) -> (tensor<2xf32>, f32) {
  %f, %m = pe.longrope_scale %n : i32 {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 4.0, 8.0>, original_max_position_embeddings = 9223372036854775807 : i64, max_position_embeddings = 64 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}

// -----

// A result type less static than the operands (the verifier accepts any
// compatible one): the lowering computes in the operands' type and writes
// the last step into the destination, of the result's type.
// CHECK-LABEL: func @attention_result_less_static
// CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<1x2x?x16xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%[[INIT]] : tensor<1x2x?x16xf32>)
// CHECK-NOT: tensor.cast
// CHECK: return %[[R]]
func.func @attention_result_less_static(%q: tensor<1x2x16x16xf32>) -> tensor<1x2x?x16xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x2x16x16xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x2x?x16xf32>
  %o = pe.attention %q, %q, %q outs(%attn_init0 : tensor<1x2x?x16xf32>) : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x?x16xf32>
  return %o : tensor<1x2x?x16xf32>
}

// -----

// And more static than the operands.
// CHECK-LABEL: func @attention_result_more_static
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x2x16x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x2x16x?xf32>, tensor<1x2x16xf32>) outs(%[[INIT]] : tensor<1x2x16x8xf32>)
// CHECK-NOT: tensor.cast
// CHECK: return %[[R]]
func.func @attention_result_more_static(%q: tensor<1x2x16x16xf32>, %v: tensor<1x2x16x?xf32>) -> tensor<1x2x16x8xf32> {
  %attn_init1 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = pe.attention %q, %q, %v outs(%attn_init1 : tensor<1x2x16x8xf32>) : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x?xf32> -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// Without a dynamic offset and with static_offset + T in range the position
// is a plain add (no saturation needed).
// CHECK-LABEL: func @learned_static_offset
// CHECK: linalg.generic
// CHECK: %[[T:.*]] = linalg.index 1
// CHECK: arith.addi %{{.*}}, %[[T]]
// CHECK-NOT: arith.select
// CHECK: linalg.yield
func.func @learned_static_offset(%x: tensor<1x4x8xf32>, %t: tensor<16x8xf32>) -> tensor<1x4x8xf32> {
  %r = pe.add_learned %x, %t {static_offset = 12 : i64} : tensor<1x4x8xf32>, tensor<16x8xf32>
  return %r : tensor<1x4x8xf32>
}
