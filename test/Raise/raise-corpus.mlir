// pe-raise on the GPT-J, GPT-NeoX and Qwen2 (YaRN) blocks of the corpus
// (Inputs/*.mlir, written by Inputs/gen_corpus.py in the TorchToLinalg
// spelling).
// RUN: pe-opt --pe-raise %S/Inputs/gptj_block.mlir | FileCheck %s --check-prefix=GPTJ
// RUN: pe-opt --pe-raise %S/Inputs/neox_block.mlir | FileCheck %s --check-prefix=NEOX
// RUN: pe-opt --pe-raise %S/Inputs/qwen2_yarn_block.mlir | FileCheck %s --check-prefix=QWEN

// GPT-J: interleaved pairs on 8 of 16 channels of [B, T, H, D]
// (sequence_dim 1); the gathered rows of the sinusoid table become cache
// tables (the cos and sin column blocks, 4 = R/2 wide) read at position_ids.
// GPTJ-LABEL: func.func @gptj_block(
// GPTJ-SAME: %[[P:[^:]*]]: tensor<1x6xi64>, %[[M:[^:]*]]: tensor<1x1x6x6xf32>)
// GPTJ: %[[TAB:.*]] = arith.constant dense<{{.*}}> : tensor<32x8xf32>
// GPTJ-DAG: %[[COS:.*]] = tensor.extract_slice %[[TAB]][0, 4] [32, 4] [1, 1] : tensor<32x8xf32> to tensor<32x4xf32>
// GPTJ-DAG: %[[SIN:.*]] = tensor.extract_slice %[[TAB]][0, 0] [32, 4] [1, 1] : tensor<32x8xf32> to tensor<32x4xf32>
// GPTJ: %[[POS:.*]] = tensor.extract_slice %[[P]][0, 0] [1, 6] [1, 1] : tensor<1x6xi64> to tensor<6xi64>
// GPTJ: %[[Q:.*]] = pe.rope interleaved %{{.*}} cache(%[[COS]], %[[SIN]] : tensor<32x4xf32>, tensor<32x4xf32>) positions(%[[POS]] : tensor<6xi64>) {rotary_dim = 8 : i64, sequence_dim = 1 : i64} : tensor<1x6x2x16xf32>
// GPTJ: pe.rope interleaved %{{.*}} positions(%{{.*}} : tensor<6xi64>) {rotary_dim = 8 : i64, sequence_dim = 1 : i64} : tensor<1x6x2x16xf32>
// GPTJ: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%[[M]] : tensor<1x1x6x6xf32>) outs({{[^)]*}}) : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32> -> tensor<1x2x6x16xf32>
// GPTJ-NOT: tensor.extract %

// GPT-NeoX: split-half on the first 4 of 16 channels, default frequencies.
// NEOX-LABEL: func.func @neox_block(
// NEOX: %[[F:.*]], %{{.*}} = pe.rope_frequencies : tensor<2xf32>
// NEOX: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<2xf32>) positions(%{{.*}} : tensor<6xi64>) {rotary_dim = 4 : i64} : tensor<1x2x6x16xf32>
// NEOX: pe.rope half %{{.*}} {rotary_dim = 4 : i64} : tensor<1x2x6x16xf32>
// NEOX: pe.attention
// NEOX-NOT: tensor.concat

// Qwen2: YaRN recovered, with its attention scaling.
// QWEN-LABEL: func.func @qwen2_yarn_block(
// QWEN: %[[F:.*]], %[[S:.*]] = pe.yarn_scale {base = 1.000000e+06 : f64, factor = 4.000000e+00 : f64, original_max_position_embeddings = 32768 : i64} : tensor<32xf32>
// QWEN: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<32xf32>) attention_scaling(%[[S]]) positions(%{{.*}} : tensor<8xi64>) : tensor<1x4x8x64xf32>
// QWEN: pe.rope half %{{.*}} : tensor<1x2x8x64xf32>
// QWEN: pe.attention %{{.*}} outs({{[^)]*}}) : tensor<1x4x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x4x8x64xf32>
