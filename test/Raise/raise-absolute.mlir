// pe-raise on embeddings plus position-table rows
// (Inputs/absolute_embed.mlir, TorchToLinalg spelling: embedding lookups
// are gathers): GPT-2's learned wpe at arange(T) becomes pe.add_learned; a
// constant table holding the interleaved or [sin | cos] sinusoidal encoding
// becomes pe.add_sinusoidal (base recovered, embeddings scaled by sqrt(C) as
// scale_input), read at position_ids.
// RUN: pe-opt --pe-raise %S/Inputs/absolute_embed.mlir | FileCheck %s
// RUN: pe-opt --pe-raise %s | FileCheck %s --check-prefix=MISS

// CHECK-LABEL: func.func @gpt2_embed(
// CHECK-SAME: %{{[^:]*}}: tensor<1x8xi64>, %{{[^:]*}}: tensor<50x32xf32>, %[[WPE:[^:]*]]: tensor<16x32xf32>)
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: tensor.extract
// CHECK: %[[O:.*]] = pe.add_learned %[[X]], %[[WPE]] : tensor<1x8x32xf32>, tensor<16x32xf32>
// CHECK: return %[[O]]
// CHECK-LABEL: func.func @transformer_embed(
// CHECK-SAME: %[[P:[^:]*]]: tensor<1x8xi64>)
// CHECK: %[[POS:.*]] = tensor.extract_slice %[[P]][0, 0] [1, 8] [1, 1] : tensor<1x8xi64> to tensor<8xi64>
// CHECK: pe.add_sinusoidal interleaved %{{.*}} positions(%[[POS]] : tensor<8xi64>) {scale_input} : tensor<1x8x32xf32>
// CHECK-NOT: arith.mulf
// CHECK-LABEL: func.func @t2t_embed(
// CHECK: pe.add_sinusoidal concat %{{.*}} positions(%{{.*}} : tensor<8xi64>) {scale_input} : tensor<1x8x32xf32>

// Near misses: a constant table that is not a sinusoid (one entry changed)
// is a learned table, which takes no input scale: not raised; an
// unscaled add of it is raised to pe.add_learned with the constant.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d1, d2)>
// MISS-LABEL: func.func @scaled_not_sinusoid(
// MISS-NOT: pe.add_
// MISS: return
func.func @scaled_not_sinusoid(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %t = arith.constant dense<[[0.0, 1.0, 0.0, 1.0], [0.84147098, 0.54030231, 0.00999983, 0.5]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<1x2x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %t : tensor<1x2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<1x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %s = arith.mulf %a, %c : f32
    %r = arith.addf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}
// MISS-LABEL: func.func @unscaled_not_sinusoid(
// MISS: %[[T:.*]] = arith.constant dense
// MISS: pe.add_learned %{{.*}}, %[[T]] : tensor<1x2x4xf32>, tensor<2x4xf32>
func.func @unscaled_not_sinusoid(%x: tensor<1x2x4xf32>) -> tensor<1x2x4xf32> {
  %t = arith.constant dense<[[0.0, 1.0, 0.0, 1.0], [0.84147098, 0.54030231, 0.00999983, 0.5]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<1x2x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %t : tensor<1x2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<1x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %b, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4xf32>
  return %y : tensor<1x2x4xf32>
}
