// An attention over dynamic Tq and Tk (tensor<1x2x?x16xf32>, as torch-mlir
// emits for dynamic sequence lengths), its softmax as linalg.softmax: the
// tracer needs only the head dimensions to be static.
// RUN: pe-opt --pe-raise %s | FileCheck %s
// Executed raised on Tq = 3, Tk = 6 against the float64 reference, rtol
// 1e-5, atol 1e-6.
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-opt --pe-raise %s -o %t/raised.mlir
// RUN: %python %pe_ref_lib/raise_ref.py attn_dynamic %t
// (The original attention, spelled with linalg.softmax, is only run raised:
// pe-run's reference pipeline, the upstream lowering of linalg to loops,
// does not decompose linalg.softmax.)
// RUN: pe-run %t/raised.mlir -e attn_dynamic --pipeline=cpu --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/raised.npy
// RUN: %npycmp %t/raised.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NUM
// NUM: npycmp: PASS

// The scores are not scaled: scale 1. Tq = 3 queries over Tk = 6 keys at
// run time.
// CHECK-LABEL: func.func @attn_dynamic(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x?x16xf32>, %[[K:[^:]*]]: tensor<1x2x?x16xf32>, %[[V:[^:]*]]: tensor<1x2x?x16xf32>)
// The raised op's destination: a tensor.empty sized like the query.
// CHECK: %[[TQ:.*]] = tensor.dim %[[Q]], %{{.*}} : tensor<1x2x?x16xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[TQ]]) : tensor<1x2x?x16xf32>
// CHECK: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[V]] outs(%[[INIT]] : tensor<1x2x?x16xf32>) {scale = 1.000000e+00 : f64} : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x2x?x16xf32>
// CHECK: return %[[O]]
func.func @attn_dynamic(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x2x?x16xf32> {
  %c2 = arith.constant 2 : index
  %tq = tensor.dim %q, %c2 : tensor<1x2x?x16xf32>
  %tk = tensor.dim %k, %c2 : tensor<1x2x?x16xf32>
  %e0 = tensor.empty(%tk) : tensor<1x2x16x?xf32>
  %kt = linalg.transpose ins(%k : tensor<1x2x?x16xf32>) outs(%e0 : tensor<1x2x16x?xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x?xf32> into tensor<2x16x?xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty(%tq, %tk) : tensor<2x?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x?x16xf32>, tensor<2x16x?xf32>) outs(%acc : tensor<2x?x?xf32>) -> tensor<2x?x?xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, %tq, %tk] : tensor<2x?x?xf32> into tensor<1x2x?x?xf32>
  %e3 = tensor.empty(%tq, %tk) : tensor<1x2x?x?xf32>
  %p = linalg.softmax dimension(3) ins(%s4 : tensor<1x2x?x?xf32>) outs(%e3 : tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x?x?xf32> into tensor<2x?x?xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x?x16xf32> into tensor<2x?x16xf32>
  %e4 = tensor.empty(%tq) : tensor<2x?x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x?x?xf32>, tensor<2x?x16xf32>) outs(%acc2 : tensor<2x?x16xf32>) -> tensor<2x?x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, %tq, 16] : tensor<2x?x16xf32> into tensor<1x2x?x16xf32>
  return %o4 : tensor<1x2x?x16xf32>
}
