// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A decode step (one query per head, GQA 8/2, 200 cached keys, D 64) with a
// bf16 padding mask [B, 1, 1, Tk]: keys >= 170 of batch 0 and >= 190 of
// batch 1 are -inf. pe-cpu-pipeline runs it through the prefill kernel (the
// decode kernel takes no bias; a remark says so).
// Tolerance: rtol 1e-5, atol 1e-6: the bf16 bias values are exact in f32 and
// the attention math runs in f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bias_decode %t
// RUN: pe-run %s -e attn_bias_decode --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bias_decode(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x200x64xf32>, %v: tensor<2x2x200x64xf32>, %b: tensor<2x1x1x200xbf16>) -> tensor<2x8x1x64xf32> {
  %attn_init0 = tensor.empty() : tensor<2x8x1x64xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<2x1x1x200xbf16>) outs(%attn_init0 : tensor<2x8x1x64xf32>) : tensor<2x8x1x64xf32>, tensor<2x2x200x64xf32>, tensor<2x2x200x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}
