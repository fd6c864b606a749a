// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 pe.rope on [B, S, H, D] = [2, 5, 3, 24] with sequence_dim = 1, half
// layout, f16 per-token caches [2, 5, 12]: token s of batch b uses row [b, s]
// for its 3 heads.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-2, atol 1e-2: the result is rounded once to bf16 (half an
// ulp is 2^-8 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_bshd_bf16_per_token %t
// RUN: pe-run %s -e rope_bshd_bf16_per_token --input=%t/x.npy --input=%t/c.npy --input=%t/s.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @rope_bshd_bf16_per_token(%x: tensor<2x5x3x24xbf16>, %c: tensor<2x5x12xf16>, %s: tensor<2x5x12xf16>) -> tensor<2x5x3x24xbf16> {
  %0 = pe.rope half %x cache(%c, %s : tensor<2x5x12xf16>, tensor<2x5x12xf16>) {sequence_dim = 1 : i64} : tensor<2x5x3x24xbf16>
  return %0 : tensor<2x5x3x24xbf16>
}
