// RUN: pe-opt %s --convert-pe-to-linalg --pe-fuse-absolute-pe --canonicalize --split-input-file | FileCheck %s

// Sinusoidal PE feeding the QKV projection: the matmul is tiled by 32 rows
// of the encoded operand and the encoding is computed per row tile inside
// the loop; no full encoded tensor remains.
// CHECK-LABEL: func @qkv
// CHECK-SAME: (%[[X:.*]]: tensor<100x64xf32>, %[[W:.*]]: tensor<64x96xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[XS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0]
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[XS]], %{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64xf64>, tensor<64xf64>)
// CHECK: math.sin
// CHECK: linalg.matmul ins(%[[E]], %[[W]] : tensor<?x64xf32>, tensor<64x96xf32>)
func.func @qkv(%x: tensor<100x64xf32>, %w: tensor<64x96xf32>) -> tensor<100x96xf32> {
  %e = pe.add_sinusoidal interleaved %x : tensor<100x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<100x96xf32>) -> tensor<100x96xf32>
  %y = linalg.matmul ins(%e, %w : tensor<100x64xf32>, tensor<64x96xf32>) outs(%acc : tensor<100x96xf32>) -> tensor<100x96xf32>
  return %y : tensor<100x96xf32>
}

// -----

// Learned PE after an embedding gather: one generic reads the token id,
// gathers the embedding row and adds the position row.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic
// CHECK: ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK: tensor.extract %{{.*}} : tensor<1000x32xf32>
// CHECK: tensor.extract %{{.*}} : tensor<64x32xf32>
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
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

// Must not fuse into the matmul: the encoded tensor is also returned.
// CHECK-LABEL: func @other_user
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: linalg.matmul
func.func @other_user(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x16xf32>) {
  %e = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  %y = linalg.matmul ins(%e, %w : tensor<8x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y, %e : tensor<8x8xf32>, tensor<8x16xf32>
}

// -----

// Must not fire: the encoded tensor is the matmul's accumulator, not an
// input.
// CHECK-LABEL: func @accumulator
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK: linalg.matmul
func.func @accumulator(%x: tensor<8x8xf32>, %a: tensor<8x16xf32>, %b: tensor<16x8xf32>) -> tensor<8x8xf32> {
  %e = pe.add_sinusoidal interleaved %x : tensor<8x8xf32>
  %y = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// Must not fire: no producer or consumer to fuse with (a function argument
// in, a return out).
// CHECK-LABEL: func @alone
// CHECK: linalg.generic {{.*}}pe.absolute_encoding
// CHECK-NOT: scf.for
func.func @alone(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  return %e : tensor<8x16xf32>
}
