// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode from a bf16 KV cache, MQA 4/1, D = 48 and Dv = 64 (a value row
// wider than a key row), 77 keys, not causal.
// Tolerance: rtol 1e-5, atol 1e-6: the keys and values are exactly the
// half-precision values the reference reads (float32 .npy holding bf16
// values), and the math and the result are f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_cache_decode_dv %t
// RUN: pe-run %s -e attn_bf16_cache_decode_dv --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_cache_decode_dv(%q: tensor<1x4x1x48xf32>, %k: tensor<1x1x77x48xbf16>, %v: tensor<1x1x77x64xbf16>) -> tensor<1x4x1x64xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x1x64xf32>) : tensor<1x4x1x48xf32>, tensor<1x1x77x48xbf16>, tensor<1x1x77x64xbf16> -> tensor<1x4x1x64xf32>
  return %0 : tensor<1x4x1x64xf32>
}
