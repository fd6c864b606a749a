// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// D = 80 (not a whole number of vectors), half layout with [512, 40]
// cos/sin caches, [T] i64 positions of the queries and the keys, causal
// GQA 4/2, Tq = 7 < Tk = 11.
// The generated kernels take it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets ("no
// generated attention kernel ...").
// Tolerance: rtol 1e-5, atol 2e-6: the angles are formed in f64 and cos/sin
// rounded once to f32 (as the reference's float64 rotation to within f32
// rounding), the attention math runs in f32; outputs are convex combinations
// of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_positions_cache_d80 %t
// RUN: pe-run %s -e attn_positions_cache_d80 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/c.npy --input=%t/s.npy --input=%t/pq.npy --input=%t/pk.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @attn_positions_cache_d80(%q: tensor<1x4x7x80xf32>, %k: tensor<1x2x11x80xf32>, %v: tensor<1x2x11x80xf32>, %c: tensor<512x40xf32>, %s: tensor<512x40xf32>, %pq: tensor<7xi64>, %pk: tensor<11xi64>) -> tensor<1x4x7x80xf32> {
  %init = tensor.empty() : tensor<1x4x7x80xf32>
  %0 = pe.attention %q, %k, %v rope <half> cache(%c, %s : tensor<512x40xf32>, tensor<512x40xf32>) query_positions(%pq : tensor<7xi64>) key_positions(%pk : tensor<11xi64>) outs(%init : tensor<1x4x7x80xf32>) {causal} : tensor<1x4x7x80xf32>, tensor<1x2x11x80xf32>, tensor<1x2x11x80xf32> -> tensor<1x4x7x80xf32>
  return %0 : tensor<1x4x7x80xf32>
}
