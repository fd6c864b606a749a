// RUN: %pe_host_env mlir-opt %s --load-dialect-plugin=%pe_plugin --load-pass-plugin=%pe_plugin \
// RUN:   --pass-pipeline="builtin.module(pe-fold-frequencies,pe-fuse-rope-into-attention)" | FileCheck %s
// RUN: %pe_host_env mlir-opt %s --load-dialect-plugin=%pe_plugin --load-pass-plugin=%pe_plugin \
// RUN:   --pass-pipeline="builtin.module(pe-cpu-pipeline)" | FileCheck %s --check-prefix=LLVM

// Upstream mlir-opt (Debian's, linked to the same libMLIR.so) loads the pe
// dialect, its passes and pipelines from the plugin. %pe_host_env is empty,
// or in a PE_SANITIZE build preloads the ASan runtime that the sanitized
// plugin needs in the unsanitized mlir-opt.

// CHECK-LABEL: func @block
// CHECK: arith.constant dense<{{.*}}> : tensor<8xf64>
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half>
// CHECK-NOT: pe.rope
// LLVM: llvm.func @block
// LLVM-NOT: pe.
func.func @block(%q: tensor<1x2x16x16xf32>, %k: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %f, %m = pe.rope_frequencies : tensor<8xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x2x16x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x2x16x16xf32>
  %attn_init0 = tensor.empty() : tensor<1x2x16x16xf32>
  %o = pe.attention %qr, %kr, %k outs(%attn_init0 : tensor<1x2x16x16xf32>) {causal} : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  return %o : tensor<1x2x16x16xf32>
}
