// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A decode step with RoPE on the query (position 299) and on 300 cached keys
// (positions 0..299), GQA 8/2, head dimension 256, causal. With fusion the
// CPU decode kernel rotates the keys itself, 16 at a time, one key per step
// of its score loop (D = 256), with a 12-key tail and the cache rows
// prefetched 8 KiB (8 rows) ahead, clamped to the last row.
// Tolerance: rtol 1e-5, atol 2e-6: f32 rope (~1e-7) feeding f32 attention
// (~1e-7 each); the reference uses the f32-rounded inv_freq.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py e2e_decode_rope_d256 %t
// RUN: pe-run %s -e e2e_decode_rope_d256 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @e2e_decode_rope_d256(%q: tensor<1x8x1x256xf32>, %k: tensor<1x2x300x256xf32>, %v: tensor<1x2x300x256xf32>) -> tensor<1x8x1x256xf32> {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<128xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<128xf32>) {static_offset = 299 : i64} : tensor<1x8x1x256xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<128xf32>) : tensor<1x2x300x256xf32>
  %init = tensor.empty() : tensor<1x8x1x256xf32>
  %0 = pe.attention %qr, %kr, %v outs(%init : tensor<1x8x1x256xf32>) {causal} : tensor<1x8x1x256xf32>, tensor<1x2x300x256xf32>, tensor<1x2x300x256xf32> -> tensor<1x8x1x256xf32>
  return %0 : tensor<1x8x1x256xf32>
}
