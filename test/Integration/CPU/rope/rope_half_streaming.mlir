// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Half layout, D = 128, 9 heads x 8192 tokens from position 0: a 36 MiB
// result, written with non-temporal stores by the CPU kernel (results of
// 32 MiB or more); 9 heads per token in groups of 8 and 1.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_half_streaming %t
// RUN: pe-run %s -e rope_half_streaming --input=%t/x.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_half_streaming(%x: tensor<1x9x8192x128xf32>, %f: tensor<64xf32>) -> tensor<1x9x8192x128xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<1x9x8192x128xf32>
  return %0 : tensor<1x9x8192x128xf32>
}
