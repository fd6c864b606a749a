// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 query, key and value, f32 result: causal GQA 8/2 prefill, T = 150
// (two full key blocks of 64 and a partial one), D = 64.
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel (pe-cpu-pipeline on a target with AVX512-BF16) rounds
// the softmax weights P to bf16 before P V (each within 2^-9 relative, so
// the result within 2^-9 max|v| = 1.95e-3 of the f32 math); the rest is f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_prefill_gqa %t
// RUN: pe-run %s -e attn_bf16_prefill_gqa --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_prefill_gqa(%q: tensor<1x8x150x64xbf16>, %k: tensor<1x2x150x64xbf16>, %v: tensor<1x2x150x64xbf16>) -> tensor<1x8x150x64xf32> {
  %attn_init0 = tensor.empty() : tensor<1x8x150x64xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x8x150x64xf32>) {causal} : tensor<1x8x150x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x8x150x64xf32>
  return %0 : tensor<1x8x150x64xf32>
}
