// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// The concat layout in bf16, 4100 tokens x 4096 channels from position 0: a
// 33.6 MB result, which the CPU kernel streams two adjacent vectors at a time
// (each pair rounded, joined and written by one non-temporal store).
// Tolerance: rtol 4e-3, atol 1e-6: x + PE is formed in f64 and rounded once to
// bf16 (half an ulp is at most 2^-9 relative); a vector stored at the wrong
// place is off by O(1).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_concat_streaming_bf16 %t
// RUN: pe-run %s -e sin_concat_streaming_bf16 --input=%t/x.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 4e-3 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_concat_streaming_bf16(%x: tensor<4100x4096xbf16>) -> tensor<4100x4096xbf16> {
  %0 = pe.add_sinusoidal concat %x : tensor<4100x4096xbf16>
  return %0 : tensor<4100x4096xbf16>
}
