// pe-raise-pipeline: IR with arith and math ops on whole tensors (the
// spelling TOSA frontends leave after tosa-to-arith, and Buddy's) raises once
// convert-elementwise-to-linalg has made them linalg payloads. The rotary
// embedding below is x * cos + rotate_half(x) * sin with every multiply, add
// and negation on whole tensors and the cos/sin tables
// cat(half, half) of [T, D/2] arguments. pe-raise alone does not raise it,
// and says why (a tensor-level-op remark for each such op).
// RUN: pe-opt %s --pe-raise-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-raise --remarks-filter=pe-raise 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-raise-pipeline{assume-duplicated-tables=true recover-scaling=false tolerance=0.001})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES

// CHECK-LABEL: func.func @rope_tensor_level(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xf32>, %[[C:[^:]*]]: tensor<4x8xf32>, %[[S:[^:]*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = pe.rope half %[[X]] cache(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) : tensor<1x2x4x16xf32>
// CHECK-NEXT: return %[[R]]

// ALONE-NOT: pe.rope
// ALONE: remark: [Missed] tensor-level-op | Category:pe-raise | Reason="the tracer looks into elementwise computations of linalg ops only, so this 'arith.negf' on whole tensors ends every trace through it; run pe-raise-pipeline (convert-elementwise-to-linalg, then pe-raise) instead"
// ALONE-NOT: pe.rope

// PASSES: builtin.module(
// PASSES-NEXT: convert-elementwise-to-linalg
// PASSES-NEXT: pe-raise{assume-duplicated-tables=true recover-scaling=false tolerance=1.000000e-03}
// PASSES-NEXT: canonicalize
// PASSES-NEXT: cse
// PASSES-NEXT: )
func.func @rope_tensor_level(%x: tensor<1x2x4x16xf32>, %cos_half: tensor<4x8xf32>, %sin_half: tensor<4x8xf32>) -> tensor<1x2x4x16xf32> {
  %c = tensor.concat dim(1) %cos_half, %cos_half : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %s = tensor.concat dim(1) %sin_half, %sin_half : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %cos = linalg.broadcast ins(%c : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %sin = linalg.broadcast ins(%s : tensor<4x16xf32>) outs(%e : tensor<1x2x4x16xf32>) dimensions = [0, 1]
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %n = arith.negf %x2 : tensor<1x2x4x8xf32>
  %rot = tensor.concat dim(3) %n, %x1 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
  %a = arith.mulf %x, %cos : tensor<1x2x4x16xf32>
  %b = arith.mulf %rot, %sin : tensor<1x2x4x16xf32>
  %r = arith.addf %a, %b : tensor<1x2x4x16xf32>
  return %r : tensor<1x2x4x16xf32>
}
