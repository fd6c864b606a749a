// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// pe.rope {sequence_dim = 1} rotates [B, S, H, D] = [2, 7, 3, 32] in place:
// tokens along dimension 1 at positions 11 + s, half layout, partial R = 24.
// Tolerance: rtol 1e-5, atol 1e-6 as the other f32 rope tests.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_bshd %t
// RUN: pe-run %s -e rope_bshd --input=%t/x.npy --input=%t/f.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_bshd(%x: tensor<2x7x3x32xf32>, %f: tensor<12xf64>, %o: index) -> tensor<2x7x3x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<12xf64>) offset(%o : index) {rotary_dim = 24 : i64, sequence_dim = 1 : i64} : tensor<2x7x3x32xf32>
  return %0 : tensor<2x7x3x32xf32>
}
