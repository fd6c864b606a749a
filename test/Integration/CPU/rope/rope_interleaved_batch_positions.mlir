// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Interleaved layout, [B, T] positions (i64) on a rank-4 input.
// Tolerance: rtol 1e-5, atol 1e-6: f32 result; the angle is formed in f64 and
// cos/sin and the rotation a*c - b*s round a few times at the scale of the
// inputs (|x| < 1), so about 1e-7 absolute; rtol/atol leave 10x headroom.

// The generated RoPE kernel takes the positions tensor on every target: the
// pe-opt runs fail on any convert-pe-to-vector remark for the AVX-512, AVX2
// and NEON targets ("no generated RoPE kernel ...").
// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_interleaved_batch_positions %t
// RUN: pe-run %s -e rope_interleaved_batch_positions --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// CHECK: npycmp: PASS

func.func @rope_interleaved_batch_positions(%x: tensor<2x3x5x16xf32>, %f: tensor<8xf32>, %p: tensor<2x5xi64>) -> tensor<2x3x5x16xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<8xf32>) positions(%p : tensor<2x5xi64>) : tensor<2x3x5x16xf32>
  return %0 : tensor<2x3x5x16xf32>
}
