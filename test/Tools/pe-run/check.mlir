// --check=reference compiles the function a second time and compares each
// result; --output stays optional and, when given, holds the results of
// --pipeline.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'x=np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)' \
// RUN:   'y=np.linspace(5, 1, 24, dtype=np.float32).reshape(4, 6)' \
// RUN:   'expected=np.exp(x) * y'
// RUN: pe-run %s -e f --input=%t/x.npy --input=%t/y.npy --check=reference \
// RUN:   | FileCheck %s
// RUN: pe-run %s -e f --input=%t/x.npy --input=%t/y.npy --pipeline=reference \
// RUN:   --check=reference --rtol=0.5 --atol=0 --output=%t/o0.npy --output=%t/o1.npy \
// RUN:   | FileCheck %s --check-prefix=TOL
// RUN: %npycmp %t/o0.npy %t/expected.npy --rtol 1e-6 --atol 0 | FileCheck %s --check-prefix=CMP
// RUN: pe-run %s -e f --random-inputs --seed=3 --check=reference \
// RUN:   | FileCheck %s --check-prefix=RANDOM

// CHECK:      pe-run: check result 0: max_abs_err=0 max_rel_err=0 rtol=1e-05 atol=1e-06: PASS
// CHECK-NEXT: pe-run: check result 1: max_abs_err=0 max_rel_err=0 rtol=1e-05 atol=1e-06: PASS
// CHECK-NOT:  pe-run:
// TOL:        pe-run: check result 0: max_abs_err=0 max_rel_err=0 rtol=0.5 atol=0: PASS
// TOL-NEXT:   pe-run: check result 1: {{.*}}: PASS
// CMP:        npycmp: PASS
// RANDOM-COUNT-2: pe-run: check result {{[01]}}: max_abs_err={{.*}} max_rel_err={{.*}} rtol=1e-05 atol=1e-06: PASS

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xi1>) {
  %e = tensor.empty() : tensor<4x6xf32>
  %e1 = tensor.empty() : tensor<4x6xi1>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id],
                         iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x6xf32>, tensor<4x6xf32>)
      outs(%e, %e1 : tensor<4x6xf32>, tensor<4x6xi1>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %o1: i1):
    %ea = math.exp %a : f32
    %m = arith.mulf %ea, %b : f32
    %c = arith.cmpf ogt, %a, %b : f32
    linalg.yield %m, %c : f32, i1
  } -> (tensor<4x6xf32>, tensor<4x6xi1>)
  return %r#0, %r#1 : tensor<4x6xf32>, tensor<4x6xi1>
}
