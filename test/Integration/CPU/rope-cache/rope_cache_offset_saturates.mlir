// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// A run-time offset of 2^63 - 2 over 4 tokens and a 16-row cache: the last
// positions pass INT64_MAX, saturate there (no wrap to negative positions)
// and, like every position past the table, read the clamped last row. Both
// the reference lowering and the generated RoPE kernel (pe-cpu-pipeline) form
// positions this way.
// Tolerance: rtol 1e-6, atol 1e-7: one f32 rotation of table values.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py rope_cache_offset_saturates %t
// RUN: pe-run %s -e rope_cache_offset_saturates --input=%t/x.npy --input=%t/c.npy --input=%t/s.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-6 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_cache_offset_saturates(%x: tensor<2x4x32xf32>, %c: tensor<16x16xf32>, %s: tensor<16x16xf32>, %o: index) -> tensor<2x4x32xf32> {
  %0 = pe.rope half %x cache(%c, %s : tensor<16x16xf32>, tensor<16x16xf32>) offset(%o : index) : tensor<2x4x32xf32>
  return %0 : tensor<2x4x32xf32>
}
