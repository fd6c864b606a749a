// pe-raise-pipeline: IR with arith and math ops on whole tensors (the
// spelling TOSA frontends leave after tosa-to-arith, and Buddy's) raises once
// convert-elementwise-to-linalg has made them linalg payloads. The rotary
// embedding below is x * cos + rotate_half(x) * sin with every multiply, add
// and negation on whole tensors and the cos/sin tables
// cat(half, half) of [T, D/2] arguments; the attention is softmax(Q K^T / 4)
// V on [heads, T, 16] with the scaling, the softmax's subtraction, exp and
// division on whole tensors. pe-raise alone raises neither, and says why (a
// tensor-level-op remark for each such op).
// RUN: pe-opt %s --pe-raise-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-raise-pipeline | FileCheck %s --check-prefix=ATTN
// RUN: pe-opt %s --pe-raise --remarks-filter=pe-raise 2>&1 | FileCheck %s --check-prefix=ALONE
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-raise-pipeline{assume-duplicated-tables=true recover-scaling=false tolerance=0.001})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES

// CHECK-LABEL: func.func @rope_tensor_level(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xf32>, %[[C:[^:]*]]: tensor<4x8xf32>, %[[S:[^:]*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = pe.rope half %[[X]] cache(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) : tensor<1x2x4x16xf32>
// CHECK-NEXT: return %[[R]]

// ALONE-NOT: pe.rope
// ALONE-NOT: pe.attention
// ALONE: remark: [Missed] tensor-level-op | Category:pe-raise | Reason="the tracer looks into elementwise computations of linalg ops only, so this 'arith.negf' on whole tensors ends every trace through it; run pe-raise-pipeline (convert-elementwise-to-linalg, then pe-raise) instead"
// ALONE: remark: [Missed] tensor-level-op | Category:pe-raise | Reason="the tracer looks into elementwise computations of linalg ops only, so this 'math.exp' on whole tensors
// ALONE-NOT: pe.rope
// ALONE-NOT: pe.attention

// ATTN-LABEL: func.func @attention_tensor_level(
// ATTN-SAME: %[[Q:[^:]*]]: tensor<4x8x16xf32>, %[[K:[^:]*]]: tensor<4x6x16xf32>, %[[V:[^:]*]]: tensor<4x6x16xf32>)
// ATTN-DAG: %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 8, 16]
// ATTN-DAG: %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// ATTN-DAG: %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [1, 4, 6, 16]
// ATTN: %[[O:.*]] = pe.attention %[[Q4]], %[[K4]], %[[V4]] outs({{[^)]*}}) : tensor<1x4x8x16xf32>, tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32> -> tensor<1x4x8x16xf32>
// ATTN-NOT: linalg.batch_matmul
// ATTN: %[[R:.*]] = tensor.collapse_shape %[[O]]
// ATTN: return %[[R]]

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

func.func @attention_tensor_level(%q: tensor<4x8x16xf32>, %k: tensor<4x6x16xf32>, %v: tensor<4x6x16xf32>) -> tensor<4x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant dense<0.25> : tensor<4x8x6xf32>
  %kt_init = tensor.empty() : tensor<4x16x6xf32>
  %kt = linalg.transpose ins(%k : tensor<4x6x16xf32>) outs(%kt_init : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %s_init = tensor.empty() : tensor<4x8x6xf32>
  %s_zero = linalg.fill ins(%zero : f32) outs(%s_init : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x8x16xf32>, tensor<4x16x6xf32>) outs(%s_zero : tensor<4x8x6xf32>) -> tensor<4x8x6xf32>
  %scaled = arith.mulf %s, %scale : tensor<4x8x6xf32>
  %m_init = tensor.empty() : tensor<4x8xf32>
  %m_fill = linalg.fill ins(%ninf : f32) outs(%m_init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.reduce ins(%scaled : tensor<4x8x6xf32>) outs(%m_fill : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %x = arith.maximumf %in, %acc : f32
      linalg.yield %x : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<4x8xf32>) outs(%s_init : tensor<4x8x6xf32>) dimensions = [2]
  %d = arith.subf %scaled, %mb : tensor<4x8x6xf32>
  %e = math.exp %d : tensor<4x8x6xf32>
  %z_fill = linalg.fill ins(%zero : f32) outs(%m_init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %z = linalg.reduce ins(%e : tensor<4x8x6xf32>) outs(%z_fill : tensor<4x8xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %x = arith.addf %in, %acc : f32
      linalg.yield %x : f32
    }
  %zb = linalg.broadcast ins(%z : tensor<4x8xf32>) outs(%s_init : tensor<4x8x6xf32>) dimensions = [2]
  %p = arith.divf %e, %zb : tensor<4x8x6xf32>
  %o_init = tensor.empty() : tensor<4x8x16xf32>
  %o_zero = linalg.fill ins(%zero : f32) outs(%o_init : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x8x6xf32>, tensor<4x6x16xf32>) outs(%o_zero : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %o : tensor<4x8x16xf32>
}
