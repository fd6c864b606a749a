// Execution test: f32 -> bf16 rounding, bit for bit. pe-run JIT-runs the
// function through the pipeline under test (pe-cpu-pipeline runs
// pe-expand-bf16-conversions, which replaces LLVM's __truncsfbf2 calls on
// x86 without AVX512-BF16) and the result is compared exactly against
// test/Integration/lib/cases.py's rounding (round to nearest, ties to even,
// in numpy integer arithmetic; a NaN stays a NaN) on 4096 bit patterns: ties,
// one ulp around ties, overflow to infinity, infinities, NaNs, zeros,
// subnormals and random bits (the edge list is in cases.py, bf16_rounding).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py bf16_rounding %t
// RUN: pe-run %s -e bf16_rounding --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

#id = affine_map<(d0) -> (d0)>
func.func @bf16_rounding(%x: tensor<4096xf32>) -> tensor<4096xbf16> {
  %init = tensor.empty() : tensor<4096xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4096xf32>) outs(%init : tensor<4096xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4096xbf16>
  return %r : tensor<4096xbf16>
}
