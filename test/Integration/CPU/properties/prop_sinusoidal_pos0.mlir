// Property: PE(pos = 0) is [0, 1, 0, 1, ...] in the interleaved layout and
// [0 ... 0 | 1 ... 1] in the concat layout (odd C: a final 0), written out
// in closed form (not pe_ref). Zero inputs with every token at position 0:
// the default position of a single token (no offset), [T] positions of zeros
// (an argument) and [B, T] / [T] zeros built in the IR, for C = 16 and 9.
// Tolerance: rtol 0, atol 0 (sin 0 = 0 and cos 0 = 1 exactly; the input is 0).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py prop_pos0 %t
// RUN: pe-run %s -e inter1 --input=%t/zeros1.npy --output=%t/inter1.npy
// RUN: %npycmp %t/inter1.npy %t/expected_inter1.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e inter16 --input=%t/zeros16.npy --input=%t/p0.npy --output=%t/inter16.npy
// RUN: %npycmp %t/inter16.npy %t/expected_inter16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e inter9 --input=%t/zeros9.npy --output=%t/inter9.npy
// RUN: %npycmp %t/inter9.npy %t/expected_inter9.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e concat1 --input=%t/zeros1.npy --output=%t/concat1.npy
// RUN: %npycmp %t/concat1.npy %t/expected_concat1.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e concat16 --input=%t/zeros16.npy --input=%t/p0.npy --output=%t/concat16.npy
// RUN: %npycmp %t/concat16.npy %t/expected_concat16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e concat9 --input=%t/zeros9.npy --output=%t/concat9.npy
// RUN: %npycmp %t/concat9.npy %t/expected_concat9.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @inter1(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

func.func @inter16(%x: tensor<4x16xf32>, %p: tensor<4xi32>) -> tensor<4x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<4xi32>) : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @inter9(%x: tensor<1x2x3x9xf32>) -> tensor<1x2x3x9xf32> {
  %p = arith.constant dense<0> : tensor<1x3xi64>
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<1x3xi64>) : tensor<1x2x3x9xf32>
  return %0 : tensor<1x2x3x9xf32>
}

func.func @concat1(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

func.func @concat16(%x: tensor<4x16xf32>, %p: tensor<4xi32>) -> tensor<4x16xf32> {
  %0 = pe.add_sinusoidal concat %x positions(%p : tensor<4xi32>) : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @concat9(%x: tensor<1x2x3x9xf32>) -> tensor<1x2x3x9xf32> {
  %p = arith.constant dense<0> : tensor<3xi32>
  %0 = pe.add_sinusoidal concat %x positions(%p : tensor<3xi32>) : tensor<1x2x3x9xf32>
  return %0 : tensor<1x2x3x9xf32>
}
