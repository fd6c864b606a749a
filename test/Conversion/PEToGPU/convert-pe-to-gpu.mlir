// RUN: pe-opt %s --split-input-file --convert-pe-to-gpu="block-rows=32 key-tile=16" | FileCheck %s

// GQA (8 query heads over 2 KV heads), causal, dynamic sequence length: one
// block per (32 rows of the 4 x Tq (head, token) pairs of a KV head, KV head,
// batch); K and V tiles of 16 keys in workgroup memory, the query row, the
// output accumulator and the tile's scores in private memory; the index
// scalars in one i64 buffer; two barriers per key tile.
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x?x64xf32>, %[[K:.*]]: tensor<2x2x?x64xf32>, %[[V:.*]]: tensor<2x2x?x64xf32>)
// The destination (the kernel writes a buffer of its own).
// CHECK: tensor.empty(%{{.*}}) : tensor<2x8x?x64xf32>
// CHECK: %[[TQ:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<2x8x?x64xf32>
// CHECK: %[[QB:.*]] = bufferization.to_buffer %[[Q]] read_only
// CHECK: %[[QF:.*]] = memref.collapse_shape %[[QB]] {{\[\[}}0, 1, 2, 3]] : memref<2x8x?x64xf32> into memref<?xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[TQ]]) {alignment = 64 : i64} : memref<2x8x?x64xf32>
// CHECK: %[[PARAMS:.*]] = memref.alloc() : memref<4xi64>
// CHECK: arith.muli %c4{{[_0-9]*}}, %[[TQ]] : index
// CHECK: %[[GX:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// No launch for an empty grid (Tq = 0).
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ugt, %[[GX]], %c0
// CHECK: scf.if %{{.*}} {
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BZ:[a-z0-9_]+]]) in (%{{[a-z0-9_]+}} = %[[GX]], %{{[a-z0-9_]+}} = %c2{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c2{{[_0-9]*}}) threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c32{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}})
// CHECK-SAME: workgroup(%[[KS:[a-z0-9_]+]] : memref<16x64xf32, #gpu.address_space<workgroup>>, %[[VS:[a-z0-9_]+]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: private(%[[QP:[a-z0-9_]+]] : memref<64xf32, #gpu.address_space<private>>, %[[ACC:[a-z0-9_]+]] : memref<64xf32, #gpu.address_space<private>>, %[[SP:[a-z0-9_]+]] : memref<16xf32, #gpu.address_space<private>>)
// CHECK: memref.load %[[PARAMS]]
// The query row, times the default scale 1/sqrt(64).
// CHECK: memref.load %[[QF]]
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[QP]]
// CHECK: scf.for {{.*}} iter_args(%[[M:[a-z0-9_]+]] = %{{.*}}, %[[L:[a-z0-9_]+]] = %{{.*}}) -> (f32, f32)
// K and V staged by all 32 threads, stride 32.
// CHECK: scf.for %{{.*}} = %[[TX]] to %c1024{{[_0-9]*}} step %c32
// CHECK: memref.store %{{.*}}, %[[KS]]
// CHECK: scf.for %{{.*}} = %[[TX]] to %c1024{{[_0-9]*}} step %c32
// CHECK: memref.store %{{.*}}, %[[VS]]
// CHECK: gpu.barrier
// Scores: q . K[j], the causal and length masks, the tile's max.
// CHECK: math.fma
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK: memref.store %{{.*}}, %[[SP]]
// CHECK: arith.maximumf
// Online softmax: one rescale of the accumulator, then P V.
// CHECK: %[[MNEW:.*]] = arith.maximumf %[[M]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[ACC]]
// CHECK: math.exp
// CHECK: memref.load %[[VS]]
// CHECK: gpu.barrier
// CHECK: scf.yield %[[MNEW]]
// Epilogue: O / l into the result, by active rows only.
// CHECK: scf.if
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<?xf32>
// CHECK: gpu.terminator
// CHECK: bufferization.to_tensor %[[OUT]]
func.func @gqa(%q: tensor<2x8x?x64xf32>, %k: tensor<2x2x?x64xf32>, %v: tensor<2x2x?x64xf32>) -> tensor<2x8x?x64xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<2x8x?x64xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<2x8x?x64xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<2x8x?x64xf32>) {causal} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return %0 : tensor<2x8x?x64xf32>
}

// -----

// Every encoding at once, f16 in [B, S, H, D]: partial interleaved RoPE
// (cos/sin tables of the query and key positions computed on the host in
// f64), signed ALiBi with the paper's slopes of 4 heads, softcap after the bias, a
// sliding window with kv_lengths, and the lse result. f16 is converted as it
// is loaded and the result is rounded once.
// CHECK-LABEL: func.func @encodings
// CHECK: memref.copy %{{.*}}, %[[LEN:.*]] : memref<1xi32> to memref<1xi32>
// CHECK: scf.for
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: scf.for
// CHECK: math.cos %{{.*}} : f64
// CHECK: arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf32>
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[LEN]]
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: gpu.barrier
// CHECK: math.fma
// CHECK: arith.subf
// CHECK: math.fma
// CHECK: math.tanh
// CHECK: gpu.barrier
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: math.log
func.func @encodings(%q: tensor<1x8x4x32xf16>, %k: tensor<1x16x2x32xf16>, %v: tensor<1x16x2x32xf16>, %f: tensor<8xf64>, %l: tensor<1xi32>) -> (tensor<1x8x4x32xf16>, tensor<1x4x8xf32>) {
  %attn_init1 = tensor.empty() : tensor<1x8x4x32xf16>
  %attn_lse_init1 = tensor.empty() : tensor<1x4x8xf32>
  %0, %lse = pe.attention %q, %k, %v kv_lengths(%l : tensor<1xi32>) rope <interleaved, rotary_dim = 16> inv_freq(%f : tensor<8xf64>) alibi <signed> outs(%attn_init1, %attn_lse_init1 : tensor<1x8x4x32xf16>, tensor<1x4x8xf32>) {causal, window = 4 : i64, layout = #pe<attention_layout bshd>, softcap = 20.0, softcap_order = #pe<softcap_order after_bias>} : tensor<1x8x4x32xf16>, tensor<1x16x2x32xf16>, tensor<1x16x2x32xf16> -> tensor<1x8x4x32xf16>, tensor<1x4x8xf32>
  return %0, %lse : tensor<1x8x4x32xf16>, tensor<1x4x8xf32>
}

// -----

// A standalone pe.rope: the host table, then one thread per rotated pair or
// copied channel (8 pairs + 16 copied channels per row of 32).
// CHECK-LABEL: func.func @rope
// CHECK: math.cos %{{.*}} : f64
// CHECK: gpu.launch blocks({{.*}}) in (%{{[a-z0-9_]+}} = %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}}) threads({{.*}}) in (%{{[a-z0-9_]+}} = %c128{{[_0-9]*}},
// CHECK: arith.remui %{{.*}}, %c24
// CHECK: arith.cmpi ult, %{{.*}}, %c8
// CHECK: scf.if
// CHECK: math.fma
// CHECK: } else {
// CHECK: gpu.terminator
func.func @rope(%x: tensor<2x?x32xf32>, %f: tensor<8xf32>) -> tensor<2x?x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) {rotary_dim = 16 : i64} : tensor<2x?x32xf32>
  return %0 : tensor<2x?x32xf32>
}

// -----

// A pe.add_sinusoidal: the [T, C] encoding in f64 on the host (sin or cos by
// channel, 0 for the pad column of an odd concat layout), then one thread per
// element adding it in f64 (after the input scale sqrt(C) = 3), rounded once.
// CHECK-LABEL: func.func @sinusoidal
// CHECK: %[[PE:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[COS:.*]] = math.cos %{{.*}} : f64
// CHECK: %[[SIN:.*]] = math.sin %{{.*}} : f64
// CHECK: arith.select %{{.*}}, %[[COS]], %[[SIN]] : f64
// CHECK: memref.store %{{.*}}, %[[PE]]
// CHECK: gpu.launch
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f64
// CHECK: memref.load %[[PE]]
// CHECK: arith.addf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: gpu.terminator
func.func @sinusoidal(%x: tensor<2x?x9xf32>) -> tensor<2x?x9xf32> {
  %0 = pe.add_sinusoidal concat %x {scale_input} : tensor<2x?x9xf32>
  return %0 : tensor<2x?x9xf32>
}
