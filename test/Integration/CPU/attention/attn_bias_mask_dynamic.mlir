// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Bias and mask tensors of dynamic shape: Tq = 20 and Tk = 33 are dynamic, the
// bias [B, H, Tq, Tk] has dynamic H, Tq and Tk and the mask [Tq, Tk] both
// dimensions dynamic; GQA 4/2, causal. The generated kernels (CPU and GPU)
// index them with the sizes known at run time.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bias_mask_dynamic %t
// RUN: pe-run %s -e attn_bias_mask_dynamic --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bias_mask_dynamic(%q: tensor<2x4x?x16xf32>, %k: tensor<2x2x?x16xf32>, %v: tensor<2x2x?x16xf32>, %b: tensor<2x?x?x?xf32>, %m: tensor<?x?xi1>) -> tensor<2x4x?x16xf32> {
  %c2 = arith.constant 2 : index
  %tq = tensor.dim %q, %c2 : tensor<2x4x?x16xf32>
  %init = tensor.empty(%tq) : tensor<2x4x?x16xf32>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<2x?x?x?xf32>) mask(%m : tensor<?x?xi1>) outs(%init : tensor<2x4x?x16xf32>) {causal} : tensor<2x4x?x16xf32>, tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32> -> tensor<2x4x?x16xf32>
  return %0 : tensor<2x4x?x16xf32>
}
