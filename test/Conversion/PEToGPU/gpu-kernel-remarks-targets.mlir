// The reasons that depend on what the target or its runtime can do
// (pe-gpu-pipeline sets allow-bf16=false for target=spirv): f16, bf16, and
// static buffer sizes (for a runtime that binds buffers by static size).
// RUN: pe-opt %s --convert-pe-to-gpu="allow-f16=false allow-bf16=false static-buffers-only=true" --remarks-filter=convert-pe-to-gpu --verify-diagnostics | FileCheck %s
// Without the options, the same ops get kernels.
// RUN: pe-opt %s --convert-pe-to-gpu | FileCheck %s --check-prefix=DEFAULT
// CHECK-COUNT-3: pe.attention
// CHECK: pe.rope
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT: gpu.launch
// DEFAULT-NOT: pe.attention
// DEFAULT-NOT: pe.rope
// DEFAULT-COUNT-5: gpu.launch

func.func @ops(%h: tensor<1x2x8x16xf16>, %bf: tensor<1x2x8x16xbf16>, %d: tensor<1x2x?x16xf32>, %x: tensor<2x?x16xf32>,
               %s: tensor<1x2x8x16xf32>, %f: tensor<8xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x2x8x16xf16>
  // expected-remark@+1 {{no GPU attention kernel (the reference lowering runs on the host): f16 operands on a target without f16 (allow-f16=false)}}
  %0 = pe.attention %h, %h, %h outs(%attn_init0 : tensor<1x2x8x16xf16>) : tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x8x16xf16>
  %attn_init1 = tensor.empty() : tensor<1x2x8x16xbf16>
  // expected-remark@+1 {{bf16 operands on a target without bf16 (allow-bf16=false)}}
  %4 = pe.attention %bf, %bf, %bf outs(%attn_init1 : tensor<1x2x8x16xbf16>) : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xbf16>
  %attn_c2_2 = arith.constant 2 : index
  %attn_d0_2_2 = tensor.dim %d, %attn_c2_2 : tensor<1x2x?x16xf32>
  %attn_init2 = tensor.empty(%attn_d0_2_2) : tensor<1x2x?x16xf32>
  // expected-remark@+1 {{dynamic shapes on a target whose kernels take static-size buffers (static-buffers-only=true)}}
  %1 = pe.attention %d, %d, %d outs(%attn_init2 : tensor<1x2x?x16xf32>) : tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x2x?x16xf32>
  // expected-remark@+1 {{no GPU RoPE kernel (the reference lowering runs on the host): dynamic shapes on a target whose kernels take static-size buffers (static-buffers-only=true)}}
  %2 = pe.rope half %x inv_freq(%f : tensor<8xf32>) : tensor<2x?x16xf32>
  // A static f32 attention gets its kernel under both options.
  %attn_init3 = tensor.empty() : tensor<1x2x8x16xf32>
  %3 = pe.attention %s, %s, %s outs(%attn_init3 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return
}
