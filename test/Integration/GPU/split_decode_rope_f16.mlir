// Execution test of the split-KV decode kernels on the Vulkan target with a
// dynamic key length: pe-run --gpu-decode-split-keys=64 gives 5 splits of
// the 300 cached keys, a count the host computes at run time. The result is
// compared with the float64 numpy reference (test/Integration/lib/cases.py).
//
// pe.rope (half, f64 table) of an f16 query at position 299 and of f16 keys
// at 0..299, fused into the attention; MHA with 4 heads, D = 64, causal,
// softcap 20, f32 result.
// Tolerance: rtol 2e-3, atol 1e-3: the rotated q and k are rounded to f16
// as in the reference, where an f32 rounding difference can move one of them
// by an f16 ulp (2^-11 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py split_decode_rope_f16 %t
// RUN: pe-run %s -e split_decode_rope_f16 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy --pipeline=vulkan --gpu-decode-split-keys=64
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @split_decode_rope_f16(%q: tensor<2x4x1x64xf16>, %k: tensor<2x4x?x64xf16>, %v: tensor<2x4x?x64xf16>, %f: tensor<32xf64>) -> tensor<2x4x1x64xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf64>) {static_offset = 299 : i64} : tensor<2x4x1x64xf16>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf64>) : tensor<2x4x?x64xf16>
  %attn_init0 = tensor.empty() : tensor<2x4x1x64xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<2x4x1x64xf32>) {causal, softcap = 20.0 : f64} : tensor<2x4x1x64xf16>, tensor<2x4x?x64xf16>, tensor<2x4x?x64xf16> -> tensor<2x4x1x64xf32>
  return %0 : tensor<2x4x1x64xf32>
}
