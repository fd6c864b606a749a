// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode from a bf16 KV cache, GQA 8/2 with head dimension 128 (the decode
// kernel's P V keeps the group's 4 x 8 accumulators and passes once over
// the keys), per-batch lengths 150 and 200 (key blocks of 16 with a tail).
// Tolerance: rtol 1e-5, atol 1e-6: the keys and values are exactly the
// half-precision values the reference reads (float32 .npy holding bf16
// values), and the math and the result are f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_cache_decode_d128 %t
// RUN: pe-run %s -e attn_bf16_cache_decode_d128 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_cache_decode_d128(%q: tensor<2x8x1x128xf32>, %k: tensor<2x2x200x128xbf16>, %v: tensor<2x2x200x128xbf16>, %l: tensor<2xi32>) -> tensor<2x8x1x128xf32> {
  %attn_init0 = tensor.empty() : tensor<2x8x1x128xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x8x1x128xf32>) {causal} : tensor<2x8x1x128xf32>, tensor<2x2x200x128xbf16>, tensor<2x2x200x128xbf16> -> tensor<2x8x1x128xf32>
  return %0 : tensor<2x8x1x128xf32>
}
