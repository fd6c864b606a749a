// The rotations assume-duplicated-tables does not raise, each with the
// missed remark that says why: the run-time check it inserts compares two
// slices of one table, so the second channels of the pairs must read the
// same table as the first channels, at one constant offset along one
// dimension. (Spelled with tensor-level ops, raised through
// pe-raise-pipeline as in raise-pipeline.mlir.)
// RUN: pe-opt %s --convert-elementwise-to-linalg --pe-raise=assume-duplicated-tables --remarks-filter=pe-raise --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-raise-pipeline=assume-duplicated-tables --remarks-filter=pe-raise 2>&1 | FileCheck %s
// CHECK: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="assume-duplicated-tables: the second channel of each rotated pair does not read
// CHECK: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the two channels of a rotated pair read different cos/sin tensors
// CHECK: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="assume-duplicated-tables: the second channels of the pairs read other rows of the table than the first channels"
// CHECK-NOT: pe.rope

// The second halves of the channels read the next row (cos[t + 1, c + 8]):
// the pair's entries differ along two dimensions.
func.func @next_row(%x: tensor<1x2x4x16xf32>, %cos: tensor<5x16xf32>, %sin: tensor<5x16xf32>) -> tensor<1x2x4x16xf32> {
  %c_lo = tensor.extract_slice %cos[0, 0] [4, 8] [1, 1] : tensor<5x16xf32> to tensor<4x8xf32>
  %c_hi = tensor.extract_slice %cos[1, 8] [4, 8] [1, 1] : tensor<5x16xf32> to tensor<4x8xf32>
  %s_lo = tensor.extract_slice %sin[0, 0] [4, 8] [1, 1] : tensor<5x16xf32> to tensor<4x8xf32>
  %s_hi = tensor.extract_slice %sin[1, 8] [4, 8] [1, 1] : tensor<5x16xf32> to tensor<4x8xf32>
  %c = tensor.concat dim(1) %c_lo, %c_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %s = tensor.concat dim(1) %s_lo, %s_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %cb = linalg.broadcast ins(%c : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %sb = linalg.broadcast ins(%s : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %n = arith.negf %x2 : tensor<1x2x4x8xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
  %a = arith.mulf %x, %cb : tensor<1x2x4x16xf32>
  %b = arith.mulf %rot, %sb : tensor<1x2x4x16xf32>
  // expected-remark @below {{assume-duplicated-tables: the second channel of each rotated pair does not read the cos/sin table at one constant offset along one dimension from the first channel, so the two halves cannot be checked at run time}}
  %r = arith.addf %a, %b : tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}

// The second halves come from other arguments: two tables, not two halves
// of one.
func.func @two_tables(%x: tensor<1x2x4x16xf32>, %cos_lo: tensor<4x8xf32>, %cos_hi: tensor<4x8xf32>, %sin_lo: tensor<4x8xf32>, %sin_hi: tensor<4x8xf32>) -> tensor<1x2x4x16xf32> {
  %c = tensor.concat dim(1) %cos_lo, %cos_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %s = tensor.concat dim(1) %sin_lo, %sin_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %cb = linalg.broadcast ins(%c : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %sb = linalg.broadcast ins(%s : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %n = arith.negf %x2 : tensor<1x2x4x8xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
  %a = arith.mulf %x, %cb : tensor<1x2x4x16xf32>
  %b = arith.mulf %rot, %sb : tensor<1x2x4x16xf32>
  // expected-remark @below {{the two channels of a rotated pair read different cos/sin tensors; assume-duplicated-tables is about the two halves of one table}}
  %r = arith.addf %a, %b : tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}

// The second halves read the same channels four rows further down
// (cos[t + 4, c]): one offset, but along the rows, not the channels the
// check compares.
func.func @rows_below(%x: tensor<1x2x4x16xf32>, %cos: tensor<8x8xf32>, %sin: tensor<8x8xf32>) -> tensor<1x2x4x16xf32> {
  %c_lo = tensor.extract_slice %cos[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %c_hi = tensor.extract_slice %cos[4, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %s_lo = tensor.extract_slice %sin[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %s_hi = tensor.extract_slice %sin[4, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  %c = tensor.concat dim(1) %c_lo, %c_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %s = tensor.concat dim(1) %s_lo, %s_hi : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %cb = linalg.broadcast ins(%c : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %sb = linalg.broadcast ins(%s : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %n = arith.negf %x2 : tensor<1x2x4x8xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
  %a = arith.mulf %x, %cb : tensor<1x2x4x16xf32>
  %b = arith.mulf %rot, %sb : tensor<1x2x4x16xf32>
  // expected-remark @below {{assume-duplicated-tables: the second channels of the pairs read other rows of the table than the first channels}}
  %r = arith.addf %a, %b : tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}
