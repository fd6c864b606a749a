// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// attn_causal_diagonal_skip with bf16 query, key and value (f32 result): in
// the bf16 dot-product kernel the groups of 4 rows whose causal limit ends
// before a key block's last score vectors compute only the vectors they
// need. Key 130 of KV head 0 in batch 0 is NaN: rows 50.. of heads 0 and 1
// become NaN, rows 0..49 must stay finite.
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel (pe-cpu-pipeline on a target with AVX512-BF16) rounds
// the softmax weights P to bf16 before P V (each within 2^-9 relative, so
// the result within 2^-9 max|v| = 1.95e-3 of the f32 math); the rest is f32.
// NaN must meet NaN (npycmp).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_causal_diagonal_skip %t
// RUN: pe-run %s -e attn_bf16_causal_diagonal_skip --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_causal_diagonal_skip(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x2x150x32xbf16>, %v: tensor<2x2x150x32xbf16>, %l: tensor<2xi32>) -> tensor<2x4x70x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x70x32xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x70x32xf32>) {causal} : tensor<2x4x70x32xbf16>, tensor<2x2x150x32xbf16>, tensor<2x2x150x32xbf16> -> tensor<2x4x70x32xf32>
  return %0 : tensor<2x4x70x32xf32>
}
