// Zero-size tensors (a dimension of 0) as inputs and results: there is no
// data to copy in or out (the .npy payload is empty), with static and dynamic
// shapes, --random-inputs, --repeat and --check. In a PE_SANITIZE build
// (utils/pe.sh test --sanitize) UBSan fails this test if pe-run hands a null
// data pointer to memcpy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'z=np.zeros((0, 4), dtype=np.float32)' \
// RUN:   'zd=np.zeros((3, 0), dtype=np.float64)' \
// RUN:   'zi=np.zeros((0,), dtype=np.int32)' 'x=np.arange(5, dtype=np.int32)'
// RUN: pe-run %s -e add --input=%t/z.npy --input=%t/z.npy --output=%t/add.npy
// RUN: pe-run %s -e add --random-inputs --output=%t/radd.npy
// RUN: pe-run %s -e add --input=%t/z.npy --input=%t/z.npy --repeat=2 \
// RUN:   --check=reference | FileCheck %s --check-prefix=CHECK-RESULT
// RUN: pe-run %s -e sum --input=%t/z.npy --output=%t/sum.npy
// RUN: pe-run %s -e neg --input=%t/zd.npy --output=%t/neg.npy
// RUN: pe-run %s -e concat --input=%t/zi.npy --input=%t/x.npy --output=%t/cat.npy
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   '?load("add").dtype, load("add").shape, load("radd").shape' \
// RUN:   '?load("sum").tolist()' \
// RUN:   '?load("neg").dtype, load("neg").shape' \
// RUN:   '?load("cat").tolist()' | FileCheck %s

// CHECK-RESULT: pe-run: check result 0: {{.*}}: PASS
// CHECK: (dtype('float32'), (0, 4), (0, 4))
// CHECK-NEXT: [0.0, 0.0, 0.0, 0.0]
// CHECK-NEXT: (dtype('float64'), (3, 0))
// CHECK-NEXT: [0, 1, 2, 3, 4]

func.func @add(%a: tensor<0x4xf32>, %b: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tensor.empty() : tensor<0x4xf32>
  %r = linalg.add ins(%a, %b : tensor<0x4xf32>, tensor<0x4xf32>)
                  outs(%e : tensor<0x4xf32>) -> tensor<0x4xf32>
  return %r : tensor<0x4xf32>
}

// A reduction over the empty dimension: a non-empty result from no data.
func.func @sum(%a: tensor<0x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%a : tensor<0x4xf32>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

func.func @neg(%a: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf64>
  %m = tensor.dim %a, %c1 : tensor<?x?xf64>
  %e = tensor.empty(%n, %m) : tensor<?x?xf64>
  %r = linalg.negf ins(%a : tensor<?x?xf64>) outs(%e : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

// An empty input next to a non-empty one.
func.func @concat(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
