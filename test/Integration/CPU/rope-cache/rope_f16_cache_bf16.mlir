// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 pe.rope [2, 2, 9, 20], interleaved, with bf16 cos/sin caches [16, 10]
// (rows widened to f32), static offset 4 (rows 4 .. 12), attention scaling
// 0.5.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-3, atol 1e-3: the result is rounded once to f16 (half an
// ulp is 2^-11 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_f16_cache_bf16 %t
// RUN: pe-run %s -e rope_f16_cache_bf16 --input=%t/x.npy --input=%t/c.npy --input=%t/s.npy --input=%t/m.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @rope_f16_cache_bf16(%x: tensor<2x2x9x20xf16>, %c: tensor<16x10xbf16>, %s: tensor<16x10xbf16>, %m: f32) -> tensor<2x2x9x20xf16> {
  %0 = pe.rope interleaved %x cache(%c, %s : tensor<16x10xbf16>, tensor<16x10xbf16>) attention_scaling(%m) {static_offset = 4 : i64} : tensor<2x2x9x20xf16>
  return %0 : tensor<2x2x9x20xf16>
}
