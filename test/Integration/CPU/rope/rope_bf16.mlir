// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// bf16 input (float32 .npy in and out), interleaved, partial R = 12 < D = 16,
// [T] positions i32 up to 4096.
// Tolerance: rtol 1e-2, atol 1e-2: the result is rounded once to bf16 (half an
// ulp is 2^-8 relative), from f32 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_bf16 %t
// RUN: pe-run %s -e rope_bf16 --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 1e-2 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_bf16(%x: tensor<8x16xbf16>, %f: tensor<6xf32>, %p: tensor<8xi32>) -> tensor<8x16xbf16> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<6xf32>) positions(%p : tensor<8xi32>) {rotary_dim = 12 : i64} : tensor<8x16xbf16>
  return %0 : tensor<8x16xbf16>
}
