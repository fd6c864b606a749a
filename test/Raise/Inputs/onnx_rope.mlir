// Hand-written after the form issue 29 describes for torch-mlir's lowering of
// ONNX RotaryEmbedding (not copied from a torch-mlir test): one
// linalg.generic per rotation that reads the partner channel with
// tensor.extract at (c + D/2) mod D, half-width [max_pos, D/2] cos/sin caches
// at [pos[b, t], c mod D/2], and the sign of the partner by a select on
// c < D/2.
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @onnx_rope(%x: tensor<1x2x4x8xf32>, %cos: tensor<16x4xf32>, %sin: tensor<16x4xf32>, %pos: tensor<1x4xi64>) -> tensor<1x2x4x8xf32> {
  %e = tensor.empty() : tensor<1x2x4x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x4x8xf32>) outs(%e : tensor<1x2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %t = linalg.index 2 : index
    %c = linalg.index 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %p64 = tensor.extract %pos[%b, %t] : tensor<1x4xi64>
    %p = arith.index_cast %p64 : i64 to index
    %half = arith.remsi %c, %c4 : index
    %cs = tensor.extract %cos[%p, %half] : tensor<16x4xf32>
    %sn = tensor.extract %sin[%p, %half] : tensor<16x4xf32>
    %pc0 = arith.addi %c, %c4 : index
    %pc = arith.remsi %pc0, %c8 : index
    %xp = tensor.extract %x[%b, %h, %t, %pc] : tensor<1x2x4x8xf32>
    %first = arith.cmpi slt, %c, %c4 : index
    %neg = arith.negf %xp : f32
    %rot = arith.select %first, %neg, %xp : f32
    %a = arith.mulf %in, %cs : f32
    %bb = arith.mulf %rot, %sn : f32
    %o = arith.addf %a, %bb : f32
    linalg.yield %o : f32
  } -> tensor<1x2x4x8xf32>
  return %r : tensor<1x2x4x8xf32>
}

// The same with the partner channel computed by arith.maxsi / minsi (a
// clamp the tracer does not follow): an opaque gather.
func.func @onnx_rope_opaque(%x: tensor<1x2x4x8xf32>, %cos: tensor<16x4xf32>, %sin: tensor<16x4xf32>, %pos: tensor<1x4xi64>) -> tensor<1x2x4x8xf32> {
  %e = tensor.empty() : tensor<1x2x4x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x4x8xf32>) outs(%e : tensor<1x2x4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b = linalg.index 0 : index
    %h = linalg.index 1 : index
    %t = linalg.index 2 : index
    %c = linalg.index 3 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %p64 = tensor.extract %pos[%b, %t] : tensor<1x4xi64>
    %p = arith.index_cast %p64 : i64 to index
    %half = arith.remsi %c, %c4 : index
    %cs = tensor.extract %cos[%p, %half] : tensor<16x4xf32>
    %sn = tensor.extract %sin[%p, %half] : tensor<16x4xf32>
    %pc0 = arith.addi %c, %c4 : index
    %pc1 = arith.remsi %pc0, %c8 : index
    %pc2 = arith.maxsi %pc1, %c0 : index
    %pc = arith.minsi %pc2, %c7 : index
    %xp = tensor.extract %x[%b, %h, %t, %pc] : tensor<1x2x4x8xf32>
    %first = arith.cmpi slt, %c, %c4 : index
    %neg = arith.negf %xp : f32
    %rot = arith.select %first, %neg, %xp : f32
    %a = arith.mulf %in, %cs : f32
    %bb = arith.mulf %rot, %sn : f32
    %o = arith.addf %a, %bb : f32
    linalg.yield %o : f32
  } -> tensor<1x2x4x8xf32>
  return %r : tensor<1x2x4x8xf32>
}
