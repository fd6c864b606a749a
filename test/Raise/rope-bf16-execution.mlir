// bf16 RoPE as a bf16 model computes it (tables in f32, cast to bf16;
// products and sum in bf16), executed before and after pe-raise against the
// float64 numpy reference (positions 0..3, default frequencies, base 10000).
// The original rounds each product and the sum to bf16, the raised pe.rope
// computes in f32 and rounds once: both within rtol 2e-2, atol 1e-2 (a few
// bf16 ulps, 2^-8 relative each) of the reference, and within that of each
// other.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/raise_ref.py rope_bf16 %t
// RUN: pe-run %s -e rope_bf16 --input=%t/x.npy --output=%t/original.npy
// RUN: %npycmp %t/original.npy %t/expected.npy --rtol 2e-2 --atol 1e-2 | FileCheck %s
// RUN: pe-opt --pe-raise %s -o %t/raised.mlir
// RUN: FileCheck %s --check-prefix=RAISED < %t/raised.mlir
// RUN: pe-run %t/raised.mlir -e rope_bf16 --pipeline=cpu --input=%t/x.npy --output=%t/raised.npy
// RUN: %npycmp %t/raised.npy %t/expected.npy --rtol 2e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS
// RAISED: pe.rope half %{{.*}} : tensor<1x2x4x16xbf16>

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>

func.func @rope_bf16(%x: tensor<1x2x4x16xbf16>) -> tensor<1x2x4x16xbf16> {
  %inv = arith.constant dense<[1.0, 0.31622776, 0.1, 0.031622775, 0.01, 0.0031622776, 0.001, 0.00031622776]> : tensor<8xf32>
  %e0 = tensor.empty() : tensor<1x1x4x16xbf16>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x4x16xbf16>) {
  ^bb0(%f: f32, %out: bf16):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %f : f32
    %c = math.cos %a : f32
    %cb = arith.truncf %c : f32 to bf16
    linalg.yield %cb : bf16
  } -> tensor<1x1x4x16xbf16>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x4x16xbf16>) {
  ^bb0(%f: f32, %out: bf16):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %f : f32
    %s = math.sin %a : f32
    %sb = arith.truncf %s : f32 to bf16
    linalg.yield %sb : bf16
  } -> tensor<1x1x4x16xbf16>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xbf16> to tensor<1x2x4x8xbf16>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xbf16> to tensor<1x2x4x8xbf16>
  %e1 = tensor.empty() : tensor<1x2x4x8xbf16>
  %n2 = linalg.negf ins(%x2 : tensor<1x2x4x8xbf16>) outs(%e1 : tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x16xbf16>
  %e2 = tensor.empty() : tensor<1x2x4x16xbf16>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #bc, #bc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %rot, %cos, %sin : tensor<1x2x4x16xbf16>, tensor<1x2x4x16xbf16>, tensor<1x1x4x16xbf16>, tensor<1x1x4x16xbf16>) outs(%e2 : tensor<1x2x4x16xbf16>) {
  ^bb0(%a: bf16, %r: bf16, %c: bf16, %s: bf16, %out: bf16):
    %ac = arith.mulf %c, %a : bf16
    %rs = arith.mulf %r, %s : bf16
    %sum = arith.addf %rs, %ac : bf16
    linalg.yield %sum : bf16
  } -> tensor<1x2x4x16xbf16>
  return %y : tensor<1x2x4x16xbf16>
}
