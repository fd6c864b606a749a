// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 pe.rope [2, 3, 70, 40], half layout, partial R = 36 (18 pairs: a
// masked last vector of pairs on every target), offset 9; 70 tokens span two
// 64-token blocks. Rows widened to f32, rotated, rounded once to bf16.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-2, atol 1e-2: the result is rounded once to bf16 (half an
// ulp is 2^-8 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_bf16_offset_tail %t
// RUN: pe-run %s -e rope_bf16_offset_tail --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @rope_bf16_offset_tail(%x: tensor<2x3x70x40xbf16>, %f: tensor<18xf32>, %o: index) -> tensor<2x3x70x40xbf16> {
  %0 = pe.rope half %x inv_freq(%f : tensor<18xf32>) offset(%o : index) {rotary_dim = 36 : i64} : tensor<2x3x70x40xbf16>
  return %0 : tensor<2x3x70x40xbf16>
}
