// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A mask [1, H, 1, 1] that broadcasts over the keys: each head's single query
// row is allowed all 90 keys or none (head 0: none, its output is 0). One
// query per head, GQA 4/2, D 16; pe-cpu-pipeline runs it through the prefill
// kernel (the decode kernel takes no mask; a remark says so).
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_mask_row_broadcast %t
// RUN: pe-run %s -e attn_mask_row_broadcast --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_mask_row_broadcast(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x90x16xf32>, %v: tensor<1x2x90x16xf32>, %m: tensor<1x4x1x1xi1>) -> tensor<1x4x1x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x1x16xf32>
  %0 = pe.attention %q, %k, %v mask(%m : tensor<1x4x1x1xi1>) outs(%attn_init0 : tensor<1x4x1x16xf32>) : tensor<1x4x1x16xf32>, tensor<1x2x90x16xf32>, tensor<1x2x90x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}
