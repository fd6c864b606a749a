// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.rope (half, an f64 table, positions 3 + t) of bf16 q and k, then causal
// GQA 4/2 attention with an f32 result, T = 100, D = 64; pe-cpu-pipeline
// fuses the ropes into the attention. The rotated q and k are bf16 (the
// rope's result type; the kernel rounds them likewise before the dot
// products), and so is the reference's.
// Tolerance: rtol 1e-3, atol 2e-3: the bf16 inputs are exact; the bf16
// dot-product kernel (pe-cpu-pipeline on a target with AVX512-BF16) rounds
// the softmax weights P to bf16 before P V (each within 2^-9 relative, so
// the result within 2^-9 max|v| = 1.95e-3 of the f32 math); the rest is f32.

// The fused comparison with the reference pipeline (--check=reference of the
// cpu runs, rtol 1e-2 atol 1e-3) holds for the bf16 dot-product kernel, which
// rounds the rotated q and k to bf16 as the reference does. The f32 kernel
// that other targets run on widened operands does not round them (allowed by
// pe.attention's description) and differs from the reference by up to about
// 3e-3 here, so the test is not run through those targets.
// UNSUPPORTED: pe-pipeline-cpu && !host-avx512bf16
// UNSUPPORTED: pe-pipeline-cpu-avx2, pe-pipeline-cpu-sse2, pe-pipeline-cpu-aarch64
// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_bf16_rope %t
// RUN: pe-run %s -e attn_bf16_rope --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bf16_rope(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>, %f: tensor<32xf64>) -> tensor<1x4x100x64xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf64>) {static_offset = 3 : i64} : tensor<1x4x100x64xbf16>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf64>) {static_offset = 3 : i64} : tensor<1x2x100x64xbf16>
  %attn_init0 = tensor.empty() : tensor<1x4x100x64xf32>
  %0 = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x4x100x64xf32>) {causal} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xf32>
  return %0 : tensor<1x4x100x64xf32>
}
