// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 pe.add_sinusoidal interleaved [5, 40] with 1-D i64 positions (not
// increasing) and scale_input (x times sqrt(40)).
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-3, atol 2e-3: the result (up to about 7.4) is rounded
// once to f16 (half an ulp is 2^-11 relative), from f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_f16_positions %t
// RUN: pe-run %s -e sin_interleaved_f16_positions --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 2e-3 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @sin_interleaved_f16_positions(%x: tensor<5x40xf16>, %p: tensor<5xi64>) -> tensor<5x40xf16> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<5xi64>) {scale_input} : tensor<5x40xf16>
  return %0 : tensor<5x40xf16>
}
