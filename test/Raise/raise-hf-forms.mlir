// Hugging Face forms with the aranges folded into constants
// (Inputs/hf_forms.mlir, written by Inputs/gen_hf_forms.py): constant
// `dense<[[0, ..., T-1]]>` position_ids become a static offset (no positions
// operand; arange(5, 13) a static_offset 5, while [0, 2, ..., 14] stays a
// positions tensor), and the 4-D mask triu(full(min), 1) * (arange_j >
// cache_position_i) becomes {causal} (with cache_position = arange(2, T + 2):
// keys j <= i + 2 visible, a top-left causal_offset 2). A token-embedding
// residual embed[ids] + x is not raised as pe.add_learned (the ids may be
// tokens), with a remark.
// RUN: pe-opt --pe-raise %S/Inputs/hf_forms.mlir | FileCheck %s
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/hf_forms.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @llama_hf_mask(
// CHECK-COUNT-2: pe.rope half %{{[0-9]+}} inv_freq(%{{.*}}) : tensor<1x2x8x16xf32>
// CHECK: pe.attention %{{.*}} outs(%{{.*}}) {causal} :
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @llama_hf_mask_shifted(
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-COUNT-2: pe.rope half
// CHECK: pe.attention %{{.*}} causal_offset(%[[C2]] : index) {{.*}}{causal, causal_alignment = #pe<causal_alignment top_left>}
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @rope_arange_from_5(
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}}) {static_offset = 5 : i64}
// CHECK-LABEL: func.func @rope_even_positions(
// CHECK: %[[POS:.*]] = arith.constant dense<{{\[\[}}0, 2, 4, 6, 8, 10, 12, 14]]> : tensor<1x8xi64>
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[POS]]
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}}) positions(%[[SLICE]] : tensor<8xi64>)
// CHECK-LABEL: func.func @token_residual(
// CHECK-NOT: pe.add_learned
// CHECK: tensor.extract
// CHECK-NOT: pe.add_learned

// REMARK-NOT: remark
// REMARK: remark: [Missed] absolute-not-raised | Category:pe-raise | Reason="a learned table read at gathered rows is added to a tensor that is not a token-embedding lookup: the rows may be token ids (a residual embed[ids] + x) rather than positions; not raised as pe.add_learned"
// REMARK-NOT: remark
