// RUN: pe-opt %s --pe-fuse-absolute-pe --canonicalize --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-fuse-absolute-pe --remarks-filter='pe-fuse-absolute-pe' --verify-diagnostics -o /dev/null
// The fused program still lowers; no full encoded tensor remains in @qkv.
// RUN: pe-opt %s --pe-fuse-absolute-pe --convert-pe-to-linalg --canonicalize --split-input-file | FileCheck %s --check-prefix=LOWERED

// Sinusoidal PE feeding the QKV projection: the matmul is tiled by 32 rows
// of the encoded operand and the encoding of each row tile, a
// pe.add_sinusoidal at offset i, is computed inside the loop.
// CHECK-LABEL: func @qkv
// CHECK-SAME: (%[[X:.*]]: tensor<100x64xf32>, %[[W:.*]]: tensor<64x96xf32>)
// CHECK: scf.for %[[I:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0]
// CHECK: %[[E:.*]] = pe.add_sinusoidal interleaved %[[XS]] offset(%[[I]] : index) : tensor<?x64xf32>
// CHECK: linalg.matmul ins(%[[E]], %[[W]] : tensor<?x64xf32>, tensor<64x96xf32>)
// CHECK-NOT: pe.add_sinusoidal
// LOWERED-LABEL: func @qkv
// LOWERED-NOT: tensor<100x64xf32> {
// LOWERED: scf.for
// LOWERED: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64xf64>, tensor<64xf64>)
// LOWERED: math.sin
// LOWERED: linalg.matmul
func.func @qkv(%x: tensor<100x64xf32>, %w: tensor<64x96xf32>) -> tensor<100x96xf32> {
  %e = pe.add_sinusoidal interleaved %x : tensor<100x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<100x96xf32>) -> tensor<100x96xf32>
  %y = linalg.matmul ins(%e, %w : tensor<100x64xf32>, tensor<64x96xf32>) outs(%acc : tensor<100x96xf32>) -> tensor<100x96xf32>
  return %y : tensor<100x96xf32>
}

// -----

// Learned PE after an embedding gather: the encoding is tiled by (1 batch,
// 32 tokens) and the gather of each tile runs in the same loop iteration,
// right before the pe.add_learned of that tile at offset t; the gathered
// embeddings are never written in full.
// CHECK-LABEL: func @gather
// CHECK-SAME: (%[[IDS:.*]]: tensor<2x40xi64>, %[[EMB:.*]]: tensor<1000x32xf32>, %[[WPE:.*]]: tensor<64x32xf32>)
// CHECK: scf.for %[[B:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.for %[[T:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[IS:.*]] = tensor.extract_slice %[[IDS]][%[[B]], %[[T]]]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[IS]] : tensor<1x?xi64>)
// CHECK: tensor.extract %[[EMB]]
// CHECK: %[[E:.*]] = pe.add_learned %[[G]], %[[WPE]] offset(%[[T]] : index) : tensor<1x?x32xf32>, tensor<64x32xf32>
// CHECK: tensor.insert_slice %[[E]]
func.func @gather(%ids: tensor<2x40xi64>, %emb: tensor<1000x32xf32>, %wpe: tensor<64x32xf32>) -> tensor<2x40x32xf32> {
  %init = tensor.empty() : tensor<2x40x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, t, c) -> (b, t)>, affine_map<(b, t, c) -> (b, t, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x40xi64>) outs(%init : tensor<2x40x32xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %c = linalg.index 2 : index
    %v = tensor.extract %emb[%i, %c] : tensor<1000x32xf32>
    linalg.yield %v : f32
  } -> tensor<2x40x32xf32>
  %e = pe.add_learned %g, %wpe : tensor<2x40x32xf32>, tensor<64x32xf32>
  return %e : tensor<2x40x32xf32>
}

// -----

// Both: a gather, the sinusoidal encoding and a batched projection in one
// loop nest over (batch, 32-token tiles).
// CHECK-LABEL: func @gather_qkv
// CHECK: scf.for %[[B:[a-z0-9]+]] =
// CHECK: scf.for %[[T:[a-z0-9]+]] =
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: %[[E:.*]] = pe.add_sinusoidal concat %[[G]] offset(%[[T]] : index) : tensor<1x?x32xf32>
// CHECK: linalg.batch_matmul ins(%[[E]], %{{.*}} : tensor<1x?x32xf32>, tensor<1x32x48xf32>)
func.func @gather_qkv(%ids: tensor<2x40xi64>, %emb: tensor<1000x32xf32>, %w: tensor<2x32x48xf32>, %acc: tensor<2x40x48xf32>) -> tensor<2x40x48xf32> {
  %init = tensor.empty() : tensor<2x40x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, t, c) -> (b, t)>, affine_map<(b, t, c) -> (b, t, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x40xi64>) outs(%init : tensor<2x40x32xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %c = linalg.index 2 : index
    %v = tensor.extract %emb[%i, %c] : tensor<1000x32xf32>
    linalg.yield %v : f32
  } -> tensor<2x40x32xf32>
  %e = pe.add_sinusoidal concat %g : tensor<2x40x32xf32>
  %y = linalg.batch_matmul ins(%e, %w : tensor<2x40x32xf32>, tensor<2x32x48xf32>) outs(%acc : tensor<2x40x48xf32>) -> tensor<2x40x48xf32>
  return %y : tensor<2x40x48xf32>
}

// -----

// Must not fuse into the matmul: the encoded tensor is also returned.
// CHECK-LABEL: func @other_user
// CHECK-NOT: scf.for
// CHECK: pe.add_sinusoidal
// CHECK: linalg.matmul
func.func @other_user(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  // expected-remark@+1 {{[Missed] absolute-pe-not-fused | Category:pe-fuse-absolute-pe | Reason="not fused: the encoded tensor has users besides the contraction"}}
  %e = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  %y = linalg.matmul ins(%e, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y, %e : tensor<8x8xf32>, tensor<8x16xf32>
}

// -----

// Must not fire: the encoded tensor is the matmul's accumulator, not an
// input.
// CHECK-LABEL: func @accumulator
// CHECK-NOT: scf.for
// CHECK: pe.add_sinusoidal
// CHECK: linalg.matmul
func.func @accumulator(%x: tensor<8x8xf32>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  // expected-remark@+1 {{Reason="not fused: the encoded tensor is the contraction's accumulator"}}
  %e = pe.add_sinusoidal interleaved %x : tensor<8x8xf32>
  %y = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Must not fire: the producer has another user (it must exist whole
// anyway), or reduces.
// CHECK-LABEL: func @producer_other_user
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: pe.add_sinusoidal
// CHECK-LABEL: func @producer_reduces
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: pe.add_sinusoidal
func.func @producer_other_user(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %init = tensor.empty() : tensor<8x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%init : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark@+1 {{Reason="not fused: the producer of the encoded input has other users or results"}}
  %e = pe.add_sinusoidal interleaved %n : tensor<8x16xf32>
  return %e, %n : tensor<8x16xf32>, tensor<8x16xf32>
}
func.func @producer_reduces(%x: tensor<8x4x16xf32>, %init: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %n = linalg.generic {indexing_maps = [affine_map<(i, k, j) -> (i, k, j)>, affine_map<(i, k, j) -> (i, j)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<8x4x16xf32>) outs(%init : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // expected-remark@+1 {{Reason="not fused: the producer of the encoded input has reduction loops"}}
  %e = pe.add_sinusoidal interleaved %n : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

// Must not fire, and nothing to report: no producer or consumer to fuse
// with (a function argument in, a return out).
// CHECK-LABEL: func @alone
// CHECK-NOT: scf.for
// CHECK: pe.add_sinusoidal
func.func @alone(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}

// -----

// Fused into the contraction, but its producer stays whole (it has another
// user), which the remark says.
// CHECK-LABEL: func @qkv_producer_other_user
// CHECK: %[[N:.*]] = linalg.generic
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: %[[NS:.*]] = tensor.extract_slice %[[N]][%[[I]], 0]
// CHECK: pe.add_sinusoidal interleaved %[[NS]] offset(%[[I]] : index)
// CHECK: linalg.matmul
func.func @qkv_producer_other_user(%x: tensor<64x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<64x8xf32>) -> (tensor<64x8xf32>, tensor<64x16xf32>) {
  %init = tensor.empty() : tensor<64x16xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x16xf32>) outs(%init : tensor<64x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<64x16xf32>
  // expected-remark@+1 {{Reason="not fused: the producer of the encoded input has other users or results"}}
  %e = pe.add_sinusoidal interleaved %n : tensor<64x16xf32>
  %y = linalg.matmul ins(%e, %w : tensor<64x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<64x8xf32>) -> tensor<64x8xf32>
  return %y, %n : tensor<64x8xf32>, tensor<64x16xf32>
}
