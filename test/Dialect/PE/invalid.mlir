// RUN: pe-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the pe ops, op by op (the verifiers are in
// lib/Dialect/PE/IR: PEEncodingOps.cpp, PEFrequencyOps.cpp, PEAttentionOps.cpp
// and PEAttrs.cpp).

//===----------------------------------------------------------------------===//
// Sequence inputs and positions (shared by add_sinusoidal, add_learned, rope)
//===----------------------------------------------------------------------===//

func.func @rank_too_small(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error@+1 {{expects the input to have rank >= 2 ([..., T, C]), got rank 1}}
  %0 = pe.add_sinusoidal interleaved %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @dynamic_channels(%x: tensor<8x?xf32>) -> tensor<8x?xf32> {
  // expected-error@+1 {{expects a static channel dimension in the input}}
  %0 = pe.add_sinusoidal interleaved %x : tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

func.func @bad_dtype(%x: tensor<8x64xi32>) -> tensor<8x64xi32> {
  // expected-error@+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = pe.add_sinusoidal interleaved %x : tensor<8x64xi32>
  return %0 : tensor<8x64xi32>
}

// -----

func.func @non_positive_base(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects base to be positive and finite, got 0}}
  %0 = pe.add_sinusoidal interleaved %x {base = 0.0 : f64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @negative_static_offset(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects a non-negative static_offset, got -1}}
  %0 = pe.add_sinusoidal interleaved %x {static_offset = -1 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @positions_and_offset(%x: tensor<8x64xf32>, %p: tensor<8xi64>, %o: index) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects either a positions tensor or an offset, not both}}
  %0 = pe.add_sinusoidal interleaved %x offset(%o : index) positions(%p : tensor<8xi64>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @positions_and_static_offset(%x: tensor<8x64xf32>, %p: tensor<8xi64>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects either a positions tensor or an offset, not both}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<8xi64>) {static_offset = 2 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @positions_length(%x: tensor<8x64xf32>, %p: tensor<7xi64>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects positions of length 8 (the sequence dimension), got 7}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<7xi64>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @positions_2d_rank2_input(%x: tensor<8x64xf32>, %p: tensor<1x8xi64>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects 1-D positions for a rank-2 input}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<1x8xi64>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @positions_2d_shape(%x: tensor<2x8x64xf32>, %p: tensor<3x8xi64>) -> tensor<2x8x64xf32> {
  // expected-error@+1 {{expects 2-D positions of shape [2, 8], got [3, 8]}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<3x8xi64>) : tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

func.func @positions_rank3(%x: tensor<2x8x64xf32>, %p: tensor<1x2x8xi64>) -> tensor<2x8x64xf32> {
  // expected-error@+1 {{expects positions of rank 1 ([T]) or 2 ([B, T]), got rank 3}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<1x2x8xi64>) : tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

func.func @positions_float(%x: tensor<8x64xf32>, %p: tensor<8xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<8xf32>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @result_type(%x: tensor<8x64xf32>) -> tensor<8x64xf16> {
  // expected-error@+1 {{all of {input, result} have same type}}
  %0 = "pe.add_sinusoidal"(%x) <{layout = #pe<sinusoidal_layout interleaved>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<8x64xf32>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

//===----------------------------------------------------------------------===//
// add_learned
//===----------------------------------------------------------------------===//

func.func @learned_table_rank(%x: tensor<8x64xf32>, %t: tensor<64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects a rank-2 table [P, C], got rank 1}}
  %0 = pe.add_learned %x, %t : tensor<8x64xf32>, tensor<64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @learned_table_type(%x: tensor<8x64xf32>, %t: tensor<16x64xf16>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects the table element type 'f16' to match the input element type 'f32'}}
  %0 = pe.add_learned %x, %t : tensor<8x64xf32>, tensor<16x64xf16>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @learned_table_columns(%x: tensor<8x64xf32>, %t: tensor<16x32xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects the table to have 64 columns, got 32}}
  %0 = pe.add_learned %x, %t : tensor<8x64xf32>, tensor<16x32xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @learned_empty_table(%x: tensor<?x64xf32>, %t: tensor<0x64xf32>) -> tensor<?x64xf32> {
  // expected-error@+1 {{expects a table with at least one row}}
  %0 = pe.add_learned %x, %t : tensor<?x64xf32>, tensor<0x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

func.func @learned_out_of_range(%x: tensor<8x64xf32>, %t: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{reads positions [10, 18) but the table has 16 rows}}
  %0 = pe.add_learned %x, %t {static_offset = 10 : i64} : tensor<8x64xf32>, tensor<16x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rope
//===----------------------------------------------------------------------===//

func.func @rope_odd_head_dim(%x: tensor<8x63xf32>, %f: tensor<31xf32>) -> tensor<8x63xf32> {
  // expected-error@+1 {{expects an even, positive rotary dimension, got 63 (the head dimension)}}
  %0 = pe.rope half %x inv_freq(%f : tensor<31xf32>) : tensor<8x63xf32>
  return %0 : tensor<8x63xf32>
}

// -----

func.func @rope_odd_rotary_dim(%x: tensor<8x64xf32>, %f: tensor<15xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects an even, positive rotary dimension, got 31}}
  %0 = pe.rope half %x inv_freq(%f : tensor<15xf32>) {rotary_dim = 31 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_zero_rotary_dim(%x: tensor<8x64xf32>, %f: tensor<1xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects an even, positive rotary dimension, got 0}}
  %0 = pe.rope half %x inv_freq(%f : tensor<1xf32>) {rotary_dim = 0 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_rotary_gt_head(%x: tensor<8x64xf32>, %f: tensor<64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects rotary_dim <= head dimension 64, got 128}}
  %0 = pe.rope half %x inv_freq(%f : tensor<64xf32>) {rotary_dim = 128 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_no_frequencies(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects exactly one frequency source: inv_freq or cache}}
  %0 = pe.rope half %x : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_two_frequency_sources(%x: tensor<8x64xf32>, %f: tensor<32xf32>, %c: tensor<16x32xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects exactly one frequency source: inv_freq or cache}}
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) cache(%c, %c : tensor<16x32xf32>, tensor<16x32xf32>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_cos_without_sin(%x: tensor<8x64xf32>, %c: tensor<16x32xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects both a cos and a sin cache}}
  %0 = "pe.rope"(%x, %c) <{layout = #pe<rope_layout half>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 0, 0, 0>}> : (tensor<8x64xf32>, tensor<16x32xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_inv_freq_length(%x: tensor<8x64xf32>, %f: tensor<64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects inv_freq of length rotary_dim / 2 = 32, got 64}}
  %0 = pe.rope half %x inv_freq(%f : tensor<64xf32>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_inv_freq_f16(%x: tensor<8x64xf32>, %f: tensor<32xf16>) -> tensor<8x64xf32> {
  // expected-error@+1 {{operand #1 must be 1D tensor of 32-bit float or 64-bit float values}}
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf16>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_cache_types(%x: tensor<8x64xf32>, %c: tensor<16x32xf32>, %s: tensor<16x32xf16>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects cos and sin caches of the same type, got 'tensor<16x32xf32>' and 'tensor<16x32xf16>'}}
  %0 = pe.rope half %x cache(%c, %s : tensor<16x32xf32>, tensor<16x32xf16>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_cache_rank(%x: tensor<8x64xf32>, %c: tensor<16x2x32xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects an input of rank >= 3 ([B, ..., T, C]) with per-token caches, got rank 2}}
  %0 = pe.rope half %x cache(%c, %c : tensor<16x2x32xf32>, tensor<16x2x32xf32>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_cache_columns(%x: tensor<8x64xf32>, %c: tensor<16x64xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{expects caches with rotary_dim / 2 = 32 columns, got 64}}
  %0 = pe.rope half %x cache(%c, %c : tensor<16x64xf32>, tensor<16x64xf32>) : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

func.func @rope_cache_empty(%x: tensor<?x64xf32>, %c: tensor<0x32xf32>) -> tensor<?x64xf32> {
  // expected-error@+1 {{expects caches with at least one row}}
  %0 = pe.rope half %x cache(%c, %c : tensor<0x32xf32>, tensor<0x32xf32>) : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

func.func @rope_cache_out_of_range(%x: tensor<8x64xf32>, %c: tensor<16x32xf32>) -> tensor<8x64xf32> {
  // expected-error@+1 {{reads positions [12, 20) but the table has 16 rows}}
  %0 = pe.rope half %x cache(%c, %c : tensor<16x32xf32>, tensor<16x32xf32>) {static_offset = 12 : i64} : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

func.func @freq_dynamic() {
  // expected-error@+1 {{expects a statically shaped inv_freq result}}
  %f, %m = pe.rope_frequencies : tensor<?xf32>
  return
}

// -----

func.func @freq_base() {
  // expected-error@+1 {{expects base to be positive and finite, got -1}}
  %f, %m = pe.rope_frequencies {base = -1.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @freq_empty() {
  // expected-error@+1 {{expects a rotary dimension (2 x inv_freq length) of at least 2, got 0}}
  %f, %m = pe.rope_frequencies : tensor<0xf32>
  return
}

// -----

func.func @freq_f16() {
  // expected-error@+1 {{result #0 must be 1D tensor of 32-bit float or 64-bit float values}}
  %f, %m = pe.rope_frequencies : tensor<32xf16>
  return
}

// -----

func.func @linear_factor() {
  // expected-error@+1 {{expects factor >= 1, got 0.5}}
  %f, %m = pe.linear_scale {factor = 0.5 : f64} : tensor<32xf32>
  return
}

// -----

func.func @ntk_rotary_too_small() {
  // expected-error@+1 {{expects a rotary dimension (2 x inv_freq length) of at least 4, got 2}}
  %f, %m = pe.ntk_scale {factor = 2.0 : f64} : tensor<1xf32>
  return
}

// -----

func.func @ntk_factor() {
  // expected-error@+1 {{expects factor >= 1, got 0}}
  %f, %m = pe.ntk_scale {factor = 0.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @dynamic_ntk_factor(%n: index) {
  // expected-error@+1 {{expects factor >= 1, got 0.25}}
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 0.25 : f64, max_position_embeddings = 2048 : i64} : tensor<32xf32>
  return
}

// -----

func.func @dynamic_ntk_max_pos(%n: index) {
  // expected-error@+1 {{expects max_position_embeddings > 0, got 0}}
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 0 : i64} : tensor<32xf32>
  return
}

// -----

func.func @dynamic_ntk_seq_len_type(%n: f32) {
  // expected-error@+1 {{operand #0 must be index or 32-bit signless integer or 64-bit signless integer}}
  %f, %m = pe.dynamic_ntk_scale %n : f32 {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_factor() {
  // expected-error@+1 {{expects factor >= 1, got 0.5}}
  %f, %m = pe.yarn_scale {factor = 0.5 : f64, original_max_position_embeddings = 4096 : i64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_beta_fast() {
  // expected-error@+1 {{expects beta_fast to be positive and finite, got 0}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, beta_fast = 0.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_beta_slow() {
  // expected-error@+1 {{expects beta_slow to be positive and finite, got -1}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, beta_slow = -1.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_base_one() {
  // expected-error@+1 {{expects base != 1 (the correction range divides by ln(base))}}
  %f, %m = pe.yarn_scale {base = 1.0 : f64, factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_original_max() {
  // expected-error@+1 {{expects original_max_position_embeddings > 0, got -4}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = -4 : i64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_mscale() {
  // expected-error@+1 {{expects mscale >= 0}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, mscale = -1.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_mscale_all_dim() {
  // expected-error@+1 {{expects mscale_all_dim >= 0}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, mscale_all_dim = -0.5 : f64} : tensor<32xf32>
  return
}

// -----

func.func @yarn_attention_factor() {
  // expected-error@+1 {{expects attention_factor to be positive and finite, got 0}}
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, attention_factor = 0.0 : f64} : tensor<32xf32>
  return
}

// -----

func.func @llama3_factor() {
  // expected-error@+1 {{expects factor >= 1, got 0.5}}
  %f, %m = pe.llama3_scale {factor = 0.5 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  return
}

// -----

func.func @llama3_low() {
  // expected-error@+1 {{expects low_freq_factor to be positive and finite, got 0}}
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 0.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  return
}

// -----

func.func @llama3_high_below_low() {
  // expected-error@+1 {{expects high_freq_factor >= low_freq_factor, got 1 < 4}}
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 4.0 : f64, high_freq_factor = 1.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  return
}

// -----

func.func @llama3_original_max() {
  // expected-error@+1 {{expects original_max_position_embeddings > 0, got 0}}
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 0 : i64} : tensor<32xf32>
  return
}

// -----

func.func @llama3_missing_factor() {
  // expected-error@+1 {{requires attribute 'factor'}}
  %f, %m = pe.llama3_scale {low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  return
}

// -----

func.func @longrope_short_length() {
  // expected-error@+1 {{expects short_factor to have rotary_dim / 2 = 2 entries, got 3}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0, 1.0>, long_factor = array<f64: 1.0, 1.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<2xf32>
  return
}

// -----

func.func @longrope_empty_long() {
  // expected-error@+1 {{expects long_factor to have rotary_dim / 2 = 2 entries, got 0}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<2xf32>
  return
}

// -----

func.func @longrope_non_positive_factor() {
  // expected-error@+1 {{expects long_factor to be positive and finite, got -2}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.0, -2.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<2xf32>
  return
}

// -----

func.func @longrope_lengths() {
  // expected-error@+1 {{expects positive original_max_position_embeddings and max_position_embeddings}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.0, 1.0>, original_max_position_embeddings = 0 : i64, max_position_embeddings = 131072 : i64} : tensor<2xf32>
  return
}

// -----

func.func @longrope_factor() {
  // expected-error@+1 {{expects factor to be positive and finite, got 0}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.0, 1.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64, factor = 0.0 : f64} : tensor<2xf32>
  return
}

// -----

func.func @longrope_attention_factor() {
  // expected-error@+1 {{expects attention_factor to be positive and finite, got -1}}
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.0, 1.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64, attention_factor = -1.0 : f64} : tensor<2xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// alibi_bias
//===----------------------------------------------------------------------===//

func.func @alibi_rank() {
  // expected-error@+1 {{expects a rank-3 result [H, Tq, Tk], got rank 2}}
  %0 = pe.alibi_bias symmetric : tensor<4x4xf32>
  return
}

// -----

func.func @alibi_dynamic_heads(%h: index) {
  // expected-error@+1 {{expects a static head count}}
  %0 = pe.alibi_bias symmetric [%h] : tensor<?x4x4xf32>
  return
}

// -----

func.func @alibi_zero_heads() {
  // expected-error@+1 {{expects at least one head}}
  %0 = pe.alibi_bias symmetric : tensor<0x4x4xf32>
  return
}

// -----

func.func @alibi_dynamic_sizes(%t: index) {
  // expected-error@+1 {{expects 2 dynamic size operands (one per dynamic dimension), got 1}}
  %0 = pe.alibi_bias symmetric [%t] : tensor<8x?x?xf32>
  return
}

// -----

func.func @alibi_offset() {
  // expected-error@+1 {{expects a non-negative static_offset, got -3}}
  %0 = pe.alibi_bias signed {static_offset = -3 : i64} : tensor<8x4x4xf32>
  return
}

// -----

func.func @alibi_empty_slopes(%s: tensor<0xf32>) {
  // expected-error@+1 {{expects a non-empty slopes tensor}}
  %0 = pe.alibi_bias key slopes(%s : tensor<0xf32>) : tensor<8x4x4xf32>
  return
}

// -----

func.func @alibi_slope_count(%s: tensor<6xf32>) {
  // expected-error@+1 {{expects one slope per head (8), got 6}}
  %0 = pe.alibi_bias key slopes(%s : tensor<6xf32>) : tensor<8x4x4xf32>
  return
}

// -----

func.func @alibi_max_bias() {
  // expected-error@+1 {{expects max_bias to be positive and finite, got 0}}
  %0 = pe.alibi_bias symmetric {max_bias = 0.0 : f64} : tensor<8x4x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

func.func @attention_rank(%q: tensor<4x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects a rank-4 query [B, heads, T, D], got rank 3}}
  %0 = pe.attention %q, %k, %k outs(%attn_init0 : tensor<1x4x16x64xf32>) : tensor<4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

// An f16 key with a bf16 value: key and value must share a type.
func.func @attention_element_types(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf16>, %v: tensor<1x4x16x64xbf16>) {
  %attn_init1 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects query, key, value and result of one element type, or f16/bf16 key and value with an f32 query and result, or an f32 result of f16/bf16 query, key and value, got 'f32', 'f16', 'bf16' and 'f32'}}
  %0 = pe.attention %q, %k, %v outs(%attn_init1 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xf32>
  return
}

// -----

// A half-precision cache is read by an f32 query only (not f64).
func.func @attention_half_cache_f64(%q: tensor<1x4x16x64xf64>, %k: tensor<1x4x16x64xf16>) {
  %attn_init2 = tensor.empty() : tensor<1x4x16x64xf64>
  // expected-error@+1 {{expects query, key, value and result of one element type, or f16/bf16 key and value with an f32 query and result, or an f32 result of f16/bf16 query, key and value, got 'f64', 'f16', 'f16' and 'f64'}}
  %0 = pe.attention %q, %k, %k outs(%attn_init2 : tensor<1x4x16x64xf64>) : tensor<1x4x16x64xf64>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf64>
  return
}

// -----

// The result has the query's type.
func.func @attention_half_cache_result(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf16>) {
  %attn_init3 = tensor.empty() : tensor<1x4x16x64xf16>
  // expected-error@+1 {{expects query, key, value and result of one element type, or f16/bf16 key and value with an f32 query and result, or an f32 result of f16/bf16 query, key and value, got 'f32', 'f16', 'f16' and 'f16'}}
  %0 = pe.attention %q, %k, %k outs(%attn_init3 : tensor<1x4x16x64xf16>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return
}

// -----

// A bf16 attention gives a bf16 or an f32 result, not f16.
func.func @attention_bf16_result(%q: tensor<1x4x16x64xbf16>) {
  %attn_init4 = tensor.empty() : tensor<1x4x16x64xf16>
  // expected-error@+1 {{expects query, key, value and result of one element type, or f16/bf16 key and value with an f32 query and result, or an f32 result of f16/bf16 query, key and value, got 'bf16', 'bf16', 'bf16' and 'f16'}}
  %0 = pe.attention %q, %q, %q outs(%attn_init4 : tensor<1x4x16x64xf16>) : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xf16>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  %attn_init5 = tensor.empty() : tensor<2x4x16x64xf32>
  // expected-error@+1 {{expects query, key and value of one batch size}}
  %0 = pe.attention %q, %k, %k outs(%attn_init5 : tensor<2x4x16x64xf32>) : tensor<2x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<2x4x16x64xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x32xf32>) {
  %attn_init6 = tensor.empty() : tensor<1x4x16x32xf32>
  // expected-error@+1 {{expects query and key of one head dimension, got 64 and 32}}
  %0 = pe.attention %q, %k, %k outs(%attn_init6 : tensor<1x4x16x32xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32> -> tensor<1x4x16x32xf32>
  return
}

// -----

func.func @attention_kv_shape(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>, %v: tensor<1x4x8x64xf32>) {
  %attn_init7 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects key and value of one shape in the heads and sequence dimensions}}
  %0 = pe.attention %q, %k, %v outs(%attn_init7 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x8x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_gqa(%q: tensor<1x6x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  %attn_init8 = tensor.empty() : tensor<1x6x16x64xf32>
  // expected-error@+1 {{expects the query heads (6) to be a multiple of the key/value heads (4)}}
  %0 = pe.attention %q, %k, %k outs(%attn_init8 : tensor<1x6x16x64xf32>) : tensor<1x6x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x6x16x64xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<1x4x16x64xf32>, %k: tensor<1x4x16x64xf32>) {
  %attn_init9 = tensor.empty() : tensor<1x4x8x64xf32>
  // expected-error@+1 {{expects a result of shape [1, 4, 16, 64], got 'tensor<1x4x8x64xf32>'}}
  %0 = pe.attention %q, %k, %k outs(%attn_init9 : tensor<1x4x8x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x8x64xf32>
  return
}

// -----

func.func @attention_outs_lse_without_result(%q: tensor<1x4x16x64xf32>) {
  %i = tensor.empty() : tensor<1x4x16x64xf32>
  %l = tensor.empty() : tensor<1x4x16xf32>
  // expected-error@+1 {{expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %0 = pe.attention %q, %q, %q outs(%i, %l : tensor<1x4x16x64xf32>, tensor<1x4x16xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_lse_result_without_init(%q: tensor<1x4x16x64xf32>) {
  %i = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expected the number of tensor results (2) to be equal to the number of output tensors (1)}}
  %0:2 = pe.attention %q, %q, %q outs(%i : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>, tensor<1x4x16xf32>
  return
}

// -----

func.func @attention_outs_type(%q: tensor<1x4x16x64xf32>) {
  %i = tensor.empty() : tensor<1x4x16x64xf16>
  // expected-error@+1 {{expected type of operand #3 ('tensor<1x4x16x64xf16>') to match type of corresponding result ('tensor<1x4x16x64xf32>')}}
  %0 = pe.attention %q, %q, %q outs(%i : tensor<1x4x16x64xf16>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_bias_rank(%q: tensor<1x4x16x64xf32>, %b: tensor<16xf32>) {
  %attn_init10 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects a bias of rank 2 to 4 (broadcast to [B, H, Tq, Tk]), got rank 1}}
  %0 = pe.attention %q, %q, %q bias(%b : tensor<16xf32>) outs(%attn_init10 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_bias_dim(%q: tensor<1x4x16x64xf32>, %b: tensor<3x16x16xf32>) {
  %attn_init11 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects bias dimension 0 to be 1 or 4, got 3}}
  %0 = pe.attention %q, %q, %q bias(%b : tensor<3x16x16xf32>) outs(%attn_init11 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_mask_dim(%q: tensor<1x4x16x64xf32>, %m: tensor<16x8xi1>) {
  %attn_init12 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects mask dimension 1 to be 1 or 16, got 8}}
  %0 = pe.attention %q, %q, %q mask(%m : tensor<16x8xi1>) outs(%attn_init12 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<1x4x16x64xf32>, %m: tensor<16x16xi8>) {
  %attn_init13 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{must be ranked tensor of 1-bit signless integer values}}
  %0 = pe.attention %q, %q, %q mask(%m : tensor<16x16xi8>) outs(%attn_init13 : tensor<1x4x16x64xf32>) : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<1x4x16x64xf32>) {
  %attn_init14 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects a finite, non-zero scale, got 0}}
  %0 = pe.attention %q, %q, %q outs(%attn_init14 : tensor<1x4x16x64xf32>) {scale = 0.0 : f64} : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

func.func @attention_dynamic_head_dim(%q: tensor<1x4x16x?xf32>) {
  %attn_c3_15 = arith.constant 3 : index
  %attn_d0_3_15 = tensor.dim %q, %attn_c3_15 : tensor<1x4x16x?xf32>
  %attn_init15 = tensor.empty(%attn_d0_3_15) : tensor<1x4x16x?xf32>
  // expected-error@+1 {{expects an explicit scale when the head dimension is dynamic}}
  %0 = pe.attention %q, %q, %q outs(%attn_init15 : tensor<1x4x16x?xf32>) : tensor<1x4x16x?xf32>, tensor<1x4x16x?xf32>, tensor<1x4x16x?xf32> -> tensor<1x4x16x?xf32>
  return
}

// -----

func.func @attention_softcap(%q: tensor<1x4x16x64xf32>) {
  %attn_init16 = tensor.empty() : tensor<1x4x16x64xf32>
  // expected-error@+1 {{expects softcap to be positive and finite, got -5}}
  %0 = pe.attention %q, %q, %q outs(%attn_init16 : tensor<1x4x16x64xf32>) {softcap = -5.0 : f64} : tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32>, tensor<1x4x16x64xf32> -> tensor<1x4x16x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// attention encodings
//===----------------------------------------------------------------------===//

func.func @rope_frequencies(%q: tensor<1x4x8x16xf32>, %f: tensor<4xf32>) {
  %attn_init17 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects inv_freq of length rotary_dim / 2 = 8, got 4}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<4xf32>) outs(%attn_init17 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rope_no_frequency(%q: tensor<1x4x8x16xf32>) {
  %attn_init18 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects exactly one frequency source: inv_freq or cache}}
  %0 = pe.attention %q, %q, %q rope <half> outs(%attn_init18 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rope_rotary_dim_too_large(%q: tensor<1x4x8x16xf32>, %f: tensor<16xf32>) {
  %attn_init19 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects rotary_dim <= head dimension 16, got 32}}
  %0 = pe.attention %q, %q, %q rope <half, rotary_dim = 32> inv_freq(%f : tensor<16xf32>) outs(%attn_init19 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rope_dynamic_head_dim(%q: tensor<1x4x8x?xf32>, %f: tensor<8xf32>) {
  %attn_c3_20 = arith.constant 3 : index
  %attn_d0_3_20 = tensor.dim %q, %attn_c3_20 : tensor<1x4x8x?xf32>
  %attn_init20 = tensor.empty(%attn_d0_3_20) : tensor<1x4x8x?xf32>
  // expected-error@+1 {{expects a static head dimension with RoPE}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) outs(%attn_init20 : tensor<1x4x8x?xf32>) {scale = 1.0 : f64} : tensor<1x4x8x?xf32>, tensor<1x4x8x?xf32>, tensor<1x4x8x?xf32> -> tensor<1x4x8x?xf32>
  return
}

// -----

func.func @frequencies_without_rope(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) {
  %attn_init21 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has RoPE operands but no rope encoding}}
  %0 = pe.attention %q, %q, %q inv_freq(%f : tensor<8xf32>) outs(%attn_init21 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @query_offset_without_rope(%q: tensor<1x4x8x16xf32>, %o: index) {
  %attn_init22 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has RoPE operands but no rope encoding}}
  %0 = pe.attention %q, %q, %q query_offset(%o : index) outs(%attn_init22 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @query_positions_without_rope(%q: tensor<1x4x8x16xf32>, %p: tensor<8xi32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has RoPE operands but no rope encoding}}
  %0 = pe.attention %q, %q, %q query_positions(%p : tensor<8xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @key_positions_query_only(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has a key_positions operand but its rope encoding is query_only}}
  %0 = pe.attention %q, %q, %q rope <half, query_only> inv_freq(%f : tensor<8xf32>) key_positions(%p : tensor<8xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @query_positions_and_dynamic_offset(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi32>, %o: index) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects either query_positions or a query offset (static or dynamic), not both}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) query_offset(%o : index) query_positions(%p : tensor<8xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @key_positions_and_static_offset(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects either key_positions or a key offset (static or dynamic), not both}}
  %0 = pe.attention %q, %q, %q rope <half, key_offset = 2> inv_freq(%f : tensor<8xf32>) key_positions(%p : tensor<8xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @query_positions_length(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<7xi32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects query_positions of length 8 (the sequence dimension), got 7}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%p : tensor<7xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

// The key positions follow Tk (6), not Tq (8); bshd puts the tokens in dimension 1.
func.func @key_positions_batch_shape(%q: tensor<2x8x4x16xf32>, %k: tensor<2x6x4x16xf32>, %f: tensor<8xf32>, %p: tensor<1x6xi64>) {
  %init = tensor.empty() : tensor<2x8x4x16xf32>
  // expected-error@+1 {{expects 2-D key_positions of shape [2, 6], got [1, 6]}}
  %0 = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf32>) key_positions(%p : tensor<1x6xi64>) outs(%init : tensor<2x8x4x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x8x4x16xf32>, tensor<2x6x4x16xf32>, tensor<2x6x4x16xf32> -> tensor<2x8x4x16xf32>
  return
}

// -----

func.func @query_positions_rank(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<1x1x8xi32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects query_positions of rank 1 ([T]) or 2 ([B, T]), got rank 3}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%p : tensor<1x1x8xi32>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @query_positions_element_type(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi16>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{operand #4 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<8xi16>'}}
  %0 = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) query_positions(%p : tensor<8xi16>) outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @key_offset_query_only(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %o: index) {
  %attn_init23 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has a key_offset operand but its rope encoding is query_only}}
  %0 = pe.attention %q, %q, %q rope <half, query_only> inv_freq(%f : tensor<8xf32>) key_offset(%o : index) outs(%attn_init23 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @alibi_dynamic_heads(%q: tensor<1x?x8x16xf32>) {
  %attn_c1_24 = arith.constant 1 : index
  %attn_d0_1_24 = tensor.dim %q, %attn_c1_24 : tensor<1x?x8x16xf32>
  %attn_init24 = tensor.empty(%attn_d0_1_24) : tensor<1x?x8x16xf32>
  // expected-error@+1 {{expects a static head count with ALiBi}}
  %0 = pe.attention %q, %q, %q alibi <signed> outs(%attn_init24 : tensor<1x?x8x16xf32>) : tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32>, tensor<1x?x8x16xf32> -> tensor<1x?x8x16xf32>
  return
}

// -----

func.func @alibi_and_bias(%q: tensor<1x4x8x16xf32>, %b: tensor<8x8xf32>) {
  %attn_init25 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects either a bias operand or an alibi encoding, not both}}
  %0 = pe.attention %q, %q, %q alibi <signed> bias(%b : tensor<8x8xf32>) outs(%attn_init25 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @alibi_offset_without_alibi(%q: tensor<1x4x8x16xf32>, %o: index) {
  %attn_init26 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has ALiBi operands but no alibi encoding}}
  %0 = pe.attention %q, %q, %q alibi_offset(%o : index) outs(%attn_init26 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

// expected-error@+1 {{expects an even, positive rotary_dim, got 7}}
func.func @rope_odd_rotary_dim() attributes {enc = #pe.rope<half, rotary_dim = 7>} {
  return
}

// -----

// expected-error@+1 {{expects non-negative rope offsets, got -1 and 0}}
func.func @rope_negative_offset() attributes {enc = #pe.rope<half, query_offset = -1>} {
  return
}

// -----

// expected-error@+1 {{expects no key_offset with query_only}}
func.func @rope_key_offset_query_only() attributes {enc = #pe.rope<half, query_only, key_offset = 2>} {
  return
}

// -----

// expected-error@+1 {{expects max_bias to be positive and finite, got -8}}
func.func @alibi_max_bias() attributes {enc = #pe.alibi<signed, max_bias = -8.0>} {
  return
}

// -----

// expected-error@+1 {{expects a non-negative query_offset, got -3}}
func.func @alibi_negative_offset() attributes {enc = #pe.alibi<key, query_offset = -3>} {
  return
}

// -----

// expected-error@+1 {{expected 'interleaved' or 'half', got 'pairs'}}
func.func @rope_bad_layout() attributes {enc = #pe.rope<pairs>} {
  return
}

// -----

// expected-error@+1 {{unknown rope encoding parameter 'offset'}}
func.func @rope_unknown_parameter() attributes {enc = #pe.rope<half, offset = 3>} {
  return
}

// -----

// expected-error@+1 {{duplicate rope encoding parameter 'rotary_dim'}}
func.func @rope_duplicate_parameter() attributes {enc = #pe.rope<half, rotary_dim = 16, rotary_dim = 32>} {
  return
}

// -----

// expected-error@+1 {{duplicate rope encoding parameter 'query_only'}}
func.func @rope_duplicate_flag() attributes {enc = #pe.rope<half, query_only, query_only>} {
  return
}

// -----

// expected-error@+1 {{expected 'symmetric', 'signed' or 'key', got 'abs'}}
func.func @alibi_bad_distance() attributes {enc = #pe.alibi<abs>} {
  return
}

// -----

// expected-error@+1 {{unknown alibi encoding parameter 'slopes'}}
func.func @alibi_unknown_parameter() attributes {enc = #pe.alibi<key, slopes = 3>} {
  return
}

// -----

// expected-error@+1 {{duplicate alibi encoding parameter 'max_bias'}}
func.func @alibi_duplicate_parameter() attributes {enc = #pe.alibi<key, max_bias = 4.0, query_offset = 1, max_bias = 2.0>} {
  return
}

// -----

func.func @causal_offset_not_causal(%q: tensor<1x4x8x16xf32>, %o: index) {
  %attn_init27 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has a causal_offset operand but is not causal}}
  %0 = pe.attention %q, %q, %q causal_offset(%o : index) outs(%attn_init27 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @alignment_not_causal(%q: tensor<1x4x8x16xf32>) {
  %attn_init28 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has a causal_alignment but is not causal}}
  %0 = pe.attention %q, %q, %q outs(%attn_init28 : tensor<1x4x8x16xf32>) {causal_alignment = #pe<causal_alignment top_left>} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @window_not_causal(%q: tensor<1x4x8x16xf32>) {
  %attn_init29 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has a sliding window but is not causal}}
  %0 = pe.attention %q, %q, %q outs(%attn_init29 : tensor<1x4x8x16xf32>) {window = 4 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @window_zero(%q: tensor<1x4x8x16xf32>) {
  %attn_init30 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects a window of at least 1 key, got 0}}
  %0 = pe.attention %q, %q, %q outs(%attn_init30 : tensor<1x4x8x16xf32>) {causal, window = 0 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @kv_lengths_batch(%q: tensor<1x4x8x16xf32>, %l: tensor<2xi32>) {
  %attn_init31 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects one kv_lengths entry per batch (1), got 2}}
  %0 = pe.attention %q, %q, %q kv_lengths(%l : tensor<2xi32>) outs(%attn_init31 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @kv_lengths_type(%q: tensor<1x4x8x16xf32>, %l: tensor<1xf32>) {
  %attn_init32 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{operand #3 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = pe.attention %q, %q, %q kv_lengths(%l : tensor<1xf32>) outs(%attn_init32 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @alibi_slopes_count(%q: tensor<1x4x8x16xf32>, %s: tensor<3xf32>) {
  %attn_init33 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects one ALiBi slope per query head (4), got 3}}
  %0 = pe.attention %q, %q, %q alibi <key> alibi_slopes(%s : tensor<3xf32>) outs(%attn_init33 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @alibi_slopes_without_alibi(%q: tensor<1x4x8x16xf32>, %s: tensor<4xf32>) {
  %attn_init34 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{has ALiBi operands but no alibi encoding}}
  %0 = pe.attention %q, %q, %q alibi_slopes(%s : tensor<4xf32>) outs(%attn_init34 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @bshd_heads(%q: tensor<1x8x6x16xf32>, %k: tensor<1x8x4x16xf32>) {
  %attn_init35 = tensor.empty() : tensor<1x8x6x16xf32>
  // expected-error@+1 {{expects the query heads (6) to be a multiple of the key/value heads (4)}}
  %0 = pe.attention %q, %k, %k outs(%attn_init35 : tensor<1x8x6x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<1x8x6x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32> -> tensor<1x8x6x16xf32>
  return
}

// -----

func.func @bshd_result(%q: tensor<1x8x4x16xf32>) {
  %attn_init36 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects a result of shape [1, 8, 4, 16], got 'tensor<1x4x8x16xf32>'}}
  %0 = pe.attention %q, %q, %q outs(%attn_init36 : tensor<1x4x8x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @per_token_cache_shape(%x: tensor<2x3x5x16xf32>, %c: tensor<2x4x8xf32>) {
  // expected-error@+1 {{expects per-token caches of shape [2, 5, rotary_dim / 2] (the input's batch and tokens), got 'tensor<2x4x8xf32>'}}
  %0 = pe.rope half %x cache(%c, %c : tensor<2x4x8xf32>, tensor<2x4x8xf32>) : tensor<2x3x5x16xf32>
  return
}

// -----

func.func @per_token_cache_offset(%x: tensor<2x3x5x16xf32>, %c: tensor<2x5x8xf32>, %o: index) {
  // expected-error@+1 {{expects no positions or offsets with per-token caches (each token has its own row)}}
  %0 = pe.rope half %x cache(%c, %c : tensor<2x5x8xf32>, tensor<2x5x8xf32>) offset(%o : index) : tensor<2x3x5x16xf32>
  return
}

// -----

func.func @per_token_cache_rank(%x: tensor<5x16xf32>, %c: tensor<1x5x8xf32>) {
  // expected-error@+1 {{expects an input of rank >= 3 ([B, ..., T, C]) with per-token caches, got rank 2}}
  %0 = pe.rope half %x cache(%c, %c : tensor<1x5x8xf32>, tensor<1x5x8xf32>) : tensor<5x16xf32>
  return
}

// -----

func.func @cache_rank4(%x: tensor<2x3x5x16xf32>, %c: tensor<1x2x5x8xf32>) {
  // expected-error@+1 {{expects rank-2 caches [P, rotary_dim / 2] or rank-3 per-token caches [B, T, rotary_dim / 2], got rank 4}}
  %0 = pe.rope half %x cache(%c, %c : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) : tensor<2x3x5x16xf32>
  return
}

// -----

func.func @attention_per_token_cache(%q: tensor<1x4x8x16xf32>, %c: tensor<1x8x8xf32>) {
  %attn_init37 = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expects rank-2 caches [P, rotary_dim / 2] in the rope encoding (per-token caches belong to a separate pe.rope)}}
  %0 = pe.attention %q, %q, %q rope <half> cache(%c, %c : tensor<1x8x8xf32>, tensor<1x8x8xf32>) outs(%attn_init37 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @rope_sequence_dim_channels(%x: tensor<2x8x4x16xf32>, %f: tensor<8xf32>) {
  // expected-error@+1 {{expects a sequence_dim in [0, 3) (not the channel dimension), got 3}}
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) {sequence_dim = 3 : i64} : tensor<2x8x4x16xf32>
  return
}

// -----

func.func @rope_sequence_dim_batch_positions(%x: tensor<2x8x16xf32>, %f: tensor<8xf32>, %p: tensor<2x8xi64>) {
  // expected-error@+1 {{expects a sequence_dim other than 0 with [B, T] positions (dimension 0 is their batch)}}
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) positions(%p : tensor<2x8xi64>) {sequence_dim = 0 : i64} : tensor<2x8x16xf32>
  return
}

// -----

func.func @rope_sequence_dim_positions_length(%x: tensor<2x8x4x16xf32>, %f: tensor<8xf32>, %p: tensor<4xi64>) {
  // expected-error@+1 {{expects positions of length 8 (the sequence dimension), got 4}}
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) positions(%p : tensor<4xi64>) {sequence_dim = 1 : i64} : tensor<2x8x4x16xf32>
  return
}

// -----

func.func @lse_shape(%q: tensor<1x4x8x16xf32>) {
  %attn_init38 = tensor.empty() : tensor<1x4x8x16xf32>
  %attn_lse_init38 = tensor.empty() : tensor<1x8x4xf32>
  // expected-error@+1 {{expects an lse result of shape [1, 4, 8] and element type 'f32', got 'tensor<1x8x4xf32>'}}
  %0:2 = pe.attention %q, %q, %q outs(%attn_init38, %attn_lse_init38 : tensor<1x4x8x16xf32>, tensor<1x8x4xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x8x4xf32>
  return
}

// -----

func.func @lse_type(%q: tensor<1x4x8x16xf16>) {
  %attn_init39 = tensor.empty() : tensor<1x4x8x16xf16>
  %attn_lse_init39 = tensor.empty() : tensor<1x4x8xf64>
  // expected-error@+1 {{expects an lse result of shape [1, 4, 8] and element type 'f32', got 'tensor<1x4x8xf64>'}}
  %0:2 = pe.attention %q, %q, %q outs(%attn_init39, %attn_lse_init39 : tensor<1x4x8x16xf16>, tensor<1x4x8xf64>) : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16>, tensor<1x4x8xf64>
  return
}

// -----

// Destinations (DestinationStyleOpInterface): one per result, of the
// result's type.
func.func @dps_out_type(%q: tensor<1x4x8x16xf32>) {
  %init = tensor.empty() : tensor<1x4x8x8xf32>
  // expected-error@+1 {{expected type of operand #3 ('tensor<1x4x8x8xf32>') to match type of corresponding result ('tensor<1x4x8x16xf32>')}}
  %0 = pe.attention %q, %q, %q outs(%init : tensor<1x4x8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

// A destination as static as the result, not more.
func.func @dps_out_static(%q: tensor<1x4x?x16xf32>, %init: tensor<1x4x8x16xf32>) {
  // expected-error@+1 {{expected type of operand #3 ('tensor<1x4x8x16xf32>') to match type of corresponding result ('tensor<1x4x?x16xf32>')}}
  %0 = pe.attention %q, %q, %q outs(%init : tensor<1x4x8x16xf32>) {scale = 0.25 : f64} : tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x?x16xf32>
  return
}

// -----

func.func @dps_out_element_type(%q: tensor<1x4x8x16xf32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf16>
  // expected-error@+1 {{expected type of operand #3 ('tensor<1x4x8x16xf16>') to match type of corresponding result ('tensor<1x4x8x16xf32>')}}
  %0 = pe.attention %q, %q, %q outs(%init : tensor<1x4x8x16xf16>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

func.func @dps_lse_type(%q: tensor<1x4x8x16xf32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  %lse = tensor.empty() : tensor<1x4x4xf32>
  // expected-error@+1 {{expected type of operand #4 ('tensor<1x4x4xf32>') to match type of corresponding result ('tensor<1x4x8xf32>')}}
  %0:2 = pe.attention %q, %q, %q outs(%init, %lse : tensor<1x4x8x16xf32>, tensor<1x4x4xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
  return
}

// -----

// The lse result needs its destination.
func.func @dps_lse_missing(%q: tensor<1x4x8x16xf32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  // expected-error@+1 {{expected the number of tensor results (2) to be equal to the number of output tensors (1)}}
  %0:2 = pe.attention %q, %q, %q outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
  return
}

// -----

// An lse destination without the lse result.
func.func @dps_lse_extra(%q: tensor<1x4x8x16xf32>) {
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  %lse = tensor.empty() : tensor<1x4x8xf32>
  // expected-error@+1 {{expected the number of tensor results (1) to be equal to the number of output tensors (2)}}
  %0 = pe.attention %q, %q, %q outs(%init, %lse : tensor<1x4x8x16xf32>, tensor<1x4x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}

// -----

// The destination is not optional.
func.func @dps_outs_missing(%q: tensor<1x4x8x16xf32>) {
  // expected-error@+1 {{expected 'outs'}}
  %0 = pe.attention %q, %q, %q : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return
}
