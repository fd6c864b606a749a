// pe-fuse-rope-into-attention compares the query's and the key's frequency
// sources by value, not by SSA identity: raising (pe-raise) builds one
// tensor.extract_slice of the cos/sin tables, or one frequency table, per
// rotated tensor, and without CSE in between the two ropes' tables are
// distinct but equal values. Equal side-effect-free producer chains (the same
// ops, attributes and operands, recursively) and equal constants fuse; chains
// that differ anywhere do not, with the remark.
// RUN: pe-opt %s --pe-fuse-rope-into-attention --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-fuse-rope-into-attention --split-input-file --remarks-filter='pe-.*' --verify-diagnostics -o /dev/null

// Two slices of the same tables at the same (dynamic) offset.
// CHECK-LABEL: func @equal_slices
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<1x4x8x16xf32>, %[[K:[^:]*]]: tensor<1x4x8x16xf32>, %[[V:[^:]*]]: tensor<1x4x8x16xf32>, %[[COS:[^:]*]]: tensor<64x8xf32>, %[[SIN:[^:]*]]: tensor<64x8xf32>, %[[P:[^:]*]]: index)
// CHECK: %[[C:.*]] = tensor.extract_slice %[[COS]][%[[P]], 0] [8, 8] [1, 1]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[SIN]][%[[P]], 0] [8, 8] [1, 1]
// CHECK-NOT: pe.rope
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] rope <half> cache(%[[C]], %[[S]] : tensor<8x8xf32>, tensor<8x8xf32>) outs(
// CHECK-NOT: pe.rope
func.func @equal_slices(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>,
                        %cos: tensor<64x8xf32>, %sin: tensor<64x8xf32>, %p: index) -> tensor<1x4x8x16xf32> {
  %c1 = tensor.extract_slice %cos[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %s1 = tensor.extract_slice %sin[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %qr = pe.rope half %q cache(%c1, %s1 : tensor<8x8xf32>, tensor<8x8xf32>) : tensor<1x4x8x16xf32>
  %c2 = tensor.extract_slice %cos[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %s2 = tensor.extract_slice %sin[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %kr = pe.rope half %k cache(%c2, %s2 : tensor<8x8xf32>, tensor<8x8xf32>) : tensor<1x4x8x16xf32>
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Two equal constant frequency tables, each scaled by an equal chain of
// elementwise ops (distinct ops, the same structure), and two equal constant
// attention scalings.
// CHECK-LABEL: func @equal_constant_chains
// CHECK-NOT: pe.rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <interleaved> inv_freq(%{{.*}} : tensor<4xf32>) attention_scaling(%{{.*}}) outs(
// CHECK-NOT: pe.rope
func.func @equal_constant_chains(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %f1 = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %h1 = arith.constant dense<0.5> : tensor<4xf32>
  %g1 = arith.mulf %f1, %h1 : tensor<4xf32>
  %m1 = arith.constant 1.25 : f32
  %qr = pe.rope interleaved %q inv_freq(%g1 : tensor<4xf32>) attention_scaling(%m1) : tensor<1x2x8x8xf32>
  %f2 = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %h2 = arith.constant dense<0.5> : tensor<4xf32>
  %g2 = arith.mulf %f2, %h2 : tensor<4xf32>
  %m2 = arith.constant 1.25 : f32
  %kr = pe.rope interleaved %k inv_freq(%g2 : tensor<4xf32>) attention_scaling(%m2) : tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x2x8x8xf32>) : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// Slices at different offsets: different tables, no fusion.
// CHECK-LABEL: func @different_offsets
// CHECK: pe.rope half
// CHECK: pe.rope half
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs(
func.func @different_offsets(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>,
                             %cos: tensor<64x8xf32>, %sin: tensor<64x8xf32>, %p: index, %r: index) -> tensor<1x4x8x16xf32> {
  %c1 = tensor.extract_slice %cos[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %s1 = tensor.extract_slice %sin[%p, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %qr = pe.rope half %q cache(%c1, %s1 : tensor<8x8xf32>, tensor<8x8xf32>) : tensor<1x4x8x16xf32>
  %c2 = tensor.extract_slice %cos[%r, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %s2 = tensor.extract_slice %sin[%r, 0] [8, 8] [1, 1] : tensor<64x8xf32> to tensor<8x8xf32>
  %kr = pe.rope half %k cache(%c2, %s2 : tensor<8x8xf32>, tensor<8x8xf32>) : tensor<1x4x8x16xf32>
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{[Missed] rope-not-fused | Category:pe-fuse-rope-into-attention | Reason="the query's and the key's pe.rope differ in layout, rotary dimension, frequencies or attention scaling"}}
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Equal chains that end in different constants (the last table entry).
// CHECK-LABEL: func @different_constants
// CHECK: pe.rope interleaved
// CHECK: pe.rope interleaved
func.func @different_constants(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %f1 = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %h1 = arith.constant dense<0.5> : tensor<4xf32>
  %g1 = arith.mulf %f1, %h1 : tensor<4xf32>
  %qr = pe.rope interleaved %q inv_freq(%g1 : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %f2 = arith.constant dense<[1.0, 0.1, 0.01, 0.002]> : tensor<4xf32>
  %h2 = arith.constant dense<0.5> : tensor<4xf32>
  %g2 = arith.mulf %f2, %h2 : tensor<4xf32>
  %kr = pe.rope interleaved %k inv_freq(%g2 : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x2x8x8xf32>
  // expected-remark@+1 {{Reason="the query's and the key's pe.rope differ in layout, rotary dimension, frequencies or attention scaling"}}
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x2x8x8xf32>) : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// Equal-looking scalings read from memory: memref.load has an effect (it
// reads the buffer, which may change in between), so two loads are not
// compared by structure and the ropes do not fuse.
// CHECK-LABEL: func @scaling_from_memory
// CHECK: pe.rope half
// CHECK: pe.rope half
func.func @scaling_from_memory(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %m: memref<f32>) -> tensor<1x4x8x16xf32> {
  %m1 = memref.load %m[] : memref<f32>
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) attention_scaling(%m1) : tensor<1x4x8x16xf32>
  %m2 = memref.load %m[] : memref<f32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) attention_scaling(%m2) : tensor<1x4x8x16xf32>
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-remark@+1 {{Reason="the query's and the key's pe.rope differ in layout, rotary dimension, frequencies or attention scaling"}}
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}
