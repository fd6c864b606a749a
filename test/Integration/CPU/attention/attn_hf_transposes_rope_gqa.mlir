// Execution test of the pe dialect: pe-run JIT-runs the function through the
// pipeline under test and the result is compared against the float64
// reference test/Integration/lib/pe_ref.py on the same inputs (written, with
// the expected values, by test/Integration/lib/cases.py).
//
// The attention of attn_bshd_rope_gqa.mlir as Hugging Face spells it: Q, K
// and V arrive as [B, S, heads, D], are transposed to [B, heads, S, D] and
// rotated by separate pe.rope ops (half, f64 table, the query at offset 7,
// the keys at 0), the bhsd attention (causal, GQA 8/2, Tq = 40 < Tk = 72)
// is transposed back. Fusion and pe-fold-attention-layout make it the bshd
// attention of that test (the IR check below), on the same inputs and
// expected values. Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math on
// rotated logits).

// RUN: pe-opt %s --pe-fuse-encodings-into-attention --pe-fold-attention-layout | FileCheck %s --check-prefix=IR
// IR-NOT: linalg.transpose
// IR: pe.attention {{.*}} rope <half, query_offset = 7>
// IR-SAME: layout = #pe<attention_layout bshd>
// IR-NOT: linalg.transpose
// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bshd_rope_gqa %t
// RUN: pe-run %s -e attn_hf_transposes_rope_gqa --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_hf_transposes_rope_gqa(%q: tensor<2x40x8x32xf32>, %k: tensor<2x72x2x32xf32>, %v: tensor<2x72x2x32xf32>, %f: tensor<16xf64>) -> tensor<2x40x8x32xf32> {
  %eq = tensor.empty() : tensor<2x8x40x32xf32>
  %ekv = tensor.empty() : tensor<2x2x72x32xf32>
  %qt = linalg.transpose ins(%q : tensor<2x40x8x32xf32>) outs(%eq : tensor<2x8x40x32xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k : tensor<2x72x2x32xf32>) outs(%ekv : tensor<2x2x72x32xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v : tensor<2x72x2x32xf32>) outs(%ekv : tensor<2x2x72x32xf32>) permutation = [0, 2, 1, 3]
  %qr = pe.rope half %qt inv_freq(%f : tensor<16xf64>) {static_offset = 7 : i64} : tensor<2x8x40x32xf32>
  %kr = pe.rope half %kt inv_freq(%f : tensor<16xf64>) : tensor<2x2x72x32xf32>
  %init = tensor.empty() : tensor<2x8x40x32xf32>
  %o = pe.attention %qr, %kr, %vt outs(%init : tensor<2x8x40x32xf32>) {causal} : tensor<2x8x40x32xf32>, tensor<2x2x72x32xf32>, tensor<2x2x72x32xf32> -> tensor<2x8x40x32xf32>
  %eo = tensor.empty() : tensor<2x40x8x32xf32>
  %ot = linalg.transpose ins(%o : tensor<2x8x40x32xf32>) outs(%eo : tensor<2x40x8x32xf32>) permutation = [0, 2, 1, 3]
  return %ot : tensor<2x40x8x32xf32>
}
