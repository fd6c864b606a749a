// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline (or the pipeline of `--param pe_pipeline`) and the result
// is compared against the float64 reference test/Integration/lib/pe_ref.py on
// the same inputs (written, with the expected values, by
// test/Integration/lib/cases.py).
//
// i64 valid KV lengths that do not fit 32 bits, and negative ones, clamped to
// [0, Tk = 9] in 64 bits as documented: 2^63 - 1 and 2^32 + 3 give all 9 keys
// (their low 32 bits are -1 and 3), -5 and -(2^32) + 4 give none (the batch
// gives 0; the low 32 bits of the latter are 4). Bottom-right causal, so the
// clamped length also places the queries (o[b] = L[b] - Tq). MQA.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32 (logits,
// exp, sums); outputs are convex combinations of values in [-1, 1), so errors
// are ~1e-7 absolute.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_kv_lengths_i64_extremes %t
// RUN: pe-run %s -e attn_kv_lengths_i64_extremes --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_kv_lengths_i64_extremes(%q: tensor<4x2x4x16xf32>, %k: tensor<4x1x9x16xf32>, %v: tensor<4x1x9x16xf32>, %lengths: tensor<4xi64>) -> tensor<4x2x4x16xf32> {
  %attn_init0 = tensor.empty() : tensor<4x2x4x16xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<4xi64>) outs(%attn_init0 : tensor<4x2x4x16xf32>) {causal} : tensor<4x2x4x16xf32>, tensor<4x1x9x16xf32>, tensor<4x1x9x16xf32> -> tensor<4x2x4x16xf32>
  return %0 : tensor<4x2x4x16xf32>
}
