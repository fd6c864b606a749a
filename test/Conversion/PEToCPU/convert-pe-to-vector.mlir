// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=znver4" --convert-pe-to-vector --split-input-file | FileCheck %s

// An attention with RoPE on Q and K and a causal mask becomes one
// generated kernel: cos/sin tables for the query and key positions, then a
// loop nest parallel over (batch, head) with the keys rotated and packed into
// [Tk/64][D][64] blocks, 64-query blocks, causal key-block skipping, 4x64
// outer-product score tiles and the P V update.

// CHECK-LABEL: func @rope_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x32xf32>, %[[K:.*]]: tensor<1x2x?x32xf32>, %[[V:.*]]: tensor<1x2x?x32xf32>, %[[F:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[QM:.*]] = bufferization.to_buffer %[[Q]] read_only : tensor<1x4x?x32xf32> to memref<1x4x?x32xf32>
// CHECK-DAG: %[[KM:.*]] = bufferization.to_buffer %[[K]] read_only
// CHECK-DAG: %[[VM:.*]] = bufferization.to_buffer %[[V]] read_only
// CHECK: %[[OUT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<1x4x?x32xf32>
// Tables: angles and their cos/sin in f64, rounded to f32.
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<16xf32>, vector<16xf32>
// CHECK: arith.extf %{{.*}} : vector<16xf32> to vector<16xf64>
// CHECK: math.roundeven %{{.*}} : vector<16xf64>
// CHECK: math.fma
// CHECK: arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: scf.parallel (%[[B:.*]], %[[H:.*]]) =
// Key packing into blocks of 64 transposed keys, 16 x 16 tiles at a time.
// CHECK: %[[KT:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x32x64xf32>
// CHECK: scf.for
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK: vector.store %{{.*}}, %[[KT]]
// Causal limit of the key blocks: ceil(min(L, last row + o + 1) / 64).
// CHECK: arith.ceildivui %{{.*}}, %c64
// Per group of 4 rows, the number of 16-key score vectors up to the causal
// limit of its last row, min(4, max(0, (limit + 16 - j0) floordiv 16)),
// selects a score tile of that many vectors: none, 4 x 16 .. 4 x 48, or the
// whole 4x64 tile of 16 accumulators over d.
// CHECK: %[[NEED:.*]] = arith.floordivsi %{{.*}}, %c16
// CHECK: %[[LO:.*]] = arith.maxsi %c0{{.*}}, %[[NEED]]
// CHECK: %[[VECS:.*]] = arith.minsi %c4{{.*}}, %[[LO]]
// CHECK: scf.index_switch %[[VECS]]
// CHECK-NEXT: case 0 {
// CHECK-NEXT: scf.yield
// CHECK: case 1 {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-1: vector.load %[[KT]]
// CHECK-COUNT-4: vector.fma
// CHECK: case 2 {
// CHECK: case 3 {
// CHECK: default {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-4: vector.load %[[KT]]
// CHECK-COUNT-16: vector.fma
// Interior blocks skip the masks.
// CHECK: scf.if %{{.*}} -> (vector<16xf32>,
// CHECK: arith.cmpf ole
// The block maxima are x86 max (compare ogt and select); the 4 rows' maxima
// and sums are reduced together by shuffles into one vector (no per-row
// vector.reduction); the running maximum m stays maxnum without nnan, and
// the exponential keeps a NaN (compare-and-select clamp, 2^k from a float
// add).
// CHECK: arith.cmpf ogt
// CHECK-NEXT: arith.select
// CHECK-NOT: vector.reduction
// CHECK: vector.shuffle
// CHECK-NOT: vector.reduction
// CHECK: vector.load %{{.*}} : memref<64xf32>, vector<4xf32>
// CHECK: arith.maxnumf {{.*}} fastmath<reassoc,nsz,contract> : vector<16xf32>
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: math.roundeven %{{.*}} : vector<16xf32>
// CHECK-NOT: arith.fptosi
// CHECK: arith.addf
// CHECK: arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK: arith.shli
// CHECK-NOT: vector.reduction
// CHECK: vector.store %{{.*}} : memref<64xf32>, vector<4xf32>
// P V: 4 rows x 32 columns; on blocks with masked keys, weight-0 keys are
// skipped: each FMA's sum is selected by a lane mask of the broadcast weight
// (p != 0, or NaN), never by a scalar condition, so that x86 merge-masks
// the FMA; interior blocks have plain FMAs.
// CHECK: scf.if
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %[[VM]]
// CHECK: %[[P:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: %[[UPD:.*]] = arith.cmpf une, %[[P]], %{{.*}} : vector<16xf32>
// CHECK-NEXT: %[[SUM:.*]] = vector.fma %[[P]], %{{.*}}, %[[ACC:.*]] : vector<16xf32>
// CHECK-NEXT: arith.select %[[UPD]], %[[SUM]], %[[ACC]] : vector<16xi1>, vector<16xf32>
// CHECK: } else {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load %[[VM]]
// CHECK-NOT: arith.select
// CHECK-COUNT-8: vector.fma
// CHECK: bufferization.to_tensor %[[OUT]] restrict writable
func.func @rope_causal(%q: tensor<1x4x?x32xf32>, %k: tensor<1x2x?x32xf32>, %v: tensor<1x2x?x32xf32>, %f: tensor<16xf32>) -> tensor<1x4x?x32xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x4x?x32xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x32xf32>
  %o = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<16xf32>) outs(%attn_init0 : tensor<1x4x?x32xf32>) {causal}
         : tensor<1x4x?x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x4x?x32xf32>
  return %o : tensor<1x4x?x32xf32>
}

// -----

// ALiBi: the slope of head h comes from a constant table (the paper's
// slopes of 4 heads), times the distance of the key and query positions.
// Not causal, so every score tile is whole: no switch on the number of
// score vectors a group needs.
// CHECK-LABEL: func @alibi
// CHECK: arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf32>
// CHECK: scf.parallel
// CHECK: %[[SLOPE:.*]] = tensor.extract
// CHECK-NOT: scf.index_switch
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT: math.cos
func.func @alibi(%q: tensor<1x4x64x16xf32>) -> tensor<1x4x64x16xf32> {
  %attn_init1 = tensor.empty() : tensor<1x4x64x16xf32>
  %o = pe.attention %q, %q, %q alibi <symmetric> outs(%attn_init1 : tensor<1x4x64x16xf32>) : tensor<1x4x64x16xf32>, tensor<1x4x64x16xf32>, tensor<1x4x64x16xf32> -> tensor<1x4x64x16xf32>
  return %o : tensor<1x4x64x16xf32>
}

// -----

// A plain attention without bias or mask also gets a kernel; bf16 is loaded
// and extended to f32, and the result rounded back.
// CHECK-LABEL: func @plain
// CHECK: scf.parallel
// CHECK: vector.load %{{.*}} : memref<2x2x8x16xbf16>, vector<16xbf16>
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK-NOT: pe.attention
func.func @plain(%q: tensor<2x2x8x16xbf16>) -> tensor<2x2x8x16xbf16> {
  %attn_init2 = tensor.empty() : tensor<2x2x8x16xbf16>
  %o = pe.attention %q, %q, %q outs(%attn_init2 : tensor<2x2x8x16xbf16>) : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x8x16xbf16>
  return %o : tensor<2x2x8x16xbf16>
}

// -----

// Not supported, left for convert-pe-to-linalg: f64 and dynamic head counts
// (head dimensions that are not whole vectors get the kernel with masked
// tails: kernel-tails.mlir).
// CHECK-LABEL: func @unsupported
// CHECK-NOT: scf.parallel
// CHECK-COUNT-2: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}
func.func @unsupported(%h: tensor<1x2x8x16xf64>, %d: tensor<1x?x8x16xf32>)
    -> (tensor<1x2x8x16xf64>, tensor<1x?x8x16xf32>) {
  %attn_init3 = tensor.empty() : tensor<1x2x8x16xf64>
  %0 = pe.attention %h, %h, %h outs(%attn_init3 : tensor<1x2x8x16xf64>) : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64> -> tensor<1x2x8x16xf64>
  %attn_c1_5 = arith.constant 1 : index
  %attn_d0_1_5 = tensor.dim %d, %attn_c1_5 : tensor<1x?x8x16xf32>
  %attn_init5 = tensor.empty(%attn_d0_1_5) : tensor<1x?x8x16xf32>
  %2 = pe.attention %d, %d, %d outs(%attn_init5 : tensor<1x?x8x16xf32>) : tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32> -> tensor<1x?x8x16xf32>
  return %0, %2 : tensor<1x2x8x16xf64>, tensor<1x?x8x16xf32>
}

// -----

// A standalone rope: parallel over (64-token blocks, chunks of the leading
// dims); each task computes the cos/sin rows of its block once and rotates
// every row of its chunk with them; the half layout pairs the vector at
// channel i with the one at i + R/2. Results of 32 MiB or more use streaming
// stores (with a dynamic size, decided at run time: both versions).
// CHECK-LABEL: func @rope
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x?x64xf32>, %[[F:.*]]: tensor<32xf32>)
// CHECK: %[[XM:.*]] = bufferization.to_buffer %[[X]] read_only
// CHECK: %[[X3:.*]] = memref.collapse_shape %[[XM]] {{\[\[}}0, 1], [2], [3]] : memref<2x4x?x64xf32> into memref<8x?x64xf32>
// CHECK: %[[O3:.*]] = memref.collapse_shape
// CHECK: scf.parallel
// CHECK: math.roundeven %{{.*}} : vector<16xf64>
// CHECK: scf.if
// CHECK: %[[LO:.*]] = vector.load %[[X3]][%{{.*}}, %{{.*}}, %c0{{.*}}] : memref<8x?x64xf32>, vector<16xf32>
// CHECK: %[[HI:.*]] = vector.load %[[X3]][%{{.*}}, %{{.*}}, %c32{{.*}}] : memref<8x?x64xf32>, vector<16xf32>
// CHECK: arith.subf
// CHECK: math.fma
// CHECK: vector.store %{{.*}}, %[[O3]][{{.*}}] {alignment = 64 : i64, nontemporal = true} : memref<8x?x64xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: vector.store %{{.*}}, %[[O3]][{{.*}}] : memref<8x?x64xf32>, vector<16xf32>
// CHECK-NOT: pe.rope
func.func @rope(%x: tensor<2x4x?x64xf32>, %f: tensor<32xf32>) -> tensor<2x4x?x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) : tensor<2x4x?x64xf32>
  return %0 : tensor<2x4x?x64xf32>
}

// -----

// Explicit positions: the table rows of a token block come from the
// positions buffer, each row's angle from its own position (sign-extended,
// in f64); a [B, T] tensor is flattened and each task takes one batch's
// leading rows.
// CHECK-LABEL: func @rope_positions
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<8xi64>
// CHECK: %[[PM:.*]] = bufferization.to_buffer %[[P]] read_only : tensor<8xi64> to memref<8xi64>
// CHECK: scf.parallel
// CHECK: %[[POS:.*]] = memref.load %[[PM]][%{{.*}}] : memref<8xi64>
// CHECK: arith.index_cast %[[POS]] : i64 to index
// CHECK: arith.sitofp %{{.*}} : i64 to f64
// CHECK-NOT: pe.rope
func.func @rope_positions(%x: tensor<8x64xf32>, %f: tensor<32xf32>, %p: tensor<8xi64>) -> tensor<8x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) positions(%p : tensor<8xi64>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// CHECK-LABEL: func @rope_batch_positions
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<2x8xi32>
// CHECK: %[[PM:.*]] = bufferization.to_buffer %[[P]] read_only : tensor<2x8xi32> to memref<2x8xi32>
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[PM]] {{\[\[}}0, 1]] : memref<2x8xi32> into memref<16xi32>
// CHECK: scf.parallel
// CHECK: %[[POS:.*]] = memref.load %[[FLAT]][%{{.*}}] : memref<16xi32>
// CHECK: arith.index_cast %[[POS]] : i32 to index
// CHECK-NOT: pe.rope
func.func @rope_batch_positions(%x: tensor<2x4x8x64xf32>, %f: tensor<32xf32>, %p: tensor<2x8xi32>) -> tensor<2x4x8x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) positions(%p : tensor<2x8xi32>) : tensor<2x4x8x64xf32>
  return %0 : tensor<2x4x8x64xf32>
}

// -----

// add_sinusoidal, interleaved: channels (2k, 2k+1) are the sin and cos of one
// angle, so each vector of 16 channels takes 8 f64 angles, one reduction to
// [-pi/4, pi/4] and both polynomials, zipped; x + PE in f64, one rounding.
// With small angles (a run-time test per 64-token block) only the block's
// first row is evaluated so; each next row is the previous one rotated by
// the angle-addition formulas (the tables of sin w and cos w per pair).
// CHECK-LABEL: func @sinusoidal
// CHECK-DAG: arith.constant dense<[1.000000e+00, {{.*}}]> : tensor<8xf64>
// CHECK-DAG: arith.constant dense<[0.8414709848078965, {{.*}}]> : tensor<8xf64>
// CHECK-DAG: arith.constant dense<[0.54030230586813977, {{.*}}]> : tensor<8xf64>
// CHECK: scf.parallel
// CHECK: arith.cmpf ole
// CHECK: scf.if
// CHECK: vector.load %{{.*}} : memref<8xf64>, vector<8xf64>
// CHECK: math.roundeven %{{.*}} : vector<8xf64>
// CHECK: arith.fptosi %{{.*}} : vector<8xf64> to vector<8xi64>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15] : vector<8xf64>, vector<8xf64>
// CHECK: arith.extf %{{.*}} : vector<16xf32> to vector<16xf64>
// CHECK: arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}} : vector<8xf64>
// CHECK: math.fma %{{.*}} : vector<8xf64>
// CHECK: vector.shuffle
// CHECK: } else {
// CHECK: math.roundeven %{{.*}} : vector<8xf64>
// CHECK-NOT: math.sin
// CHECK-NOT: pe.add_sinusoidal
func.func @sinusoidal(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Concat whose halves are not whole vectors (h = 8): one sine per channel,
// the cos half shifted by a quarter turn (1 in the shift table).
// CHECK-LABEL: func @sinusoidal_odd
// CHECK-DAG: arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]> : tensor<16xi64>
// CHECK: math.roundeven %{{.*}} : vector<16xf64>
func.func @sinusoidal_odd(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Not supported: f64 (the reference lowering computes in f64; f16, bf16 and
// positions tensors: seq-kernel-forms.mlir).
// CHECK-LABEL: func @sinusoidal_unsupported
// CHECK: pe.add_sinusoidal
func.func @sinusoidal_unsupported(%h: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %0 = pe.add_sinusoidal interleaved %h : tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}

// -----

// Channels that are not whole vectors (12 of 16 lanes): the per-channel
// tables padded to whole vectors (frequency 0, kept 0), the row's last
// vector read and written with a mask.
// CHECK-LABEL: func @sinusoidal_tail
// CHECK: arith.constant dense<[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]> : tensor<16xi64>
// CHECK: vector.constant_mask [12] : vector<16xi1>
// CHECK: vector.maskedload %{{.*}} : memref<1x8x12xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.maskedstore %{{.*}} : memref<1x8x12xf32>, vector<16xi1>, vector<16xf32>
// CHECK-NOT: pe.add_sinusoidal
func.func @sinusoidal_tail(%y: tensor<8x12xf32>) -> tensor<8x12xf32> {
  %0 = pe.add_sinusoidal concat %y : tensor<8x12xf32>
  return %0 : tensor<8x12xf32>
}

// -----

// Decode (one query per head): parallel over (batch, KV head), the 4 query
// heads of a GQA group together; scores straight from the row-major keys
// (no packing), 16 keys at a time, each key row loaded once for the group's
// heads, the products of (head, key) stored in a [4 x 16, 16] buffer and
// summed per head by a transposing shuffle tree into one vector of 16 scores
// (the last keys one at a time), each head's running maximum kept on the
// way; the scores in a [4, Tk + 16] buffer (on the heap: Tk is not known at
// compile time), the small buffers on the stack; then P V.
// CHECK-LABEL: func @decode
// CHECK: scf.parallel (%{{.*}}, %[[KVH:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %c2{{.*}})
// CHECK: %[[D:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64x16xf32>
// CHECK: %[[S:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<4x?xf32>
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[KVH]], %{{.*}}, %{{.*}}] : memref<1x2x?x32xf32>, vector<16xf32>
// CHECK: vector.fma
// CHECK: vector.store %{{.*}}, %[[D]]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK: vector.store %{{.*}}, %[[S]][%{{.*}}, %[[J0]]]
// CHECK: scf.for %[[J:.*]] =
// CHECK: vector.reduction <add>
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: arith.maxnumf %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <maxnumf>
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK-NOT: memref<?x32x64xf32>
// CHECK: return
func.func @decode(%q: tensor<1x8x1x32xf32>, %k: tensor<1x2x?x32xf32>) -> tensor<1x8x1x32xf32> {
  %attn_init7 = tensor.empty() : tensor<1x8x1x32xf32>
  %o = pe.attention %q, %k, %k outs(%attn_init7 : tensor<1x8x1x32xf32>) : tensor<1x8x1x32xf32>, tensor<1x2x?x32xf32>, tensor<1x2x?x32xf32> -> tensor<1x8x1x32xf32>
  return %o : tensor<1x8x1x32xf32>
}

// -----

// No prediction of later fusion: pe-fuse-absolute-pe has already run on the
// pe ops, and a row tile it left inside a loop (dynamic rows, an offset) is
// an encoding like any other, lowered by the generated kernel.
// CHECK-LABEL: func @sinusoidal_row_tile
// CHECK: scf.for
// CHECK-NOT: pe.add_sinusoidal
// CHECK: vector.store
// CHECK: linalg.matmul
func.func @sinusoidal_row_tile(%x: tensor<100x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<100x8xf32>) -> tensor<100x8xf32> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c100 = arith.constant 100 : index
  %r = scf.for %i = %c0 to %c100 step %c32 iter_args(%a = %acc) -> (tensor<100x8xf32>) {
    %n = affine.min affine_map<(d0) -> (-d0 + 100, 32)>(%i)
    %xs = tensor.extract_slice %x[%i, 0] [%n, 16] [1, 1] : tensor<100x16xf32> to tensor<?x16xf32>
    %e = pe.add_sinusoidal interleaved %xs offset(%i : index) : tensor<?x16xf32>
    %as = tensor.extract_slice %a[%i, 0] [%n, 8] [1, 1] : tensor<100x8xf32> to tensor<?x8xf32>
    %y = linalg.matmul ins(%e, %w : tensor<?x16xf32>, tensor<16x8xf32>) outs(%as : tensor<?x8xf32>) -> tensor<?x8xf32>
    %u = tensor.insert_slice %y into %a[%i, 0] [%n, 8] [1, 1] : tensor<?x8xf32> into tensor<100x8xf32>
    scf.yield %u : tensor<100x8xf32>
  }
  return %r : tensor<100x8xf32>
}

// -----

// Masks from indices in the kernel: the batch's valid length L[b] is loaded
// and clamped (in 64 bits) inside the (batch, head) loop; the key blocks run
// from the window's first block to the causal limit's: the keys [lo, hi)
// of the query block, lo = min(hi, max(0, q0 + o - W + 1)), as blocks
// [floor(lo / 64), ceil(hi / 64)), none when lo = hi.
// CHECK-LABEL: func @window_lengths
// CHECK-SAME: %[[L:[a-z0-9]+]]: tensor<2xi64>
// CHECK: %[[LM:.*]] = bufferization.to_buffer %[[L]] read_only
// CHECK: scf.parallel (%[[B:.*]], %{{.*}}) =
// CHECK: %[[LB:.*]] = memref.load %[[LM]][%[[B]]] : memref<2xi64>
// CHECK: arith.maxsi %[[LB]], %{{.*}} : i64
// CHECK: arith.minsi %{{.*}} : i64
// CHECK: %[[HI:.*]] = arith.maxsi %c0{{.*}}, %{{.*}} : index
// CHECK: %[[W:.*]] = arith.addi %{{.*}}, %c-99 : index
// CHECK: %[[START:.*]] = arith.maxsi %c0{{.*}}, %[[W]] : index
// CHECK: %[[LO:.*]] = arith.minsi %[[HI]], %[[START]] : index
// CHECK: %[[END:.*]] = arith.ceildivui %[[HI]], %c64{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.divui %[[LO]], %c64{{.*}} : index
// CHECK: %[[EMPTY:.*]] = arith.cmpi eq, %[[LO]], %[[HI]] : index
// CHECK: %[[BEGIN:.*]] = arith.select %[[EMPTY]], %[[END]], %[[FIRST]] : index
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %[[END]]
func.func @window_lengths(%q: tensor<2x2x?x16xf32>, %l: tensor<2xi64>) -> tensor<2x2x?x16xf32> {
  %attn_c2_8 = arith.constant 2 : index
  %attn_d0_2_8 = tensor.dim %q, %attn_c2_8 : tensor<2x2x?x16xf32>
  %attn_init8 = tensor.empty(%attn_d0_2_8) : tensor<2x2x?x16xf32>
  %o = pe.attention %q, %q, %q kv_lengths(%l : tensor<2xi64>) outs(%attn_init8 : tensor<2x2x?x16xf32>) {causal, window = 100 : i64} : tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32> -> tensor<2x2x?x16xf32>
  return %o : tensor<2x2x?x16xf32>
}

// -----

// An explicit bias is read per score tile: a masked vector load of 16 keys
// (widened from f16), no [H, Tq, Tk] buffer; a bias that broadcasts over the
// keys ([Tq, 1]) is a scalar load, splat.
// CHECK-LABEL: func @bias_tile
// CHECK: scf.parallel
// CHECK: vector.maskedload %{{.*}} : memref<1x1x8x8xf16>, vector<16xi1>, vector<16xf16> into vector<16xf16>
// CHECK: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK-NOT: memref.alloc() {{.*}} : memref<1x2x8x8xf32>
// CHECK-LABEL: func @bias_key_broadcast
// CHECK-NOT: vector.maskedload
// CHECK: memref.load %{{.*}} : memref<8x1xf32>
// CHECK-NOT: vector.maskedload
func.func @bias_tile(%x: tensor<1x2x8x16xf32>, %b: tensor<1x1x8x8xf16>) -> tensor<1x2x8x16xf32> {
  %attn_init9 = tensor.empty() : tensor<1x2x8x16xf32>
  %o = pe.attention %x, %x, %x bias(%b : tensor<1x1x8x8xf16>) outs(%attn_init9 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
func.func @bias_key_broadcast(%x: tensor<1x2x8x16xf32>, %b: tensor<8x1xf32>) -> tensor<1x2x8x16xf32> {
  %attn_init10 = tensor.empty() : tensor<1x2x8x16xf32>
  %o = pe.attention %x, %x, %x bias(%b : tensor<8x1xf32>) outs(%attn_init10 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %o : tensor<1x2x8x16xf32>
}
