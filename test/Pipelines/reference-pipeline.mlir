// RUN: pe-opt %s --pe-reference-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-reference-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// The reference pipeline takes every pe op on tensors to the LLVM dialect for
// the host; the result translates to LLVM IR.

// CHECK-NOT: pe.
// CHECK-NOT: linalg.
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @block
// CHECK: llvm.call @malloc
// CHECK: llvm.call @free
// LLVMIR: define { ptr, ptr, i64, [4 x i64], [4 x i64] } @block(
// LLVMIR-DAG: call double @llvm.cos.f64(
// LLVMIR-DAG: call float @llvm.exp.f32(
func.func @block(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>, %pos: index)
    -> tensor<1x4x?x16xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<8xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) attention_scaling(%m) offset(%pos : index) : tensor<1x4x?x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) attention_scaling(%m) : tensor<1x2x?x16xf32>
  %c2 = arith.constant 2 : index
  %tq = tensor.dim %q, %c2 : tensor<1x4x?x16xf32>
  %tk = tensor.dim %k, %c2 : tensor<1x2x?x16xf32>
  %b = pe.alibi_bias signed [%tq, %tk] : tensor<4x?x?xf32>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %qr, %attn_c2_0 : tensor<1x4x?x16xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x16xf32>
  %o = pe.attention %qr, %kr, %v bias(%b : tensor<4x?x?xf32>) outs(%attn_init0 : tensor<1x4x?x16xf32>) {causal}
         : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}
