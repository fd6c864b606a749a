// RUN: pe-opt %s --verify-roundtrip | FileCheck %s
// RUN: pe-opt %s --mlir-print-op-generic | pe-opt | FileCheck %s

// Every op and every attribute in its custom form, printed back.

// CHECK-LABEL: func @sinusoidal
func.func @sinusoidal(%x: tensor<2x?x64xf32>, %o: index, %o32: i32,
                      %p: tensor<2x16xi64>, %p1: tensor<16xi32>,
                      %y: tensor<2x16x63xbf16>) {
  // CHECK: pe.add_sinusoidal interleaved %{{.*}} : tensor<2x?x64xf32>
  %0 = pe.add_sinusoidal interleaved %x : tensor<2x?x64xf32>
  // CHECK: pe.add_sinusoidal interleaved %{{.*}} offset(%{{.*}} : index) {base = 5.000000e+02 : f64} : tensor<2x?x64xf32>
  %1 = pe.add_sinusoidal interleaved %x offset(%o : index) {base = 500.0 : f64} : tensor<2x?x64xf32>
  // CHECK: pe.add_sinusoidal concat %{{.*}} offset(%{{.*}} : i32) {scale_input, static_offset = 7 : i64} : tensor<2x?x64xf32>
  %2 = pe.add_sinusoidal concat %x offset(%o32 : i32) {static_offset = 7 : i64, scale_input} : tensor<2x?x64xf32>
  // CHECK: pe.add_sinusoidal concat %{{.*}} positions(%{{.*}} : tensor<16xi32>) : tensor<2x16x63xbf16>
  %3 = pe.add_sinusoidal concat %y positions(%p1 : tensor<16xi32>) : tensor<2x16x63xbf16>
  return
}

// CHECK-LABEL: func @learned
func.func @learned(%x: tensor<1x?x768xf16>, %wpe: tensor<1024x768xf16>,
                   %past: index, %p: tensor<1x?xi64>) {
  // CHECK: pe.add_learned %{{.*}}, %{{.*}} offset(%{{.*}} : index) : tensor<1x?x768xf16>, tensor<1024x768xf16>
  %0 = pe.add_learned %x, %wpe offset(%past : index) : tensor<1x?x768xf16>, tensor<1024x768xf16>
  // CHECK: pe.add_learned %{{.*}}, %{{.*}} positions(%{{.*}} : tensor<1x?xi64>) : tensor<1x?x768xf16>, tensor<1024x768xf16>
  %1 = pe.add_learned %x, %wpe positions(%p : tensor<1x?xi64>) : tensor<1x?x768xf16>, tensor<1024x768xf16>
  return
}

// CHECK-LABEL: func @rope
func.func @rope(%q: tensor<1x32x?x128xf32>, %f: tensor<64xf32>, %f64: tensor<32xf64>,
                %m: f32, %past: index, %cos: tensor<4096x32xf16>,
                %sin: tensor<4096x32xf16>, %h: tensor<1x32x?x128xf16>,
                %p: tensor<?xi64>) {
  // CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<64xf32>) attention_scaling(%{{.*}}) offset(%{{.*}} : index) : tensor<1x32x?x128xf32>
  %0 = pe.rope half %q inv_freq(%f : tensor<64xf32>) attention_scaling(%m) offset(%past : index) : tensor<1x32x?x128xf32>
  // CHECK: pe.rope interleaved %{{.*}} inv_freq(%{{.*}} : tensor<32xf64>) positions(%{{.*}} : tensor<?xi64>) {rotary_dim = 64 : i64} : tensor<1x32x?x128xf32>
  %1 = pe.rope interleaved %q inv_freq(%f64 : tensor<32xf64>) positions(%p : tensor<?xi64>) {rotary_dim = 64 : i64} : tensor<1x32x?x128xf32>
  // CHECK: pe.rope half %{{.*}} cache(%{{.*}}, %{{.*}} : tensor<4096x32xf16>, tensor<4096x32xf16>) {rotary_dim = 64 : i64, static_offset = 5 : i64} : tensor<1x32x?x128xf16>
  %2 = pe.rope half %h cache(%cos, %sin : tensor<4096x32xf16>, tensor<4096x32xf16>) {rotary_dim = 64 : i64, static_offset = 5 : i64} : tensor<1x32x?x128xf16>
  return
}

// CHECK-LABEL: func @frequencies
func.func @frequencies(%len: index, %len64: i64) {
  // CHECK: pe.rope_frequencies : tensor<64xf32>
  %f0, %m0 = pe.rope_frequencies : tensor<64xf32>
  // CHECK: pe.rope_frequencies {base = 5.000000e+05 : f64} : tensor<64xf64>
  %f1, %m1 = pe.rope_frequencies {base = 500000.0 : f64} : tensor<64xf64>
  // CHECK: pe.linear_scale {factor = 4.000000e+00 : f64} : tensor<64xf32>
  %f2, %m2 = pe.linear_scale {factor = 4.0 : f64} : tensor<64xf32>
  // CHECK: pe.ntk_scale {base = 1.000000e+06 : f64, factor = 2.000000e+00 : f64} : tensor<64xf32>
  %f3, %m3 = pe.ntk_scale {base = 1000000.0 : f64, factor = 2.0 : f64} : tensor<64xf32>
  // CHECK: pe.dynamic_ntk_scale %{{.*}} : i64 {factor = 2.000000e+00 : f64, max_position_embeddings = 4096 : i64} : tensor<64xf32>
  %f4, %m4 = pe.dynamic_ntk_scale %len64 : i64 {factor = 2.0 : f64, max_position_embeddings = 4096 : i64} : tensor<64xf32>
  // CHECK: pe.yarn_scale {attention_factor = 1.500000e+00 : f64, beta_fast = 1.600000e+01 : f64, beta_slow = 2.000000e+00 : f64, factor = 4.000000e+00 : f64, mscale = 7.070000e-01 : f64, mscale_all_dim = 7.070000e-01 : f64, original_max_position_embeddings = 4096 : i64, truncate = false} : tensor<64xf32>
  %f5, %m5 = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, beta_fast = 16.0 : f64, beta_slow = 2.0 : f64, mscale = 0.707 : f64, mscale_all_dim = 0.707 : f64, attention_factor = 1.5 : f64, truncate = false} : tensor<64xf32>
  // CHECK: pe.llama3_scale {base = 5.000000e+05 : f64, factor = 8.000000e+00 : f64, high_freq_factor = 4.000000e+00 : f64, low_freq_factor = 1.000000e+00 : f64, original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  %f6, %m6 = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  // CHECK: pe.longrope_scale %{{.*}} : index {attention_factor = 1.200000e+00 : f64, factor = 3.200000e+01 : f64, long_factor = array<f64: 1.500000e+00, 4.000000e+00>, max_position_embeddings = 131072 : i64, original_max_position_embeddings = 4096 : i64, short_factor = array<f64: 1.000000e+00, 1.000000e+00>} : tensor<2xf32>
  %f7, %m7 = pe.longrope_scale %len : index {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.5, 4.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64, factor = 32.0 : f64, attention_factor = 1.2 : f64} : tensor<2xf32>
  // CHECK: pe.longrope_scale {long_factor
  %f8, %m8 = pe.longrope_scale {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.5, 4.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<2xf32>
  return
}

// CHECK-LABEL: func @alibi
func.func @alibi(%tq: index, %tk: index, %s: tensor<6xf32>, %o: index) {
  // CHECK: pe.alibi_bias symmetric[%{{.*}}, %{{.*}}] : tensor<12x?x?xf32>
  %0 = pe.alibi_bias symmetric [%tq, %tk] : tensor<12x?x?xf32>
  // CHECK: pe.alibi_bias signed[%{{.*}}] offset(%{{.*}} : index) {max_bias = 1.600000e+01 : f64} : tensor<8x1x?xf16>
  %1 = pe.alibi_bias signed [%tk] offset(%o : index) {max_bias = 16.0 : f64} : tensor<8x1x?xf16>
  // CHECK: pe.alibi_bias key slopes(%{{.*}} : tensor<6xf32>) {static_offset = 3 : i64} : tensor<6x4x8xf32>
  %2 = pe.alibi_bias key slopes(%s : tensor<6xf32>) {static_offset = 3 : i64} : tensor<6x4x8xf32>
  return
}

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<1x32x?x128xf16>, %k: tensor<1x8x?x128xf16>,
                     %v: tensor<1x8x?x128xf16>, %b: tensor<32x?x?xf32>,
                     %m: tensor<1x1x?x?xi1>, %vd: tensor<1x8x?x64xf16>,
                     %q32: tensor<2x4x16x32xf32>, %k32: tensor<2x4x16x32xf32>,
                     %bb: tensor<16x16xbf16>, %qb: tensor<1x4x64x32xbf16>,
                     %kb: tensor<1x2x64x32xbf16>) {
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x32x?x128xf16>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x32x?x128xf16>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x32x?x128xf16>) : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x128xf16> -> tensor<1x32x?x128xf16>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<32x?x?xf32>) mask(%{{.*}} : tensor<1x1x?x?xi1>) outs({{[^)]*}}) {causal, scale = 1.250000e-01 : f64} : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x64xf16> -> tensor<1x32x?x64xf16>
  %attn_c2_1 = arith.constant 2 : index
  %attn_d0_2_1 = tensor.dim %q, %attn_c2_1 : tensor<1x32x?x128xf16>
  %attn_init1 = tensor.empty(%attn_d0_2_1) : tensor<1x32x?x64xf16>
  %1 = pe.attention %q, %k, %vd bias(%b : tensor<32x?x?xf32>) mask(%m : tensor<1x1x?x?xi1>) outs(%attn_init1 : tensor<1x32x?x64xf16>) {causal, scale = 0.125 : f64} : tensor<1x32x?x128xf16>, tensor<1x8x?x128xf16>, tensor<1x8x?x64xf16> -> tensor<1x32x?x64xf16>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<16x16xbf16>) outs({{[^)]*}}) {softcap = 5.000000e+01 : f64} : tensor<2x4x16x32xf32>
  %attn_init2 = tensor.empty() : tensor<2x4x16x32xf32>
  %2 = pe.attention %q32, %k32, %k32 bias(%bb : tensor<16x16xbf16>) outs(%attn_init2 : tensor<2x4x16x32xf32>) {softcap = 50.0 : f64} : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32> -> tensor<2x4x16x32xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<16x16xbf16>) outs({{[^)]*}}) {softcap = 5.000000e+01 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<2x4x16x32xf32>
  %attn_init3 = tensor.empty() : tensor<2x4x16x32xf32>
  %3 = pe.attention %q32, %k32, %k32 bias(%bb : tensor<16x16xbf16>) outs(%attn_init3 : tensor<2x4x16x32xf32>) {softcap = 50.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32> -> tensor<2x4x16x32xf32>
  // bf16 query, key and value with an f32 result.
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal} : tensor<1x4x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x64x32xf32>
  %attn_init4 = tensor.empty() : tensor<1x4x64x32xf32>
  %4 = pe.attention %qb, %kb, %kb outs(%attn_init4 : tensor<1x4x64x32xf32>) {causal} : tensor<1x4x64x32xbf16>, tensor<1x2x64x32xbf16>, tensor<1x2x64x32xbf16> -> tensor<1x4x64x32xf32>
  return
}

// CHECK-LABEL: func @rope_bshd
func.func @rope_bshd(%x: tensor<2x?x8x64xf32>, %f: tensor<32xf32>, %o: index) -> tensor<2x?x8x64xf32> {
  // CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<32xf32>) offset(%{{.*}} : index) {sequence_dim = 1 : i64} : tensor<2x?x8x64xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) offset(%o : index) {sequence_dim = 1 : i64} : tensor<2x?x8x64xf32>
  return %0 : tensor<2x?x8x64xf32>
}

// CHECK-LABEL: func @masks
func.func @masks(%q: tensor<2x8x?x64xf32>, %k: tensor<2x2x?x64xf32>, %l: tensor<2xi32>, %o: index,
                 %qs: tensor<2x?x8x64xf32>, %ks: tensor<2x?x2x64xf32>) {
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%{{.*}} : tensor<2xi32>) causal_offset(%{{.*}} : index) outs({{[^)]*}}) {causal, window = 4096 : i64}
  %attn_c2_5 = arith.constant 2 : index
  %attn_d0_2_5 = tensor.dim %q, %attn_c2_5 : tensor<2x8x?x64xf32>
  %attn_init5 = tensor.empty(%attn_d0_2_5) : tensor<2x8x?x64xf32>
  %0 = pe.attention %q, %k, %k kv_lengths(%l : tensor<2xi32>) causal_offset(%o : index) outs(%attn_init5 : tensor<2x8x?x64xf32>) {causal, window = 4096 : i64} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>}
  %attn_c2_6 = arith.constant 2 : index
  %attn_d0_2_6 = tensor.dim %q, %attn_c2_6 : tensor<2x8x?x64xf32>
  %attn_init6 = tensor.empty(%attn_d0_2_6) : tensor<2x8x?x64xf32>
  %1 = pe.attention %q, %k, %k outs(%attn_init6 : tensor<2x8x?x64xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal, layout = #pe<attention_layout bshd>} : tensor<2x?x8x64xf32>, tensor<2x?x2x64xf32>, tensor<2x?x2x64xf32> -> tensor<2x?x8x64xf32>
  %attn_c1_7 = arith.constant 1 : index
  %attn_d0_1_7 = tensor.dim %qs, %attn_c1_7 : tensor<2x?x8x64xf32>
  %attn_init7 = tensor.empty(%attn_d0_1_7) : tensor<2x?x8x64xf32>
  %3 = pe.attention %qs, %ks, %ks outs(%attn_init7 : tensor<2x?x8x64xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<2x?x8x64xf32>, tensor<2x?x2x64xf32>, tensor<2x?x2x64xf32> -> tensor<2x?x8x64xf32>
  // CHECK: %{{.*}}, %{{.*}} = pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>, tensor<2x8x?xf32>
  %attn_c2_8 = arith.constant 2 : index
  %attn_d0_2_8 = tensor.dim %q, %attn_c2_8 : tensor<2x8x?x64xf32>
  %attn_init8 = tensor.empty(%attn_d0_2_8) : tensor<2x8x?x64xf32>
  %attn_d1_2_8 = tensor.dim %q, %attn_c2_8 : tensor<2x8x?x64xf32>
  %attn_lse_init8 = tensor.empty(%attn_d1_2_8) : tensor<2x8x?xf32>
  %4:2 = pe.attention %q, %k, %k outs(%attn_init8, %attn_lse_init8 : tensor<2x8x?x64xf32>, tensor<2x8x?xf32>) {causal} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>, tensor<2x8x?xf32>
  // The default alignment is not printed.
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal} :
  %attn_c2_9 = arith.constant 2 : index
  %attn_d0_2_9 = tensor.dim %q, %attn_c2_9 : tensor<2x8x?x64xf32>
  %attn_init9 = tensor.empty(%attn_d0_2_9) : tensor<2x8x?x64xf32>
  %2 = pe.attention %q, %k, %k outs(%attn_init9 : tensor<2x8x?x64xf32>) {causal, causal_alignment = #pe<causal_alignment bottom_right>} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return
}

// CHECK-LABEL: func @rope_positions_tensors
func.func @rope_positions_tensors(%q: tensor<2x8x?x64xf32>, %k: tensor<2x2x?x64xf32>, %f: tensor<32xf64>,
                                  %pq: tensor<?xi32>, %pk: tensor<2x?xi64>, %qs: tensor<2x?x8x64xf32>,
                                  %ks: tensor<2x?x2x64xf32>, %pqs: tensor<2x?xi64>) {
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<32xf64>) query_positions(%{{.*}} : tensor<?xi32>) key_positions(%{{.*}} : tensor<2x?xi64>) outs({{[^)]*}}) {causal}
  %c2 = arith.constant 2 : index
  %tq = tensor.dim %q, %c2 : tensor<2x8x?x64xf32>
  %init0 = tensor.empty(%tq) : tensor<2x8x?x64xf32>
  %0 = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<?xi32>) key_positions(%pk : tensor<2x?xi64>) outs(%init0 : tensor<2x8x?x64xf32>) {causal} : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  // One side with positions, the other with an offset; query_only with query positions.
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <interleaved, key_offset = 3> inv_freq(%{{.*}} : tensor<32xf64>) query_positions(%{{.*}} : tensor<?xi32>) outs({{[^)]*}}) :
  %1 = pe.attention %q, %k, %k rope <interleaved, key_offset = 3> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<?xi32>) outs(%init0 : tensor<2x8x?x64xf32>) : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_only> inv_freq(%{{.*}} : tensor<32xf64>) query_positions(%{{.*}} : tensor<?xi32>) outs({{[^)]*}}) :
  %2 = pe.attention %q, %k, %k rope <half, query_only> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<?xi32>) outs(%init0 : tensor<2x8x?x64xf32>) : tensor<2x8x?x64xf32>, tensor<2x2x?x64xf32>, tensor<2x2x?x64xf32> -> tensor<2x8x?x64xf32>
  // bshd: [B, T] positions index the batch and the sequence dimension 1.
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<32xf64>) query_positions(%{{.*}} : tensor<2x?xi64>) outs({{[^)]*}}) {layout = #pe<attention_layout bshd>}
  %c1 = arith.constant 1 : index
  %tqs = tensor.dim %qs, %c1 : tensor<2x?x8x64xf32>
  %init3 = tensor.empty(%tqs) : tensor<2x?x8x64xf32>
  %3 = pe.attention %qs, %ks, %ks rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pqs : tensor<2x?xi64>) outs(%init3 : tensor<2x?x8x64xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x?x8x64xf32>, tensor<2x?x2x64xf32>, tensor<2x?x2x64xf32> -> tensor<2x?x8x64xf32>
  return
}

// CHECK-LABEL: func @encodings
func.func @encodings(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>, %f: tensor<32xf64>,
                     %c: tensor<128x16xf32>, %m: f32, %o: index, %o32: i32, %mask: tensor<1x1x?x?xi1>) {
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_offset = 2, key_offset = 1> inv_freq(%{{.*}} : tensor<32xf64>) attention_scaling(%{{.*}}) query_offset(%{{.*}} : index) key_offset(%{{.*}} : i32) outs({{[^)]*}}) {causal}
  %attn_c2_10 = arith.constant 2 : index
  %attn_d0_2_10 = tensor.dim %q, %attn_c2_10 : tensor<1x8x?x64xf32>
  %attn_init10 = tensor.empty(%attn_d0_2_10) : tensor<1x8x?x64xf32>
  %0 = pe.attention %q, %k, %k rope <half, query_offset = 2, key_offset = 1> inv_freq(%f : tensor<32xf64>) attention_scaling(%m) query_offset(%o : index) key_offset(%o32 : i32) outs(%attn_init10 : tensor<1x8x?x64xf32>) {causal} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <interleaved, rotary_dim = 32, query_only> cache(%{{.*}}, %{{.*}} : tensor<128x16xf32>, tensor<128x16xf32>) outs({{[^)]*}}) :
  %attn_c2_11 = arith.constant 2 : index
  %attn_d0_2_11 = tensor.dim %q, %attn_c2_11 : tensor<1x8x?x64xf32>
  %attn_init11 = tensor.empty(%attn_d0_2_11) : tensor<1x8x?x64xf32>
  %1 = pe.attention %q, %k, %k rope <interleaved, rotary_dim = 32, query_only> cache(%c, %c : tensor<128x16xf32>, tensor<128x16xf32>) outs(%attn_init11 : tensor<1x8x?x64xf32>) : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} alibi <key, max_bias = 4.000000e+00, query_offset = 5> alibi_offset(%{{.*}} : index) outs({{[^)]*}}) {scale = 1.000000e+00 : f64, softcap = 3.000000e+01 : f64, softcap_order = #pe<softcap_order after_bias>}
  %attn_c2_12 = arith.constant 2 : index
  %attn_d0_2_12 = tensor.dim %q, %attn_c2_12 : tensor<1x8x?x64xf32>
  %attn_init12 = tensor.empty(%attn_d0_2_12) : tensor<1x8x?x64xf32>
  %2 = pe.attention %q, %k, %k alibi <key, max_bias = 4.0, query_offset = 5> alibi_offset(%o : index) outs(%attn_init12 : tensor<1x8x?x64xf32>) {scale = 1.0 : f64, softcap = 30.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<32xf64>) alibi <signed> mask(%{{.*}} : tensor<1x1x?x?xi1>) outs({{[^)]*}}) {causal}
  %attn_c2_13 = arith.constant 2 : index
  %attn_d0_2_13 = tensor.dim %q, %attn_c2_13 : tensor<1x8x?x64xf32>
  %attn_init13 = tensor.empty(%attn_d0_2_13) : tensor<1x8x?x64xf32>
  %3 = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<32xf64>) alibi <signed> mask(%mask : tensor<1x1x?x?xi1>) outs(%attn_init13 : tensor<1x8x?x64xf32>) {causal} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  // The encodings as attributes in the generic form.
  // CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, rotary_dim = 64> inv_freq
  // The destinations are the last operand segment (outs, variadic: the
  // result's, then lse's).
  %g_c2 = arith.constant 2 : index
  %g_d2 = tensor.dim %q, %g_c2 : tensor<1x8x?x64xf32>
  %g_init = tensor.empty(%g_d2) : tensor<1x8x?x64xf32>
  %4 = "pe.attention"(%q, %k, %k, %f, %g_init) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1>, rope = #pe.rope<half, rotary_dim = 64>}> : (tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<32xf64>, tensor<1x8x?x64xf32>) -> tensor<1x8x?x64xf32>
  return
}
