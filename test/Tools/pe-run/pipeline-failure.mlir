// A function the pipeline cannot lower (tosa has no bufferization): the
// located pass diagnostic, then the pipeline error; non-zero exit status.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'a=np.zeros(4, dtype=np.float32)'
// RUN: not pe-run %s -e f --input=%t/a.npy --output=%t/o.npy 2>&1 | FileCheck %s
// RUN: not pe-run %s -e f --input=%t/a.npy --check=reference 2>&1 | FileCheck %s
// RUN: not ls %t/o.npy

// CHECK: pipeline-failure.mlir:[[# @LINE + 3]]:8: error: op was not bufferized
// CHECK: pe-run: error: pipeline 'reference' failed
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
