// pe-raise on the Llama-3.1 attention block as torch-mlir's TorchToLinalg
// spells it (Inputs/llama3_block*.mlir, written by Inputs/gen_corpus.py):
// both rotary embeddings become pe.rope with the llama3 frequency op
// recovered from the constant inv_freq table, and the GQA softmax attention
// (repeat_kv, scale D^-0.5, decomposed softmax) becomes one pe.attention on
// the unexpanded keys and values.
// RUN: pe-opt --pe-raise %S/Inputs/llama3_block.mlir | FileCheck %s --check-prefix=ARG
// RUN: pe-opt --pe-raise %S/Inputs/llama3_block_arange.mlir | FileCheck %s --check-prefix=ARANGE

// Positions as an argument: pe.rope positions(...); the mask argument is the
// bias.
// ARG-LABEL: func.func @llama3_block(
// ARG-SAME: %[[Q:[^:]*]]: tensor<1x8x256xf32>, %[[K:[^:]*]]: tensor<1x8x128xf32>, %[[V:[^:]*]]: tensor<1x8x128xf32>, %[[P:[^:]*]]: tensor<1x8xi64>, %[[M:[^:]*]]: tensor<1x1x8x8xf32>)
// ARG: %[[QT:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x8x4x64xf32>)
// ARG: %[[POS:.*]] = tensor.extract_slice %[[P]][0, 0] [1, 8] [1, 1] : tensor<1x8xi64> to tensor<8xi64>
// ARG: %[[F:.*]], %{{.*}} = pe.llama3_scale {base = 5.000000e+05 : f64, factor = 8.000000e+00 : f64, high_freq_factor = 4.000000e+00 : f64, low_freq_factor = 1.000000e+00 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
// ARG: %[[QR:.*]] = pe.rope half %[[QT]] inv_freq(%[[F]] : tensor<32xf32>) positions(%[[POS]] : tensor<8xi64>) : tensor<1x4x8x64xf32>
// ARG: %[[KR:.*]] = pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<32xf32>) positions(%{{.*}} : tensor<8xi64>) : tensor<1x2x8x64xf32>
// ARG: %[[O:.*]] = pe.attention %[[QR]], %[[KR]], %{{.*}} bias(%[[M]] : tensor<1x1x8x8xf32>) outs({{[^)]*}}) : tensor<1x4x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x4x8x64xf32>
// ARG-NOT: linalg.batch_matmul
// ARG-NOT: math.exp
// ARG: return

// Positions arange(T) and the triu(finfo.min) mask computed in the model:
// no positions operand, a causal attention without a bias.
// ARANGE-LABEL: func.func @llama3_block_arange(
// ARANGE: pe.llama3_scale
// ARANGE: %[[QR:.*]] = pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<32xf32>) : tensor<1x4x8x64xf32>
// ARANGE: %[[KR:.*]] = pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<32xf32>) : tensor<1x2x8x64xf32>
// ARANGE: pe.attention %[[QR]], %[[KR]], %{{.*}} outs({{[^)]*}}) {causal} : tensor<1x4x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x4x8x64xf32>
// ARANGE-NOT: math.cos
// ARANGE-NOT: linalg.batch_matmul

// The raised block then fuses (RoPE inside the attention) and reaches the
// generated flash-attention kernel: no pe op is left after
// convert-pe-to-vector, and no missed remark says otherwise.
// RUN: pe-opt --pe-raise --pe-fold-frequencies --canonicalize --pe-fuse-encodings-into-attention %S/Inputs/llama3_block_arange.mlir | FileCheck %s --check-prefix=FUSED
// FUSED: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<32xf64>) outs({{[^)]*}}) {causal}
// RUN: pe-opt --pe-raise --pe-fold-frequencies --canonicalize --pe-fuse-encodings-into-attention --convert-pe-to-vector --remarks-filter='pe-.*|convert-pe-to-vector' %S/Inputs/llama3_block_arange.mlir 2>&1 | FileCheck %s --check-prefix=KERNEL
// KERNEL-NOT: remark
// KERNEL-NOT: pe.
// KERNEL: vector.
// KERNEL-NOT: remark
// KERNEL-NOT: pe.
