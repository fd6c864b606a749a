// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// f16 pe.rope on [S, B, H, D] = [70, 2, 3, 16] with sequence_dim = 0 (tokens
// first), interleaved, f64 frequencies, offset 100.
// The generated kernel takes it on every target: the pe-opt runs fail on any
// convert-pe-to-vector remark for the AVX-512, AVX2 and NEON targets.
// Tolerance: rtol 1e-3, atol 1e-3: the result is rounded once to f16 (half an
// ulp is 2^-11 relative), from f32 or f64 arithmetic.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_sbhd_f16 %t
// RUN: pe-run %s -e rope_sbhd_f16 --input=%t/x.npy --input=%t/f.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null

func.func @rope_sbhd_f16(%x: tensor<70x2x3x16xf16>, %f: tensor<8xf64>, %o: index) -> tensor<70x2x3x16xf16> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<8xf64>) offset(%o : index) {sequence_dim = 0 : i64} : tensor<70x2x3x16xf16>
  return %0 : tensor<70x2x3x16xf16>
}
