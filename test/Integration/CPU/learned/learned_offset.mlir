// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// x + table[offset + t] with a run-time offset (index); dynamic T. Second run:
// offset 28 with T = 10 and P = 32, so positions 32..37 are clamped to the
// last row (PEOps.td).
// Tolerance: rtol 1.2e-7, atol 0: one f32 addition of a gathered row, i.e. the
// exact sum rounded once (2^-24 relative).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py learned_offset %t/learned_offset
// RUN: pe-run %s -e learned_offset --input=%t/learned_offset/x.npy --input=%t/learned_offset/table.npy --input=%t/learned_offset/p.npy --output=%t/learned_offset/out.npy
// RUN: %npycmp %t/learned_offset/out.npy %t/learned_offset/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// RUN: %python %pe_ref_lib/cases.py learned_offset_clamp %t/learned_offset_clamp
// RUN: pe-run %s -e learned_offset --input=%t/learned_offset_clamp/x.npy --input=%t/learned_offset_clamp/table.npy --input=%t/learned_offset_clamp/p.npy --output=%t/learned_offset_clamp/out.npy
// RUN: %npycmp %t/learned_offset_clamp/out.npy %t/learned_offset_clamp/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_offset(%x: tensor<2x?x8xf32>, %t: tensor<32x8xf32>, %o: index) -> tensor<2x?x8xf32> {
  %0 = pe.add_learned %x, %t offset(%o : index) : tensor<2x?x8xf32>, tensor<32x8xf32>
  return %0 : tensor<2x?x8xf32>
}
