// Property: with the README's style of IR (a frequency op with an f32 result
// type, pe.llama3_scale, feeding pe.rope half, and the same table for RoPE on
// Q and K of a pe.attention, which pe-cpu-pipeline fuses), positions 2^17 ..
// 2^20 keep <= 2e-6 absolute error on unit-scale inputs: the angles use the
// frequency op's exact (f64) values, not the f32-rounded table (PEOps.td,
// pe.rope). Inputs uniform in [-1, 1); R = D = 64; rope at offsets 2^17,
// 2^18, 2^19, 2^20 (8 tokens each); attention with queries at 2^20 and keys
// at 2^17 (GQA 8/2, causal). Compared with the float64 reference pe_ref
// (rope_inv_freq, attention) on the float64 llama3 table. Tolerance: atol
// 2e-6, rtol 0 (the issue's bound). The DIFFER lines show that rotating with
// the f32-rounded table (the behaviour without exact frequencies: errors of
// 3e-3 to 2e-2 here) would exceed the bound, so the test tells the two apart.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py prop_freq_op_long_positions %t
// RUN: pe-run %s -e rope --input=%t/x.npy --input=%t/o0.npy --input=%t/o1.npy --input=%t/o2.npy --input=%t/o3.npy --output=%t/r0.npy --output=%t/r1.npy --output=%t/r2.npy --output=%t/r3.npy
// RUN: %npycmp %t/r0.npy %t/expected0.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/r1.npy %t/expected1.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/r2.npy %t/expected2.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/r3.npy %t/expected3.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: pe-run %s -e attention --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/qo.npy --input=%t/ko.npy --output=%t/a.npy
// RUN: %npycmp %t/a.npy %t/expected_attn.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/props.py differ %t f32table0.npy expected0.npy 2e-6 | FileCheck %s --check-prefix=DIFFER
// RUN: %python %pe_ref_lib/props.py differ %t f32table3.npy expected3.npy 2e-6 | FileCheck %s --check-prefix=DIFFER
// RUN: %python %pe_ref_lib/props.py differ %t f32table_attn.npy expected_attn.npy 2e-6 | FileCheck %s --check-prefix=DIFFER
// CHECK: npycmp: PASS
// DIFFER: props: PASS differ

func.func @rope(%x: tensor<1x8x8x64xf32>, %o0: index, %o1: index, %o2: index, %o3: index)
    -> (tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>) {
  %inv_freq, %mscale = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  %r0 = pe.rope half %x inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%o0 : index) : tensor<1x8x8x64xf32>
  %r1 = pe.rope half %x inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%o1 : index) : tensor<1x8x8x64xf32>
  %r2 = pe.rope half %x inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%o2 : index) : tensor<1x8x8x64xf32>
  %r3 = pe.rope half %x inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%o3 : index) : tensor<1x8x8x64xf32>
  return %r0, %r1, %r2, %r3 : tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>
}

func.func @attention(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>,
                     %qo: index, %ko: index) -> tensor<1x8x16x64xf32> {
  %inv_freq, %mscale = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  %qr = pe.rope half %q inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%qo : index) : tensor<1x8x16x64xf32>
  %kr = pe.rope half %k inv_freq(%inv_freq : tensor<32xf32>) attention_scaling(%mscale)
          offset(%ko : index) : tensor<1x2x16x64xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x16x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x16x64xf32>) {causal} : tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>,
         tensor<1x2x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}
