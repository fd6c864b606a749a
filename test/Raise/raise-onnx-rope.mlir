// A rotary embedding as one linalg.generic with tensor.extract reads
// (Inputs/onnx_rope.mlir: the partner channel at (c + D/2) mod D, half-width
// cos/sin caches at [pos[b, t], c mod D/2], the sign by a select on c <
// D/2): the tracer follows remsi by a constant on non-negative indices and
// folds comparisons of indices a constant apart, so the rotation raises to
// pe.rope half with the caches and positions. With the partner index clamped
// by maxsi / minsi, which the tracer does not follow, the gather is opaque: a
// missed remark names the op.
// RUN: pe-opt --pe-raise %S/Inputs/onnx_rope.mlir | FileCheck %s
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/onnx_rope.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @onnx_rope(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x4x8xf32>, %[[COS:[a-z0-9]+]]: tensor<16x4xf32>, %[[SIN:[a-z0-9]+]]: tensor<16x4xf32>, %[[POS:[a-z0-9]+]]: tensor<1x4xi64>
// CHECK: %[[P:.*]] = tensor.extract_slice %[[POS]][0, 0] [1, 4] [1, 1] : tensor<1x4xi64> to tensor<4xi64>
// CHECK: pe.rope half %[[X]] cache(%[[COS]], %[[SIN]] : tensor<16x4xf32>, tensor<16x4xf32>) positions(%[[P]] : tensor<4xi64>) : tensor<1x2x4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @onnx_rope_opaque(
// CHECK-NOT: pe.rope
// CHECK: arith.maxsi

// REMARK-NOT: remark
// REMARK: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="an opaque gather: the payload reads a tensor (tensor.extract) through 'arith.maxsi', which the tracer does not follow, so what the element computes is unknown"
// REMARK-NOT: remark
