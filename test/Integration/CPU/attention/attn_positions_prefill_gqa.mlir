// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// RoPE with positions tensors inside the attention (prefill): [T] i32
// positions of the queries (1000 + 3 i) and other [T] i32 positions of the
// keys, half layout, f64 table, causal GQA 8/2, D = 64.
// The generated kernels take it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets ("no
// generated attention kernel ...").
// Tolerance: rtol 1e-5, atol 2e-6: the angles are formed in f64 and cos/sin
// rounded once to f32 (as the reference's float64 rotation to within f32
// rounding), the attention math runs in f32; outputs are convex combinations
// of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_positions_prefill_gqa %t
// RUN: pe-run %s -e attn_positions_prefill_gqa --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --input=%t/pq.npy --input=%t/pk.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @attn_positions_prefill_gqa(%q: tensor<1x8x24x64xf32>, %k: tensor<1x2x24x64xf32>, %v: tensor<1x2x24x64xf32>, %f: tensor<32xf64>, %pq: tensor<24xi32>, %pk: tensor<24xi32>) -> tensor<1x8x24x64xf32> {
  %init = tensor.empty() : tensor<1x8x24x64xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<24xi32>) key_positions(%pk : tensor<24xi32>) outs(%init : tensor<1x8x24x64xf32>) {causal} : tensor<1x8x24x64xf32>, tensor<1x2x24x64xf32>, tensor<1x2x24x64xf32> -> tensor<1x8x24x64xf32>
  return %0 : tensor<1x8x24x64xf32>
}
