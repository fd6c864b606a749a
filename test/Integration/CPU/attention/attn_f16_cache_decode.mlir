// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode from an f16 KV cache (GQA 8/2, per-batch lengths 150 and 200) with an f32 query.
// Tolerance: rtol 1e-5, atol 1e-6: the keys and values are exactly the
// half-precision values the reference reads (float32 .npy holding f16
// values), and the math and the result are f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_f16_cache_decode %t
// RUN: pe-run %s -e attn_f16_cache_decode --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_f16_cache_decode(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x200x64xf16>, %v: tensor<2x2x200x64xf16>, %l: tensor<2xi32>) -> tensor<2x8x1x64xf32> {
  %attn_init0 = tensor.empty() : tensor<2x8x1x64xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x8x1x64xf32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x200x64xf16>, tensor<2x2x200x64xf16> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}
