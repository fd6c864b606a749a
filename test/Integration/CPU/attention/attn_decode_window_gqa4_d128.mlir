// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Decode, f32, GQA 8/2 (groups of 4) with head dimension 128, a window of 150
// keys into lengths 237 and 300: the visible keys [87, 237) and [150, 300)
// start off a multiple of 16. The decode kernel's P V loop (one chunk of 32
// accumulators) takes the softmax weights of the next 16 keys at every 16th
// key from the window's start; the last block is partial (6 keys).
// Tolerance: rtol 1e-5, atol 1e-6: f32 math; the scores are summed in a
// different order than the reference's.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_decode_window_gqa4_d128 %t
// RUN: pe-run %s -e attn_decode_window_gqa4_d128 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_decode_window_gqa4_d128(%q: tensor<2x8x1x128xf32>, %k: tensor<2x2x300x128xf32>, %v: tensor<2x2x300x128xf32>, %l: tensor<2xi32>) -> tensor<2x8x1x128xf32> {
  %attn_init0 = tensor.empty() : tensor<2x8x1x128xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%l : tensor<2xi32>) outs(%attn_init0 : tensor<2x8x1x128xf32>) {causal, window = 150 : i64} : tensor<2x8x1x128xf32>, tensor<2x2x300x128xf32>, tensor<2x2x300x128xf32> -> tensor<2x8x1x128xf32>
  return %0 : tensor<2x8x1x128xf32>
}
