// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 (argument and result travel as float32 .npy); static_offset 50.
// Tolerance: rtol 1e-2, atol 1e-2: the result is rounded once to bf16 (half an
// ulp is 2^-8 relative), from f32 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_bf16 %t
// RUN: pe-run %s -e sin_interleaved_bf16 --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_bf16(%x: tensor<8x16xbf16>) -> tensor<8x16xbf16> {
  %0 = pe.add_sinusoidal interleaved %x {static_offset = 50 : i64} : tensor<8x16xbf16>
  return %0 : tensor<8x16xbf16>
}
