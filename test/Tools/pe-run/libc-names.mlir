// Functions of the input named like C library functions (sin, exp, malloc)
// run: the lowered code's own calls to those functions (LLVM lowers math.sin
// to a call to `sin`, allocations call `malloc`) must not reach the input's
// functions, which pe-run renames in the JIT (a function `sin` used to
// recurse into itself until the stack overflowed).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'x=np.zeros((2, 16), np.float32)' \
// RUN:   'p=np.arange(2, dtype=np.float64)[:, None]' 'k=np.arange(8)' \
// RUN:   'w=10000.0 ** (-2.0 * k / 16)' \
// RUN:   'e=np.stack([np.sin(p * w), np.cos(p * w)], axis=-1).reshape(2, 16).astype(np.float32)'
// RUN: pe-run %s -e sin --input=%t/x.npy --output=%t/sin.npy
// RUN: %npycmp %t/sin.npy %t/e.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// RUN: pe-run %s -e malloc --pipeline=cpu --check=reference --input=%t/x.npy --output=%t/malloc.npy
// RUN: %npycmp %t/malloc.npy %t/e.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// RUN: pe-run %s -e exp --input=%t/x.npy --output=%t/exp.npy
// RUN: %npycmp %t/exp.npy %t/e.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @malloc(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %0 = call @sin(%x) : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @exp(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %0 = call @malloc(%x) : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
