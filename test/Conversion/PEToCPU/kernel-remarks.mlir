// Every reason convert-pe-to-vector gives for not generating a kernel, as a
// missed-optimization remark (category convert-pe-to-vector); the op is left
// for the reference lowering.
// RUN: pe-opt %s --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics | FileCheck %s
// CHECK-COUNT-3: pe.attention
// CHECK-COUNT-3: pe.rope
// CHECK-COUNT-1: pe.add_sinusoidal

func.func @attention(%h: tensor<1x2x8x16xf64>, %q: tensor<1x1x2x520xf32>, %x: tensor<1x2x8x16xf32>,
                     %b: tensor<8x8xf32>, %m: tensor<8x8xi1>, %d: tensor<1x?x8x16xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x2x8x16xf64>
  // expected-remark@+1 {{[Missed] attention-kernel | Category:convert-pe-to-vector | Reason="no generated attention kernel (the reference lowering with a materialised score tensor is used): element type is not f32, f16 or bf16"}}
  %0 = pe.attention %h, %h, %h outs(%attn_init0 : tensor<1x2x8x16xf64>) : tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64>, tensor<1x2x8x16xf64> -> tensor<1x2x8x16xf64>
  %attn_init1 = tensor.empty() : tensor<1x1x2x520xf32>
  // expected-remark@+1 {{head dimensions must be at most 512}}
  %1 = pe.attention %q, %q, %q outs(%attn_init1 : tensor<1x1x2x520xf32>) : tensor<1x1x2x520xf32>, tensor<1x1x2x520xf32>, tensor<1x1x2x520xf32> -> tensor<1x1x2x520xf32>
  %attn_c1_3 = arith.constant 1 : index
  %attn_d0_1_3 = tensor.dim %d, %attn_c1_3 : tensor<1x?x8x16xf32>
  %attn_init3 = tensor.empty(%attn_d0_1_3) : tensor<1x?x8x16xf32>
  // expected-remark@+1 {{dynamic head counts}}
  %5 = pe.attention %d, %d, %d outs(%attn_init3 : tensor<1x?x8x16xf32>) : tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32> -> tensor<1x?x8x16xf32>
  return
}

func.func @rope(%h: tensor<8x16xf64>, %y: tensor<8x16xf32>, %f: tensor<8xf32>,
                %p: tensor<8xi64>, %t: tensor<8x2x16xf32>, %c: tensor<8x8x8xf32>) {
  // expected-remark@+1 {{[Missed] rope-kernel | Category:convert-pe-to-vector | Reason="no generated RoPE kernel (the reference lowering is used): element type is not f32, f16 or bf16"}}
  %0 = pe.rope interleaved %h inv_freq(%f : tensor<8xf32>) : tensor<8x16xf64>
  // expected-remark@+1 {{explicit positions tensor with tokens along a dimension other than -2 (sequence_dim) or per-token caches}}
  %2 = pe.rope interleaved %t inv_freq(%f : tensor<8xf32>) positions(%p : tensor<8xi64>) {sequence_dim = 0 : i64} : tensor<8x2x16xf32>
  // expected-remark@+1 {{per-token cos/sin caches with the tokens along dimension 0 (sequence_dim = 0, also the batch)}}
  %4 = pe.rope interleaved %t cache(%c, %c : tensor<8x8x8xf32>, tensor<8x8x8xf32>) {sequence_dim = 0 : i64} : tensor<8x2x16xf32>
  return
}

func.func @sinusoidal(%h: tensor<8x16xf64>) {
  // expected-remark@+1 {{[Missed] sinusoidal-kernel | Category:convert-pe-to-vector | Reason="no generated sinusoidal kernel (the reference lowering is used): element type is not f32, f16 or bf16"}}
  %0 = pe.add_sinusoidal interleaved %h : tensor<8x16xf64>
  return
}

// An explicit bias or mask gets the generated kernel (no remark, the op is
// gone); with one query per head it gets the prefill kernel instead of the
// decode kernel, with a remark.
// CHECK-LABEL: func.func @bias
// CHECK-NOT: pe.attention
func.func @bias(%x: tensor<1x2x8x16xf32>, %b: tensor<8x8xf32>, %d: tensor<1x2x1x16xf32>,
                %bd: tensor<1x1x1x8xf32>, %m: tensor<8x8xi1>, %md: tensor<1x8xi1>)
    -> (tensor<1x2x8x16xf32>, tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x1x16xf32>) {
  %attn_init6 = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = pe.attention %x, %x, %x bias(%b : tensor<8x8xf32>) outs(%attn_init6 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  %attn_init7 = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-remark@+1 {{[Missed] decode-kernel | Category:convert-pe-to-vector | Reason="one query per head with an explicit bias or mask: the prefill kernel is used (the decode kernel takes neither)"}}
  %1 = pe.attention %d, %x, %x bias(%bd : tensor<1x1x1x8xf32>) outs(%attn_init7 : tensor<1x2x1x16xf32>) : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  %attn_init8 = tensor.empty() : tensor<1x2x8x16xf32>
  %2 = pe.attention %x, %x, %x mask(%m : tensor<8x8xi1>) outs(%attn_init8 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  %attn_init9 = tensor.empty() : tensor<1x2x1x16xf32>
  // expected-remark@+1 {{one query per head with an explicit bias or mask}}
  %3 = pe.attention %d, %x, %x mask(%md : tensor<1x8xi1>) outs(%attn_init9 : tensor<1x2x1x16xf32>) : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0, %1, %2, %3 : tensor<1x2x8x16xf32>, tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x1x16xf32>
}
