// RUN: pe-opt %s --pe-cpu-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-cpu-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// pe-cpu-pipeline fuses RoPE into attention, generates the kernel and lowers
// everything (including the unfused add_sinusoidal) to the LLVM dialect, with
// the (batch, head) loop on OpenMP.

// CHECK-NOT: pe.
// CHECK-LABEL: llvm.func @block
// CHECK: omp.parallel
// CHECK: llvm.intr.fma
// LLVMIR-LABEL: define { ptr, ptr, i64, [4 x i64], [4 x i64] } @block(
// LLVMIR: call void {{.*}}@__kmpc_fork_call(
// LLVMIR-LABEL: define {{.*}} @embed(
func.func @block(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>, %pos: index)
    -> tensor<1x4x?x64xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<32xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) attention_scaling(%m) offset(%pos : index) : tensor<1x4x?x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) attention_scaling(%m) : tensor<1x2x?x64xf32>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %qr, %attn_c2_0 : tensor<1x4x?x64xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x4x?x64xf32>) {causal} : tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}

func.func @embed(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}
