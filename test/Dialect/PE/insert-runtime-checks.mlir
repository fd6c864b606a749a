// RUN: pe-opt %s --split-input-file --pe-insert-runtime-checks | FileCheck %s

// Statically shaped ops: the verifier proved every relation, nothing is added.
// CHECK-LABEL: func.func @static_attention
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @static_attention(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>,
                            %v: tensor<1x2x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal}
      : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// A dynamic query length alone relates to nothing else: no check.
// CHECK-LABEL: func.func @dynamic_tq_only
// CHECK-NOT: cf.assert
func.func @dynamic_tq_only(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x8x16xf32>,
                           %v: tensor<1x2x8x16xf32>) -> tensor<1x4x?x16xf32> {
  %attn_c2_1 = arith.constant 2 : index
  %attn_d0_2_1 = tensor.dim %q, %attn_c2_1 : tensor<1x4x?x16xf32>
  %attn_init1 = tensor.empty(%attn_d0_2_1) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v
      outs(%attn_init1 : tensor<1x4x?x16xf32>)
      : tensor<1x4x?x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
      -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

// -----

// Key and value lengths: one check, before the op, comparing the two dims.
// CHECK-LABEL: func.func @kv_lengths_differ
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x16xf32>, %[[K:.*]]: tensor<1x2x?x16xf32>, %[[V:.*]]: tensor<1x2x?x16xf32>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[VT:.*]] = tensor.dim %[[V]], %[[C2]]
// CHECK-DAG: %[[KT:.*]] = tensor.dim %[[K]], %[[C2]]
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[VT]], %[[KT]] : index
// CHECK: cf.assert %[[EQ]], "{{.*}}insert-runtime-checks.mlir:{{[0-9]+}}:{{[0-9]+}}: 'pe.attention' op expects key and value of one sequence length"
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @kv_lengths_differ(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>,
                             %v: tensor<1x2x?x16xf32>) -> tensor<1x4x?x16xf32> {
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %q, %attn_c2_2 : tensor<1x4x?x16xf32>
  %attn_init2 = tensor.empty(%attn_d0_2_2) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init2 : tensor<1x4x?x16xf32>) {causal}
      : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>
      -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

// -----

// Everything dynamic: batch, heads (GQA divisibility), head dimension, the
// result type more static than the operands, a broadcast bias, kv_lengths.
// CHECK-LABEL: func.func @all_dynamic
// CHECK: cf.assert {{.*}} "{{.*}}expects key and query of one batch size"
// CHECK: cf.assert {{.*}} "{{.*}}expects value and query of one batch size"
// CHECK: cf.assert {{.*}} "{{.*}}expects query and key of one head dimension"
// CHECK: cf.assert {{.*}} "{{.*}}expects key and value of one head count"
// CHECK: cf.assert {{.*}} "{{.*}}expects key and value of one sequence length"
// CHECK: arith.cmpi sge
// CHECK: cf.assert {{.*}} "{{.*}}expects at least one query head"
// CHECK: cf.assert {{.*}} "{{.*}}expects at least one key/value head"
// CHECK: cf.assert {{.*}} "{{.*}}expects a head dimension of at least 1"
// CHECK: arith.remui
// CHECK: cf.assert {{.*}} "{{.*}}expects the query heads to be a multiple of the key/value heads"
// CHECK: cf.assert {{.*}} "{{.*}}expects the result type's dimension 3 to match the operands"
// CHECK: arith.ori
// CHECK: cf.assert {{.*}} "{{.*}}expects bias dimension 1 to be 1 or the score dimension [B, H, Tq, Tk]"
// CHECK: cf.assert {{.*}} "{{.*}}expects bias dimension 0 to be 1 or the score dimension [B, H, Tq, Tk]"
// CHECK: cf.assert {{.*}} "{{.*}}expects one kv_lengths entry per batch"
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @all_dynamic(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>,
                       %v: tensor<?x?x?x?xf32>, %b: tensor<?x?xf32>,
                       %l: tensor<?xi32>) -> tensor<?x?x?x8xf32> {
  %attn_c0_3 = arith.constant 0 : index
  %attn_d0_0_3 = tensor.dim %q, %attn_c0_3 : tensor<?x?x?x?xf32>
  %attn_c1_3 = arith.constant 1 : index
  %attn_d0_1_3 = tensor.dim %q, %attn_c1_3 : tensor<?x?x?x?xf32>
  %attn_c2_3 = arith.constant 2 : index
  %attn_d0_2_3 = tensor.dim %q, %attn_c2_3 : tensor<?x?x?x?xf32>
  %attn_init3 = tensor.empty(%attn_d0_0_3, %attn_d0_1_3, %attn_d0_2_3) : tensor<?x?x?x8xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<?xi32>)
      bias(%b : tensor<?x?xf32>) outs(%attn_init3 : tensor<?x?x?x8xf32>) {scale = 0.25 : f64}
      : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
      -> tensor<?x?x?x8xf32>
  return %0 : tensor<?x?x?x8xf32>
}

// -----

// A bias dimension of static size 1 always broadcasts: no check for it.
// CHECK-LABEL: func.func @bias_static_one
// CHECK: cf.assert {{.*}} "{{.*}}expects bias dimension 1 to be 1 or
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @bias_static_one(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>,
                           %v: tensor<1x4x8x16xf32>, %b: tensor<1x?xf32>)
    -> tensor<1x4x8x16xf32> {
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<1x?xf32>)
      outs(%attn_init4 : tensor<1x4x8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
      -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// The rope encoding of attention: caches of one shape with rows.
// CHECK-LABEL: func.func @attention_rope_cache
// CHECK: cf.assert {{.*}} "{{.*}}expects cos and sin caches of one shape (dimension 0)"
// CHECK: cf.assert {{.*}} "{{.*}}expects caches with at least one row"
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @attention_rope_cache(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>,
                                %v: tensor<1x4x8x16xf32>, %cos: tensor<?x8xf32>,
                                %sin: tensor<?x8xf32>, %p: index)
    -> tensor<1x4x8x16xf32> {
  %attn_init5 = tensor.empty() : tensor<1x4x8x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> cache(%cos, %sin : tensor<?x8xf32>, tensor<?x8xf32>)
      query_offset(%p : index) key_offset(%p : index)
      outs(%attn_init5 : tensor<1x4x8x16xf32>)
      : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
      -> tensor<1x4x8x16xf32>
  return %0 : tensor<1x4x8x16xf32>
}

// -----

// pe.rope: positions as long as the tokens, caches of one length with rows.
// CHECK-LABEL: func.func @rope_checks
// CHECK: cf.assert {{.*}} "{{.*}}'pe.rope' op expects positions as long as the sequence dimension"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.rope' op expects cos and sin caches of one shape (dimension 0)"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.rope' op expects caches with at least one row"
// CHECK-NOT: cf.assert
// CHECK: pe.rope
func.func @rope_checks(%x: tensor<1x2x?x16xf32>, %cos: tensor<?x8xf32>,
                       %sin: tensor<?x8xf32>, %p: tensor<?xi64>)
    -> tensor<1x2x?x16xf32> {
  %0 = pe.rope half %x cache(%cos, %sin : tensor<?x8xf32>, tensor<?x8xf32>)
      positions(%p : tensor<?xi64>) : tensor<1x2x?x16xf32>
  return %0 : tensor<1x2x?x16xf32>
}

// -----

// pe.rope with per-token caches: one row per (batch, token).
// CHECK-LABEL: func.func @rope_per_token
// CHECK: cf.assert {{.*}} "{{.*}}expects cos and sin caches of one shape (dimension 0)"
// CHECK: cf.assert {{.*}} "{{.*}}expects cos and sin caches of one shape (dimension 1)"
// CHECK: cf.assert {{.*}} "{{.*}}expects per-token caches with the input's batch size"
// CHECK: cf.assert {{.*}} "{{.*}}expects per-token caches with one row per token"
// CHECK-NOT: cf.assert
// CHECK: pe.rope
func.func @rope_per_token(%x: tensor<?x?x4x16xf32>, %cos: tensor<?x?x8xf32>,
                          %sin: tensor<?x?x8xf32>) -> tensor<?x?x4x16xf32> {
  %0 = pe.rope half %x cache(%cos, %sin : tensor<?x?x8xf32>, tensor<?x?x8xf32>)
      {sequence_dim = 1 : i64} : tensor<?x?x4x16xf32>
  return %0 : tensor<?x?x4x16xf32>
}

// -----

// pe.rope with a dynamic inv_freq table.
// CHECK-LABEL: func.func @rope_inv_freq
// CHECK: %[[N:.*]] = arith.constant 8 : index
// CHECK: cf.assert {{.*}} "{{.*}}expects inv_freq of length rotary_dim / 2"
// CHECK-NOT: cf.assert
func.func @rope_inv_freq(%x: tensor<1x2x4x16xf32>, %f: tensor<?xf32>)
    -> tensor<1x2x4x16xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<?xf32>) : tensor<1x2x4x16xf32>
  return %0 : tensor<1x2x4x16xf32>
}

// -----

// pe.add_learned: table columns and rows, [B, T] positions.
// CHECK-LABEL: func.func @learned_checks
// CHECK: cf.assert {{.*}} "{{.*}}'pe.add_learned' op expects [B, T] positions with the input's batch size"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.add_learned' op expects [B, T] positions as long as the sequence dimension"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.add_learned' op expects a table with one column per channel"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.add_learned' op expects a table with at least one row"
// CHECK-NOT: cf.assert
func.func @learned_checks(%x: tensor<?x?x8xf32>, %t: tensor<?x?xf32>,
                          %p: tensor<?x?xi64>) -> tensor<?x?x8xf32> {
  %0 = pe.add_learned %x, %t positions(%p : tensor<?x?xi64>)
      : tensor<?x?x8xf32>, tensor<?x?xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// pe.add_sinusoidal with an offset: nothing to check.
// CHECK-LABEL: func.func @sinusoidal_offset
// CHECK-NOT: cf.assert
func.func @sinusoidal_offset(%x: tensor<?x?x8xf32>, %o: index) -> tensor<?x?x8xf32> {
  %0 = pe.add_sinusoidal interleaved %x offset(%o : index) : tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// pe.add_sinusoidal with positions.
// CHECK-LABEL: func.func @sinusoidal_positions
// CHECK: cf.assert {{.*}} "{{.*}}'pe.add_sinusoidal' op expects positions as long as the sequence dimension"
// CHECK-NOT: cf.assert
func.func @sinusoidal_positions(%x: tensor<?x8xf32>, %p: tensor<?xi32>) -> tensor<?x8xf32> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<?xi32>) : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// pe.alibi_bias: sizes non-negative, the result addressable, slopes per head.
// CHECK-LABEL: func.func @alibi_checks
// CHECK-SAME: (%[[TQ:.*]]: index, %[[TK:.*]]: index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi sge, %[[TQ]], %[[Z]]
// CHECK: cf.assert {{.*}} "{{.*}}'pe.alibi_bias' op expects non-negative sizes"
// CHECK: arith.cmpi sge, %[[TK]]
// CHECK: cf.assert {{.*}} "{{.*}}'pe.alibi_bias' op expects non-negative sizes"
// 2^47 bytes / (4 bytes) / 12 heads:
// CHECK: arith.constant 2932031007402 : index
// CHECK: arith.divui
// CHECK: cf.assert {{.*}} "{{.*}}'pe.alibi_bias' op expects a result of at most 2^47 bytes"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.alibi_bias' op expects one slope per head"
// CHECK-NOT: cf.assert
func.func @alibi_checks(%tq: index, %tk: index, %s: tensor<?xf32>) -> tensor<12x?x?xf32> {
  %0 = pe.alibi_bias symmetric [%tq, %tk] slopes(%s : tensor<?xf32>) : tensor<12x?x?xf32>
  return %0 : tensor<12x?x?xf32>
}

// -----

// pe.alibi_bias with constant sizes: nothing.
// CHECK-LABEL: func.func @alibi_static
// CHECK-NOT: cf.assert
func.func @alibi_static() -> tensor<12x?x?xf32> {
  %c4 = arith.constant 4 : index
  %0 = pe.alibi_bias symmetric [%c4, %c4] : tensor<12x?x?xf32>
  return %0 : tensor<12x?x?xf32>
}

// -----

// Sizes of a produced operand are asked of its producer, so the checks add no
// user to it (fusion moves single-use producers): the alibi_bias result and
// the rope result keep one use each.
// CHECK-LABEL: func.func @producers_keep_one_use
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x?x16xf32>, %[[K:[^:]*]]: tensor<1x4x?x16xf32>, %[[V:[^:]*]]: tensor<1x4x?x16xf32>, %[[TQ:[^:]*]]: index, %[[TK:[^:]*]]: index
// CHECK: %[[R:.*]] = pe.rope
// CHECK-NOT: tensor.dim %[[R]],
// CHECK: %[[B:.*]] = pe.alibi_bias
// CHECK-NOT: tensor.dim %[[R]],
// CHECK-NOT: tensor.dim %[[B]],
// CHECK: arith.cmpi eq, %[[TK]], %{{.*}}
// CHECK: cf.assert {{.*}} "{{.*}}expects bias dimension 2 to be 1 or
// CHECK-NOT: tensor.dim %[[R]],
// CHECK-NOT: tensor.dim %[[B]],
// CHECK: %[[QT:.*]] = tensor.dim %[[Q]], %{{.*}}
// CHECK: arith.cmpi eq, %[[TQ]], %[[QT]]
// CHECK: cf.assert {{.*}} "{{.*}}expects bias dimension 1 to be 1 or
// CHECK: pe.attention %[[R]], %[[K]], %[[V]] bias(%[[B]]
func.func @producers_keep_one_use(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>,
                                  %v: tensor<1x4x?x16xf32>, %tq: index, %tk: index,
                                  %f: tensor<8xf32>) -> tensor<1x4x?x16xf32> {
  %r = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x?x16xf32>
  %b = pe.alibi_bias symmetric [%tq, %tk] : tensor<4x?x?xf32>
  %attn_c2_6 = arith.constant 2 : index
  %attn_d0_2_6 = tensor.dim %q, %attn_c2_6 : tensor<1x4x?x16xf32>
  %attn_init6 = tensor.empty(%attn_d0_2_6) : tensor<1x4x?x16xf32>
  %0 = pe.attention %r, %k, %v bias(%b : tensor<4x?x?xf32>)
      outs(%attn_init6 : tensor<1x4x?x16xf32>)
      : tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>
      -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

// -----

// A destination sized by something else than the operands (here a function
// argument): its dynamic sizes are the results' at run time, checked
// against the operands; lse by meaning ([B, H, Tq] of a bshd query).
// CHECK-LABEL: func.func @destination_sizes
// CHECK-SAME: %[[N:[a-z0-9]+]]: index, %[[M:[a-z0-9]+]]: index)
// CHECK: cf.assert {{.*}} "{{.*}}expects key and value of one sequence length"
// CHECK: %[[TQ:.*]] = tensor.dim %{{.*}}, %c1{{.*}} : tensor<1x?x4x16xf32>
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %[[TQ]]
// CHECK: cf.assert %[[OK]], "{{.*}}expects the result destination's dimension 1 to match the operands"
// CHECK: %[[TQ2:.*]] = tensor.dim %{{.*}}, %c1{{.*}} : tensor<1x?x4x16xf32>
// CHECK: %[[OK2:.*]] = arith.cmpi eq, %[[M]], %[[TQ2]]
// CHECK: cf.assert %[[OK2]], "{{.*}}expects the lse destination's dimension 2 to match the operands"
// CHECK-NOT: cf.assert
// CHECK: pe.attention
func.func @destination_sizes(%q: tensor<1x?x4x16xf32>, %n: index, %m: index)
    -> (tensor<1x?x4x16xf32>, tensor<1x4x?xf32>) {
  %init = tensor.empty(%n) : tensor<1x?x4x16xf32>
  %lse_init = tensor.empty(%m) : tensor<1x4x?xf32>
  %0:2 = pe.attention %q, %q, %q outs(%init, %lse_init : tensor<1x?x4x16xf32>, tensor<1x4x?xf32>)
      {layout = #pe<attention_layout bshd>}
      : tensor<1x?x4x16xf32>, tensor<1x?x4x16xf32>, tensor<1x?x4x16xf32>
      -> tensor<1x?x4x16xf32>, tensor<1x4x?xf32>
  return %0#0, %0#1 : tensor<1x?x4x16xf32>, tensor<1x4x?xf32>
}

// -----

// pe.attention's RoPE positions tensors: [Tq] query positions and [B, Tk] key
// positions of dynamic sizes are checked against the query's and the key's
// tokens (and the batch).
// CHECK-LABEL: func.func @attention_positions
// CHECK: cf.assert {{.*}} "{{.*}}'pe.attention' op expects positions as long as the sequence dimension"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.attention' op expects [B, T] positions with the input's batch size"
// CHECK: cf.assert {{.*}} "{{.*}}'pe.attention' op expects [B, T] positions as long as the sequence dimension"
func.func @attention_positions(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x12x16xf32>, %f: tensor<8xf32>,
                               %pq: tensor<?xi32>, %pk: tensor<?x?xi64>) -> tensor<2x4x8x16xf32> {
  %init = tensor.empty() : tensor<2x4x8x16xf32>
  %0 = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%pq : tensor<?xi32>) key_positions(%pk : tensor<?x?xi64>) outs(%init : tensor<2x4x8x16xf32>) : tensor<2x4x8x16xf32>, tensor<2x4x12x16xf32>, tensor<2x4x12x16xf32> -> tensor<2x4x8x16xf32>
  return %0 : tensor<2x4x8x16xf32>
}
