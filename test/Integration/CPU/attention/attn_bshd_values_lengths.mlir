// Execution test of the pe dialect: pe-run JIT-runs the function and the
// result is compared against the float64 reference test/Integration/lib/pe_ref.py
// on the same inputs (written, with the expected values, by
// test/Integration/lib/cases.py).
//
// layout = bshd prefill whose value rows the kernel packs (their rows are
// H x Dv apart): Dv = 20 != D = 32 (a partial last vector), GQA 4/2,
// Tq = 24, Tk = 150 (three key blocks), valid lengths 150 and 97, NaN in
// batch 1's value rows past its length (they must stay out of the result).
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bshd_values_lengths %t
// RUN: pe-run %s -e attn_bshd_values_lengths --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bshd_values_lengths(%q: tensor<2x24x4x32xf32>, %k: tensor<2x150x2x32xf32>, %v: tensor<2x150x2x20xf32>, %l: tensor<2xi32>) -> tensor<2x24x4x20xf32> {
  %init = tensor.empty() : tensor<2x24x4x20xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%init : tensor<2x24x4x20xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x24x4x32xf32>, tensor<2x150x2x32xf32>, tensor<2x150x2x20xf32> -> tensor<2x24x4x20xf32>
  return %0 : tensor<2x24x4x20xf32>
}
