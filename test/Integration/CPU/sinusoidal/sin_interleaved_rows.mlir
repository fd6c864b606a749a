// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, 150 tokens (dynamic T) from offset 37: three 64-token
// blocks, the last of 22 rows. The CPU kernel evaluates each block's first
// row directly and advances the others by angle addition, 8 rows per pass
// over the channels and the block's last rows one by one: every kind of row
// is checked here.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_rows %t
// RUN: pe-run %s -e sin_interleaved_rows --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_rows(%x: tensor<2x?x64xf32>, %o: index) -> tensor<2x?x64xf32> {
  %0 = pe.add_sinusoidal interleaved %x offset(%o : index) : tensor<2x?x64xf32>
  return %0 : tensor<2x?x64xf32>
}
