// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 pe.add_sinusoidal concat [2, 3, 20, 24] with [B, T] i32 positions
// (batch b = dimension 0, shared by its 3 rows; up to 2^20 + 3): each row
// evaluated at its own position in f64, the sum rounded once to bf16.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-2, atol 1e-2: the result is rounded once to bf16 (half an
// ulp is 2^-8 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_bf16_batch_positions %t
// RUN: pe-run %s -e sin_concat_bf16_batch_positions --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @sin_concat_bf16_batch_positions(%x: tensor<2x3x20x24xbf16>, %p: tensor<2x20xi32>) -> tensor<2x3x20x24xbf16> {
  %0 = pe.add_sinusoidal concat %x positions(%p : tensor<2x20xi32>) : tensor<2x3x20x24xbf16>
  return %0 : tensor<2x3x20x24xbf16>
}
