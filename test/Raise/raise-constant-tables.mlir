// A rotary embedding whose cos/sin tables are constants: the pass compares
// the two halves of each table at compile time, with or without
// assume-duplicated-tables. Equal halves raise with no run-time check;
// halves that differ are not raised, with a remark naming the table.
// RUN: pe-opt %s --pe-raise-pipeline --remarks-filter=pe-raise 2>&1 | FileCheck %s
// RUN: pe-opt %s --pe-raise-pipeline=assume-duplicated-tables --remarks-filter=pe-raise 2>&1 | FileCheck %s

// CHECK: raise-constant-tables.mlir:[[@LINE+38]]:{{.*}} remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the constant cos table holds different values for the two channels of a rotated pair"
// CHECK-NOT: remark
// CHECK-LABEL: func.func @duplicated(
// CHECK-NOT: cf.assert
// CHECK: pe.rope half %{{.*}} cache(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xf32>) : tensor<1x1x2x4xf32>
// CHECK-NOT: cf.assert
// CHECK: return
func.func @duplicated(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %c = arith.constant dense<[[1.0, 0.5, 1.0, 0.5], [0.25, 0.75, 0.25, 0.75]]> : tensor<2x4xf32>
  %s = arith.constant dense<[[0.0, 0.8, 0.0, 0.8], [0.9, 0.6, 0.9, 0.6]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<1x1x2x4xf32>
  %cb = linalg.broadcast ins(%c : tensor<2x4xf32>) outs(%e : tensor<1x1x2x4xf32>) dimensions = [0, 1]
  %sb = linalg.broadcast ins(%s : tensor<2x4xf32>) outs(%e : tensor<1x1x2x4xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x4xf32> to tensor<1x1x2x2xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 2] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x4xf32> to tensor<1x1x2x2xf32>
  %n = arith.negf %x2 : tensor<1x1x2x2xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %a = arith.mulf %x, %cb : tensor<1x1x2x4xf32>
  %b = arith.mulf %rot, %sb : tensor<1x1x2x4xf32>
  %r = arith.addf %a, %b : tensor<1x1x2x4xf32>
  return %r : tensor<1x1x2x4xf32>
}

// CHECK-LABEL: func.func @halves_differ(
// CHECK-NOT: pe.rope
// CHECK: return
func.func @halves_differ(%x: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %c = arith.constant dense<[[1.0, 0.5, 1.0, 0.4], [0.25, 0.75, 0.25, 0.75]]> : tensor<2x4xf32>
  %s = arith.constant dense<[[0.0, 0.8, 0.0, 0.8], [0.9, 0.6, 0.9, 0.6]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<1x1x2x4xf32>
  %cb = linalg.broadcast ins(%c : tensor<2x4xf32>) outs(%e : tensor<1x1x2x4xf32>) dimensions = [0, 1]
  %sb = linalg.broadcast ins(%s : tensor<2x4xf32>) outs(%e : tensor<1x1x2x4xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x4xf32> to tensor<1x1x2x2xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 2] [1, 1, 2, 2] [1, 1, 1, 1] : tensor<1x1x2x4xf32> to tensor<1x1x2x2xf32>
  %n = arith.negf %x2 : tensor<1x1x2x2xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x4xf32>
  %a = arith.mulf %x, %cb : tensor<1x1x2x4xf32>
  %b = arith.mulf %rot, %sb : tensor<1x1x2x4xf32>
  %r = arith.addf %a, %b : tensor<1x1x2x4xf32>
  return %r : tensor<1x1x2x4xf32>
}
