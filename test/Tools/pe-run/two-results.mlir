// A function with two results of different shapes: each --output gets its
// own result, in order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'a=np.linspace(-1, 2, 15, dtype=np.float32).reshape(3, 5)' \
// RUN:   'b=np.linspace(4, -4, 15, dtype=np.float32).reshape(3, 5)' \
// RUN:   'sum=a + b' 'rowmax=np.max(a * b, axis=1)'
// RUN: pe-run %s -e two --input=%t/a.npy --input=%t/b.npy \
// RUN:   --output=%t/out0.npy --output=%t/out1.npy
// RUN: %npycmp %t/out0.npy %t/sum.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %npycmp %t/out1.npy %t/rowmax.npy --rtol 0 --atol 0 | FileCheck %s

// CHECK: npycmp: PASS

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @two(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>)
    -> (tensor<3x5xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x5xf32>
  %sum = linalg.add ins(%a, %b : tensor<3x5xf32>, tensor<3x5xf32>)
                    outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.generic {indexing_maps = [#id, #id, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%a, %b : tensor<3x5xf32>, tensor<3x5xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %m = arith.maximumf %acc, %p : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  return %sum, %max : tensor<3x5xf32>, tensor<3xf32>
}
