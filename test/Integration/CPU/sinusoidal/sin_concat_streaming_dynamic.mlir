// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Concat layout, a dynamic count of 4100 tokens of 2048 channels: the CPU
// kernel decides at run time to stream (33.6 MB); 64-token tasks, the last
// of 4 tokens, each 8-row pass prefetching both halves' lines of the next
// pass's rows.
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_streaming_dynamic %t
// RUN: pe-run %s -e sin_concat_streaming_dynamic --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_concat_streaming_dynamic(%x: tensor<?x2048xf32>) -> tensor<?x2048xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<?x2048xf32>
  return %0 : tensor<?x2048xf32>
}
