// An op with a statically empty tensor (a size of 0; valid IR) gets no GPU
// kernel: a zero-size buffer has no SPIR-V type (pe-gpu-pipeline{target=spirv}
// used to fail with "failed to legalize operation 'gpu.func'" on Tq = 0), and
// there is nothing to launch. The op stays for the reference lowering on the
// host, which gives the empty result as the CPU pipelines do, with a remark.
// test/Integration/CPU/attention/attn_empty_query.mlir runs it.
// RUN: pe-opt %s --convert-pe-to-gpu --remarks-filter=convert-pe-to-gpu --verify-diagnostics | FileCheck %s
// RUN: pe-opt %s --pe-gpu-pipeline=target=spirv | FileCheck %s --check-prefix=SPIRV
// RUN: pe-opt %s --pe-gpu-pipeline=target=nvvm | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: func.func @empty_query
// CHECK: pe.attention
// CHECK-LABEL: func.func @empty_rope
// CHECK: pe.rope
// CHECK-LABEL: func.func @empty_sinusoidal
// CHECK: pe.add_sinusoidal
// CHECK-LABEL: func.func @kernel
// CHECK: gpu.launch
// CHECK-NOT: pe.attention
// SPIRV-LABEL: llvm.func @empty_query
// SPIRV-NOT: gpu.launch_func
// SPIRV-LABEL: llvm.func @kernel
// SPIRV: gpu.launch_func
// NVVM-LABEL: llvm.func @empty_query
// NVVM-NOT: gpu.launch_func
// NVVM-LABEL: llvm.func @kernel
// NVVM: gpu.launch_func

func.func @empty_query(%q: tensor<1x2x0x16xf32>, %k: tensor<1x2x8x16xf32>) -> tensor<1x2x0x16xf32> {
  %init = tensor.empty() : tensor<1x2x0x16xf32>
  // expected-remark@+1 {{[Missed] attention-kernel | Category:convert-pe-to-gpu | Reason="no GPU attention kernel (the reference lowering runs on the host): a statically empty tensor (a size of 0): no kernel to launch"}}
  %0 = pe.attention %q, %k, %k outs(%init : tensor<1x2x0x16xf32>) {causal} : tensor<1x2x0x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x0x16xf32>
  return %0 : tensor<1x2x0x16xf32>
}

func.func @empty_rope(%x: tensor<1x2x0x16xf32>, %f: tensor<8xf32>) -> tensor<1x2x0x16xf32> {
  // expected-remark@+1 {{Reason="no GPU RoPE kernel (the reference lowering runs on the host): a statically empty tensor (a size of 0): no kernel to launch"}}
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) : tensor<1x2x0x16xf32>
  return %0 : tensor<1x2x0x16xf32>
}

func.func @empty_sinusoidal(%x: tensor<0x8x16xf32>) -> tensor<0x8x16xf32> {
  // expected-remark@+1 {{Reason="no GPU sinusoidal kernel (the reference lowering runs on the host): a statically empty tensor (a size of 0): no kernel to launch"}}
  %0 = pe.add_sinusoidal interleaved %x : tensor<0x8x16xf32>
  return %0 : tensor<0x8x16xf32>
}

// The same attention with one query row has its kernel.
func.func @kernel(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %init = tensor.empty() : tensor<1x2x1x16xf32>
  %0 = pe.attention %q, %k, %k outs(%init : tensor<1x2x1x16xf32>) {causal} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
