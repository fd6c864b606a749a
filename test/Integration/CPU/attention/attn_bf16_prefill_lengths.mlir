// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 query, key and value with a bf16 result: not causal, MQA 4/1,
// Tq = 70, Tk = 133 (an odd number of keys: the last key pair has a padding
// key), valid lengths 133 and 77, Dv = 48 != D = 32.
// Tolerance: rtol 5e-3, atol 2e-3: as attn_bf16_prefill_gqa (P rounded to
// bf16: within 2^-9 max|v| = 1.95e-3), plus the rounding of the result to
// bf16 (half an ulp, 2^-9 = 1.95e-3 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_prefill_lengths %t
// RUN: pe-run %s -e attn_bf16_prefill_lengths --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 5e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_prefill_lengths(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x1x133x32xbf16>, %v: tensor<2x1x133x48xbf16>, %l: tensor<2xi32>) -> tensor<2x4x70x48xbf16> {
  %attn_init0 = tensor.empty() : tensor<2x4x70x48xbf16>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x70x48xbf16>) : tensor<2x4x70x32xbf16>, tensor<2x1x133x32xbf16>, tensor<2x1x133x48xbf16> -> tensor<2x4x70x48xbf16>
  return %0 : tensor<2x4x70x48xbf16>
}
