// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode from a bf16 KV cache, GQA 16/2 (groups of 8) with head dimension
// 128: the CPU decode kernel's P V goes in two 64-column chunks over
// 64-key blocks (the last of 22 of the 150 keys), the accumulators kept in
// a buffer between blocks.
// Tolerance: rtol 1e-5, atol 1e-6: the keys and values are exactly the
// half-precision values the reference reads (float32 .npy holding bf16
// values), and the math and the result are f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_cache_decode_gqa8 %t
// RUN: pe-run %s -e attn_bf16_cache_decode_gqa8 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_cache_decode_gqa8(%q: tensor<1x16x1x128xf32>, %k: tensor<1x2x150x128xbf16>, %v: tensor<1x2x150x128xbf16>) -> tensor<1x16x1x128xf32> {
  %attn_init0 = tensor.empty() : tensor<1x16x1x128xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x16x1x128xf32>) {causal} : tensor<1x16x1x128xf32>, tensor<1x2x150x128xbf16>, tensor<1x2x150x128xbf16> -> tensor<1x16x1x128xf32>
  return %0 : tensor<1x16x1x128xf32>
}
