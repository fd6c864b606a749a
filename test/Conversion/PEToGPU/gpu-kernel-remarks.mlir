// Every reason convert-pe-to-gpu gives for not generating a kernel, as a
// missed-optimization remark (category convert-pe-to-gpu); the op is left for
// the reference lowering on the host.
// RUN: pe-opt %s --convert-pe-to-gpu --remarks-filter=convert-pe-to-gpu --verify-diagnostics | FileCheck %s
// CHECK-LABEL: func.func @attention
// CHECK-COUNT-4: pe.attention
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @bias_mask
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT: pe.attention
// CHECK-LABEL: func.func @rope
// CHECK-COUNT-3: pe.rope
// CHECK-NOT: gpu.launch
// CHECK-LABEL: func.func @sinusoidal
// CHECK-COUNT-2: pe.add_sinusoidal
// CHECK-NOT: gpu.launch

func.func @attention(%h: tensor<1x2x8x16xf64>, %x: tensor<1x2x8x16xf32>,
                     %d: tensor<1x?x8x16xf32>,
                     %w: tensor<1x2x8x?xf32>, %big: tensor<1x1x8x520xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x2x8x16xf64>
  // expected-remark@+1 {{[Missed] attention-kernel | Category:convert-pe-to-gpu | Reason="no GPU attention kernel (the reference lowering runs on the host): element type is not f32, f16 or bf16"}}
  %0 = pe.attention %h, %h, %h outs(%attn_init0 : tensor<1x2x8x16xf64>) : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64> -> tensor<1x2x8x16xf64>
  %attn_c1_3 = arith.constant 1 : index
  %attn_d0_1_3 = tensor.dim %d, %attn_c1_3 : tensor<1x?x8x16xf32>
  %attn_init3 = tensor.empty(%attn_d0_1_3) : tensor<1x?x8x16xf32>
  // expected-remark@+1 {{dynamic head counts}}
  %3 = pe.attention %d, %d, %d outs(%attn_init3 : tensor<1x?x8x16xf32>) : tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32> -> tensor<1x?x8x16xf32>
  %attn_c3_4 = arith.constant 3 : index
  %attn_d0_3_4 = tensor.dim %w, %attn_c3_4 : tensor<1x2x8x?xf32>
  %attn_init4 = tensor.empty(%attn_d0_3_4) : tensor<1x2x8x?xf32>
  // expected-remark@+1 {{dynamic head dimension}}
  %4 = pe.attention %w, %w, %w outs(%attn_init4 : tensor<1x2x8x?xf32>) {scale = 0.25} : tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32> -> tensor<1x2x8x?xf32>
  %attn_init5 = tensor.empty() : tensor<1x1x8x520xf32>
  // expected-remark@+1 {{head dimensions above 512 (per-thread private arrays)}}
  %5 = pe.attention %big, %big, %big outs(%attn_init5 : tensor<1x1x8x520xf32>) : tensor<1x1x8x520xf32>, tensor<1x1x8x520xf32>, tensor<1x1x8x520xf32> -> tensor<1x1x8x520xf32>
  return
}

// Bias and mask tensors, static or dynamic, get the kernel (no remark).
func.func @bias_mask(%x: tensor<1x2x8x16xf32>, %b: tensor<8x8xf32>,
                     %m: tensor<1x1x8x8xi1>, %bd: tensor<8x?xf32>,
                     %md: tensor<?x8xi1>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %init = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = pe.attention %x, %x, %x bias(%b : tensor<8x8xf32>) mask(%m : tensor<1x1x8x8xi1>) outs(%init : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  %1 = pe.attention %x, %x, %x bias(%bd : tensor<8x?xf32>) mask(%md : tensor<?x8xi1>) outs(%init : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0, %1 : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

func.func @rope(%h: tensor<2x8x16xf64>, %x: tensor<2x8x16xf32>, %p: tensor<8xi64>, %f: tensor<8xf32>,
                %c: tensor<2x8x8xf32>, %y: tensor<8x2x16xf32>) {
  // expected-remark@+1 {{[Missed] rope-kernel | Category:convert-pe-to-gpu | Reason="no GPU RoPE kernel (the reference lowering runs on the host): element type is not f32, f16 or bf16"}}
  %0 = pe.rope half %h inv_freq(%f : tensor<8xf32>) : tensor<2x8x16xf64>
  // expected-remark@+1 {{per-token cos/sin caches}}
  %1 = pe.rope half %x cache(%c, %c : tensor<2x8x8xf32>, tensor<2x8x8xf32>) : tensor<2x8x16xf32>
  // expected-remark@+1 {{tokens along a dimension other than -2 (sequence_dim)}}
  %2 = pe.rope half %y inv_freq(%f : tensor<8xf32>) {sequence_dim = 0 : i64} : tensor<8x2x16xf32>
  return
}

func.func @sinusoidal(%h: tensor<2x8x16xf64>, %x: tensor<2x8x16xf32>, %p: tensor<8xi64>) {
  // expected-remark@+1 {{[Missed] sinusoidal-kernel | Category:convert-pe-to-gpu | Reason="no GPU sinusoidal kernel (the reference lowering runs on the host): element type is not f32, f16 or bf16"}}
  %0 = pe.add_sinusoidal interleaved %h : tensor<2x8x16xf64>
  // expected-remark@+1 {{no GPU sinusoidal kernel (the reference lowering runs on the host): explicit positions tensor}}
  %1 = pe.add_sinusoidal concat %x positions(%p : tensor<8xi64>) : tensor<2x8x16xf32>
  return
}
