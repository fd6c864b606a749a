// A float32 elementwise function: pe-run's result must equal NumPy's a + b.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'a=np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)' \
// RUN:   'b=(np.arange(24, dtype=np.float32) * 0.25).reshape(4, 6)' \
// RUN:   'expected=a + b'
// RUN: pe-run %s -e add --input=%t/a.npy --input=%t/b.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/Inputs/npy.py %t '?load("out").dtype, load("out").shape' \
// RUN:   | FileCheck %s --check-prefix=META

// CHECK: npycmp: PASS
// META: (dtype('float32'), (4, 6))

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<4x6xf32>, %b: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<4x6xf32>, tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// Not the entry: pe-run lowers the whole module, so other functions must
// compile too.
func.func @scale(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %c = arith.constant dense<2.0> : tensor<4x6xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.mul ins(%a, %c : tensor<4x6xf32>, tensor<4x6xf32>)
                  outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
