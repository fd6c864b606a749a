// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// RoPE (half layout, f64 inv_freq) on q at positions 2^61 + 7 + i and on k
// at 2^61 + j, then causal attention: through pe-cpu-pipeline the ropes fuse
// into the attention kernel, which rotates Q and K tiles at these huge angles.
// Tolerance: rtol 1e-5, atol 1e-6, as for the other RoPE + attention tests:
// the angle is formed in f64, cos/sin and the rotation round in f32 (~1e-7).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_rope_huge_offset %t
// RUN: pe-run %s -e e2e_rope_huge_offset --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --input=%t/qo.npy --input=%t/ko.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_rope_huge_offset(%q: tensor<1x2x4x32xf32>, %k: tensor<1x2x8x32xf32>, %v: tensor<1x2x8x32xf32>, %f: tensor<16xf64>, %qo: index, %ko: index) -> tensor<1x2x4x32xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<16xf64>) offset(%qo : index) : tensor<1x2x4x32xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<16xf64>) offset(%ko : index) : tensor<1x2x8x32xf32>
  %attn_init0 = tensor.empty() : tensor<1x2x4x32xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x2x4x32xf32>) {causal} : tensor<1x2x4x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32> -> tensor<1x2x4x32xf32>
  return %0 : tensor<1x2x4x32xf32>
}
