// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode, f32, GQA 16/2 (groups of 8) with head dimension 128: the decode
// kernel's P V goes in 64-key blocks (the last one of 22 or 7 keys),
// two 64-column chunks of 8 x 4 accumulators per block; per-batch lengths
// 150 and 199.
// Tolerance: rtol 1e-5, atol 1e-6: f32 math; the scores are summed in a
// different order than the reference's.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_gqa8_decode_d128 %t
// RUN: pe-run %s -e attn_gqa8_decode_d128 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_gqa8_decode_d128(%q: tensor<2x16x1x128xf32>, %k: tensor<2x2x200x128xf32>, %v: tensor<2x2x200x128xf32>, %l: tensor<2xi32>) -> tensor<2x16x1x128xf32> {
  %attn_init0 = tensor.empty() : tensor<2x16x1x128xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x16x1x128xf32>) {causal} : tensor<2x16x1x128xf32>, tensor<2x2x200x128xf32>, tensor<2x2x200x128xf32> -> tensor<2x16x1x128xf32>
  return %0 : tensor<2x16x1x128xf32>
}
