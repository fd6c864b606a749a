// A rotary embedding over a dynamic number of tokens
// (tensor<1x2x?x16xf32>, the form torch-mlir emits for a dynamic sequence
// length): the tracer needs only the channel dimension to be static.
// RUN: pe-opt --pe-raise %s | FileCheck %s
// Executed before and after raising on 5 tokens, against the float64
// reference (positions 0..4, default frequencies): rtol 1e-5, atol 1e-6.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/raise_ref.py rope_dynamic %t
// RUN: pe-run %s -e rope_dynamic --input=%t/x.npy --output=%t/original.npy
// RUN: %npycmp %t/original.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// RUN: pe-opt --pe-raise %s -o %t/raised.mlir
// RUN: pe-run %t/raised.mlir -e rope_dynamic --pipeline=cpu --input=%t/x.npy --output=%t/raised.npy
// RUN: %npycmp %t/raised.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// NUM: npycmp: PASS

// CHECK-LABEL: func.func @rope_dynamic(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x?x16xf32>)
// CHECK: %[[F:.*]], %{{.*}} = pe.rope_frequencies : tensor<8xf32>
// CHECK: %[[R:.*]] = pe.rope half %[[X]] inv_freq(%[[F]] : tensor<8xf32>) : tensor<1x2x?x16xf32>
// CHECK: return %[[R]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
func.func @rope_dynamic(%x: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %c2 = arith.constant 2 : index
  %t = tensor.dim %x, %c2 : tensor<1x2x?x16xf32>
  %inv = arith.constant dense<[1.0, 0.31622776, 0.1, 0.031622775, 0.01, 0.0031622776, 0.001, 0.00031622776]> : tensor<8xf32>
  %e0 = tensor.empty(%t) : tensor<1x1x?x16xf32>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x?x16xf32>) {
  ^bb0(%f: f32, %out: f32):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i64
    %p = arith.sitofp %ii : i64 to f32
    %a = arith.mulf %p, %f : f32
    %c = math.cos %a : f32
    linalg.yield %c : f32
  } -> tensor<1x1x?x16xf32>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x?x16xf32>) {
  ^bb0(%f: f32, %out: f32):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i64
    %p = arith.sitofp %ii : i64 to f32
    %a = arith.mulf %p, %f : f32
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<1x1x?x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, %t, 8] [1, 1, 1, 1] : tensor<1x2x?x16xf32> to tensor<1x2x?x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, %t, 8] [1, 1, 1, 1] : tensor<1x2x?x16xf32> to tensor<1x2x?x8xf32>
  %e1 = tensor.empty(%t) : tensor<1x2x?x8xf32>
  %n2 = linalg.negf ins(%x2 : tensor<1x2x?x8xf32>) outs(%e1 : tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x16xf32>
  %e2 = tensor.empty(%t) : tensor<1x2x?x16xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #bc, #bc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %rot, %cos, %sin : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x1x?x16xf32>, tensor<1x1x?x16xf32>) outs(%e2 : tensor<1x2x?x16xf32>) {
  ^bb0(%a: f32, %r: f32, %c: f32, %s: f32, %out: f32):
    %ac = arith.mulf %a, %c : f32
    %rs = arith.mulf %r, %s : f32
    %sum = arith.addf %ac, %rs : f32
    linalg.yield %sum : f32
  } -> tensor<1x2x?x16xf32>
  return %y : tensor<1x2x?x16xf32>
}
