// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 input (computed in f32, rounded once), half layout, offset 5.
// Tolerance: rtol 1e-3, atol 1e-3: the result is rounded once to f16 (half an
// ulp is 2^-11 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_f16 %t
// RUN: pe-run %s -e rope_f16 --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_f16(%x: tensor<2x8x16xf16>, %f: tensor<8xf32>, %o: index) -> tensor<2x8x16xf16> {
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) offset(%o : index) : tensor<2x8x16xf16>
  return %0 : tensor<2x8x16xf16>
}
