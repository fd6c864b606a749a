// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Bottom-right causal with Tq = 70 < Tk = 150 and valid lengths 150 and 121:
// the diagonal crosses the generated kernel's 64-key blocks at offsets 80
// and 51, so in a query block's last key blocks the first groups of 4 rows
// need only some of the 16-key score vectors, or none, and the kernel
// computes only those. Key 130 of KV head 0 in batch 0 is NaN: rows 50.. of
// heads 0 and 1 see it and become NaN; rows 48 and 49 (same group of 4 rows
// as 50 and 51, same score vector) and the rows below must stay finite.
// Tolerance: rtol 1e-5, atol 1e-6 (f32 math, outputs are convex combinations
// of values in [-1, 1)); NaN must meet NaN (npycmp).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_causal_diagonal_skip %t
// RUN: pe-run %s -e attn_causal_diagonal_skip --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_causal_diagonal_skip(%q: tensor<2x4x70x32xf32>, %k: tensor<2x2x150x32xf32>, %v: tensor<2x2x150x32xf32>, %l: tensor<2xi32>) -> tensor<2x4x70x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x70x32xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x70x32xf32>) {causal} : tensor<2x4x70x32xf32>, tensor<2x2x150x32xf32>, tensor<2x2x150x32xf32> -> tensor<2x4x70x32xf32>
  return %0 : tensor<2x4x70x32xf32>
}
