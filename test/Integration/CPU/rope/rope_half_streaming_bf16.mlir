// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Half layout in bf16, rotary_dim 96 of D = 128, 16 heads x 8192 tokens from
// position 0: a 32 MiB result, which the CPU kernel writes with non-temporal
// stores of two adjacent channel chunks at a time (joined, rounded once):
// pairs of rotated low-half chunks, of a low and a high chunk (channels 32-63
// with 16 lanes), of high chunks and of the pass-through channels [96, 128).
// Tolerance: rtol 4e-3, atol 1e-6: the result is rounded once to bf16 (half an
// ulp is at most 2^-9 relative) from f32 arithmetic whose error is about 1e-7
// absolute at |x| < 1; a chunk stored at the wrong place or from the wrong
// lanes is off by O(1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_half_streaming_bf16 %t
// RUN: pe-run %s -e rope_half_streaming_bf16 --input=%t/x.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 4e-3 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_half_streaming_bf16(%x: tensor<1x16x8192x128xbf16>, %f: tensor<48xf32>) -> tensor<1x16x8192x128xbf16> {
  %0 = pe.rope half %x inv_freq(%f : tensor<48xf32>) {rotary_dim = 96 : i64} : tensor<1x16x8192x128xbf16>
  return %0 : tensor<1x16x8192x128xbf16>
}
