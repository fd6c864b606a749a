// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// An f32 pe.alibi_bias (symmetric, 4 heads) on bf16 causal attention with an
// f32 result, T = 130, D = 32; pe-cpu-pipeline fuses the bias into the
// attention (ALiBi from indices in the bf16 dot-product kernel).
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel (pe-cpu-pipeline on a target with AVX512-BF16) rounds
// the softmax weights P to bf16 before P V (each within 2^-9 relative, so
// the result within 2^-9 max|v| = 1.95e-3 of the f32 math); the rest is f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_alibi %t
// RUN: pe-run %s -e attn_bf16_alibi --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_alibi(%q: tensor<1x4x130x32xbf16>, %k: tensor<1x4x130x32xbf16>, %v: tensor<1x4x130x32xbf16>) -> tensor<1x4x130x32xf32> {
  %b = pe.alibi_bias symmetric : tensor<4x130x130xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x130x32xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<4x130x130xf32>) outs(%attn_init0 : tensor<1x4x130x32xf32>) {causal} : tensor<1x4x130x32xbf16>, tensor<1x4x130x32xbf16>, tensor<1x4x130x32xbf16> -> tensor<1x4x130x32xf32>
  return %0 : tensor<1x4x130x32xf32>
}
