// linalg.matmul on tensors against NumPy (float64 reference, float32 result).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   '!rng = np.random.default_rng(7)' \
// RUN:   'a=rng.uniform(-1, 1, (16, 32)).astype(np.float32)' \
// RUN:   'b=rng.uniform(-1, 1, (32, 8)).astype(np.float32)' \
// RUN:   'expected=a.astype(np.float64) @ b.astype(np.float64)'
// RUN: pe-run %s -e matmul --input=%t/a.npy --input=%t/b.npy --output=%t/c.npy
// RUN: %npycmp %t/c.npy %t/expected.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s

// CHECK: npycmp: PASS

func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>)
                     outs(%c0 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %c : tensor<16x8xf32>
}
