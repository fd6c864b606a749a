// Dynamic dimensions take the sizes of the input files; the result's shape
// comes from the returned descriptor.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'a=np.arange(15, dtype=np.float32).reshape(5, 3)' \
// RUN:   'b=np.full((5, 3), -0.5, dtype=np.float32)' 'exp5=a * b' \
// RUN:   'a1=np.arange(3, dtype=np.float32).reshape(1, 3)' \
// RUN:   'b1=np.full((1, 3), 2, dtype=np.float32)' 'exp1=a1 * b1' \
// RUN:   'a0=np.zeros((0, 3), dtype=np.float32)' 'exp0=a0'
// RUN: pe-run %s -e mul --input=%t/a.npy --input=%t/b.npy --output=%t/out5.npy
// RUN: %npycmp %t/out5.npy %t/exp5.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e mul --input=%t/a1.npy --input=%t/b1.npy --output=%t/out1.npy
// RUN: %npycmp %t/out1.npy %t/exp1.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e mul --input=%t/a0.npy --input=%t/a0.npy --output=%t/out0.npy
// RUN: %npycmp %t/out0.npy %t/exp0.npy --rtol 0 --atol 0 | FileCheck %s
// A static dimension next to the dynamic one must still match.
// RUN: %python %S/Inputs/npy.py %t 'w=np.zeros((5, 4), dtype=np.float32)'
// RUN: not pe-run %s -e mul --input=%t/w.npy --input=%t/b.npy --output=%t/x.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATIC

// CHECK: npycmp: PASS
// STATIC: pe-run: error: argument 0 (tensor<?x3xf32>) from '{{.*}}w.npy': expected shape (?, 3), got (5, 4)

func.func @mul(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = linalg.mul ins(%a, %b : tensor<?x3xf32>, tensor<?x3xf32>)
                  outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
