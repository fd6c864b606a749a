// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f32 attention [1, 2, 6, 16] with interleaved RoPE from f16 cos/sin caches
// [16, 8] (rows widened to f32 into the kernel's tables), positions 0 .. 5.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-5, atol 1e-6: the attention math runs in f32; outputs
// are convex combinations of values in [-1, 1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_rope_cache_f16 %t
// RUN: pe-run %s -e attn_rope_cache_f16 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/c.npy --input=%t/s.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @attn_rope_cache_f16(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>, %c: tensor<16x8xf16>, %s: tensor<16x8xf16>) -> tensor<1x2x6x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x2x6x16xf32>
  %0 = pe.attention %q, %k, %v rope <interleaved> cache(%c, %s : tensor<16x8xf16>, tensor<16x8xf16>) outs(%attn_init0 : tensor<1x2x6x16xf32>) : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32> -> tensor<1x2x6x16xf32>
  return %0 : tensor<1x2x6x16xf32>
}
