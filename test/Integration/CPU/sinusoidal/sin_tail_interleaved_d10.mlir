// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, 10 channels (a partial vector on every target); offset
// 5, dynamic T.
// The generated sinusoidal kernel takes it on every target (masked tails):
// the pe-opt runs fail on any convert-pe-to-vector remark for the AVX-512,
// AVX2 and NEON targets ("no generated sinusoidal kernel ...").
// Tolerance: rtol 2e-7, atol 1e-7: the encoding is evaluated in f64 and the
// sum rounded once to f32 (half an ulp, 2^-24 relative; atol for sums that
// cancel to near 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_tail_interleaved_d10 %t
// RUN: pe-run %s -e sin_tail_interleaved_d10 --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @sin_tail_interleaved_d10(%x: tensor<2x?x10xf32>, %o: index) -> tensor<2x?x10xf32> {
  %0 = pe.add_sinusoidal interleaved %x offset(%o : index) : tensor<2x?x10xf32>
  return %0 : tensor<2x?x10xf32>
}
