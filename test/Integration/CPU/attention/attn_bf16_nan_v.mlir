// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// NaN and infinity semantics with bf16 operands (f32 result): a NaN or
// infinite value row reaches only the rows that see its key, also inside
// the diagonal key block of the bf16 dot-product kernel, where keys are
// multiplied in pairs (a key of weight 0 has its value lanes zeroed).
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel (pe-cpu-pipeline on a target with AVX512-BF16) rounds
// the softmax weights P to bf16 before P V (each within 2^-9 relative, so
// the result within 2^-9 max|v| = 1.95e-3 of the f32 math); the rest is f32.
// NaN must meet NaN and infinities match exactly (npycmp).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_nan_v %t
// RUN: pe-run %s -e attn_bf16_nan_v --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_nan_v(%q: tensor<1x4x80x16xbf16>, %k: tensor<1x2x80x16xbf16>, %v: tensor<1x2x80x16xbf16>) -> tensor<1x4x80x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x80x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x80x16xf32>) {causal} : tensor<1x4x80x16xbf16>, tensor<1x2x80x16xbf16>, tensor<1x2x80x16xbf16> -> tensor<1x4x80x16xf32>
  return %0 : tensor<1x4x80x16xf32>
}
