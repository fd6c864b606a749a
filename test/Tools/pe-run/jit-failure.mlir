// A function whose lowered code calls a symbol that no loaded library
// defines: the JIT error, then one 'pe-run: error:' line; non-zero exit
// status. --shared-libs does not help when the symbol is nowhere.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'a=np.zeros(4, dtype=np.float32)'
// RUN: not pe-run %s -e f --input=%t/a.npy --output=%t/o.npy 2>&1 | FileCheck %s
// RUN: not ls %t/o.npy

// CHECK: Symbols not found: [ pe_run_test_no_such_function ]
// CHECK: pe-run: error: JIT compilation (pipeline 'reference') failed:

func.func private @pe_run_test_no_such_function(f32) -> f32

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = func.call @pe_run_test_no_such_function(%x) : (f32) -> f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
