// Property: RoPE is a rotation. For both layouts, full (R = D = 32) and
// partial (R = 24) rotary, at positions 5000..5015 (offset operand), every
// rotated pair of channels keeps its Euclidean norm, so does every head
// vector, and the pass-through channels [R, D) are bit-identical; the rotated
// channels must also have changed (a no-op would keep the norms).
// Compares pe-run outputs with its own inputs (lib/props.py norm). Tolerance:
// |norm' - norm| <= 1e-6 + 2e-6 * norm: f32 results of |x| < 2, each a few
// roundings (~2.4e-7 per rounding at that scale).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py prop_norm %t
// RUN: pe-run %s -e rope_interleaved --input=%t/x.npy --input=%t/f.npy --input=%t/o.npy --output=%t/inter.npy
// RUN: %python %pe_ref_lib/props.py norm %t x.npy inter.npy interleaved 32 | FileCheck %s
// RUN: pe-run %s -e rope_half --input=%t/x.npy --input=%t/f.npy --input=%t/o.npy --output=%t/half.npy
// RUN: %python %pe_ref_lib/props.py norm %t x.npy half.npy half 32 | FileCheck %s
// RUN: pe-run %s -e rope_half_partial --input=%t/x.npy --input=%t/f24.npy --input=%t/o.npy --output=%t/half24.npy
// RUN: %python %pe_ref_lib/props.py norm %t x.npy half24.npy half 24 | FileCheck %s
// RUN: pe-run %s -e rope_interleaved_partial --input=%t/x.npy --input=%t/f24.npy --input=%t/o.npy --output=%t/inter24.npy
// RUN: %python %pe_ref_lib/props.py norm %t x.npy inter24.npy interleaved 24 | FileCheck %s
// CHECK: props: PASS norm

func.func @rope_interleaved(%x: tensor<2x3x16x32xf32>, %f: tensor<16xf32>, %o: index) -> tensor<2x3x16x32xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<16xf32>) offset(%o : index) : tensor<2x3x16x32xf32>
  return %0 : tensor<2x3x16x32xf32>
}

func.func @rope_half(%x: tensor<2x3x16x32xf32>, %f: tensor<16xf32>, %o: index) -> tensor<2x3x16x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) offset(%o : index) : tensor<2x3x16x32xf32>
  return %0 : tensor<2x3x16x32xf32>
}

func.func @rope_half_partial(%x: tensor<2x3x16x32xf32>, %f: tensor<12xf32>, %o: index) -> tensor<2x3x16x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<12xf32>) offset(%o : index) {rotary_dim = 24 : i64} : tensor<2x3x16x32xf32>
  return %0 : tensor<2x3x16x32xf32>
}

func.func @rope_interleaved_partial(%x: tensor<2x3x16x32xf32>, %f: tensor<12xf32>, %o: index) -> tensor<2x3x16x32xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<12xf32>) offset(%o : index) {rotary_dim = 24 : i64} : tensor<2x3x16x32xf32>
  return %0 : tensor<2x3x16x32xf32>
}
