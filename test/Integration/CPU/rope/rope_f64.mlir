// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f64 input and inv_freq, half layout, offset 1000.
// Tolerance: rtol 1e-12, atol 1e-12: f64 throughout, angles up to ~1e3 rad.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_f64 %t
// RUN: pe-run %s -e rope_f64 --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-12 --atol 1e-12 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_f64(%x: tensor<2x8x16xf64>, %f: tensor<8xf64>, %o: index) -> tensor<2x8x16xf64> {
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf64>) offset(%o : index) : tensor<2x8x16xf64>
  return %0 : tensor<2x8x16xf64>
}
