// RUN: pe-opt %s -split-input-file -verify-diagnostics

// Issue 11 item 3: verifier errors that close holes found by hostile inputs
// and by pe-fuzz (test/Fuzz/crashes/): zero head counts and head dimensions,
// sizes whose compile-time work would be unbounded, and range checks that
// overflowed int64.

//===----------------------------------------------------------------------===//
// pe.attention: H >= 1, Hkv >= 1, D >= 1
//===----------------------------------------------------------------------===//

// Formerly divided by zero in convert-pe-to-vector (SIGFPE).
func.func @zero_query_heads(%q: tensor<1x0x16x16xf32>, %k: tensor<1x1x16x16xf32>) {
  %attn_init0 = tensor.empty() : tensor<1x0x16x16xf32>
  // expected-error@+1 {{expects query heads H >= 1, got 0}}
  %0 = pe.attention %q, %k, %k outs(%attn_init0 : tensor<1x0x16x16xf32>) {causal} : tensor<1x0x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x0x16x16xf32>
  return
}

// -----

// Decode (Tq = 1): formerly SIGFPE in the decode kernel and `floordiv 0` in
// convert-pe-to-linalg.
func.func @zero_query_heads_decode(%q: tensor<1x0x1x16xf32>, %k: tensor<1x1x16x16xf32>) {
  %attn_init1 = tensor.empty() : tensor<1x0x1x16xf32>
  // expected-error@+1 {{expects query heads H >= 1, got 0}}
  %0 = pe.attention %q, %k, %k outs(%attn_init1 : tensor<1x0x1x16xf32>) : tensor<1x0x1x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x0x1x16xf32>
  return
}

// -----

// Hkv = 0 with a dynamic H was not caught by the divisibility check.
func.func @zero_kv_heads(%q: tensor<1x?x16x16xf32>, %k: tensor<1x0x16x16xf32>) {
  %attn_c1_2 = arith.constant 1 : index
  %attn_d0_1_2 = tensor.dim %q, %attn_c1_2 : tensor<1x?x16x16xf32>
  %attn_init2 = tensor.empty(%attn_d0_1_2) : tensor<1x?x16x16xf32>
  // expected-error@+1 {{expects key/value heads Hkv >= 1, got 0}}
  %0 = pe.attention %q, %k, %k outs(%attn_init2 : tensor<1x?x16x16xf32>) : tensor<1x?x16x16xf32>, tensor<1x0x16x16xf32>, tensor<1x0x16x16xf32> -> tensor<1x?x16x16xf32>
  return
}

// -----

func.func @zero_head_dim(%q: tensor<1x2x16x0xf32>, %v: tensor<1x2x16x16xf32>) {
  %attn_init3 = tensor.empty() : tensor<1x2x16x16xf32>
  // expected-error@+1 {{expects head dimension D >= 1, got 0}}
  %0 = pe.attention %q, %q, %v outs(%attn_init3 : tensor<1x2x16x16xf32>) {scale = 1.0 : f64} : tensor<1x2x16x0xf32>, tensor<1x2x16x0xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  return
}

// -----

// A dynamic query head dimension does not hide a key head dimension of 0.
func.func @zero_key_head_dim(%q: tensor<1x2x16x?xf32>, %k: tensor<1x2x16x0xf32>, %v: tensor<1x2x16x16xf32>) {
  %attn_init4 = tensor.empty() : tensor<1x2x16x16xf32>
  // expected-error@+1 {{expects key head dimension >= 1, got 0}}
  %0 = pe.attention %q, %k, %v outs(%attn_init4 : tensor<1x2x16x16xf32>) {scale = 1.0 : f64} : tensor<1x2x16x?xf32>, tensor<1x2x16x0xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
  return
}

// -----

// ALiBi slopes are compile-time constants: the head count is bounded.
func.func @attention_alibi_too_many_heads(%q: tensor<1x65537x1x16xf32>) {
  %attn_init5 = tensor.empty() : tensor<1x65537x1x16xf32>
  // expected-error@+1 {{expects at most 65536 heads with ALiBi and no alibi_slopes operand (the slopes are computed at compile time), got 65537}}
  %0 = pe.attention %q, %q, %q alibi <symmetric> outs(%attn_init5 : tensor<1x65537x1x16xf32>) : tensor<1x65537x1x16xf32>, tensor<1x65537x1x16xf32>, tensor<1x65537x1x16xf32> -> tensor<1x65537x1x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// Bounded compile-time work
//===----------------------------------------------------------------------===//

// -----

// Formerly: UBSan signed-integer-overflow in verifyFrequencyCommon (2 * N).
func.func @frequency_table_int64_max() {
  // expected-error@+1 {{expects an inv_freq result of at most 65536 entries (the table is computed at compile time), got 9223372036854775807}}
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 33 : i64} : tensor<9223372036854775807xf32>
  return
}

// -----

// Formerly: out of memory in the folder (the whole table at compile time).
func.func @frequency_table_huge() {
  // expected-error@+1 {{expects an inv_freq result of at most 65536 entries (the table is computed at compile time), got 4294967296}}
  %f, %m = pe.llama3_scale {factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 1.0 : f64, original_max_position_embeddings = 33 : i64} : tensor<4294967296xf32>
  return
}

// -----

func.func @frequency_table_just_too_long() {
  // expected-error@+1 {{expects an inv_freq result of at most 65536 entries}}
  %f, %m = pe.rope_frequencies : tensor<65537xf64>
  return
}

// -----

// The limit itself verifies.
func.func @frequency_table_limit() -> tensor<65536xf64> {
  %f, %m = pe.rope_frequencies : tensor<65536xf64>
  return %f : tensor<65536xf64>
}

// -----

// Formerly: out of memory in the lowering (every slope materialised).
func.func @alibi_bias_huge_heads() {
  // expected-error@+1 {{expects at most 65536 heads without a slopes operand (the slopes are computed at compile time), got 4294967295}}
  %0 = pe.alibi_bias signed {static_offset = 4 : i64} : tensor<4294967295x4x4xf32>
  return
}

// -----

// With explicit slopes nothing is computed at compile time.
func.func @alibi_bias_huge_heads_slopes(%s: tensor<?xf32>) -> tensor<4294967295x4x4xf32> {
  %0 = pe.alibi_bias signed slopes(%s : tensor<?xf32>) : tensor<4294967295x4x4xf32>
  return %0 : tensor<4294967295x4x4xf32>
}

// -----

func.func @sinusoidal_huge_channels(%x: tensor<1x4x2147483648xf32>) {
  // expected-error@+1 {{expects at most 1048576 channels (the channel frequencies are computed at compile time), got 2147483648}}
  %0 = pe.add_sinusoidal interleaved %x : tensor<1x4x2147483648xf32>
  return
}

//===----------------------------------------------------------------------===//
// Overflow-safe range checks
//===----------------------------------------------------------------------===//

// -----

// static_offset + T overflowed int64, so an out-of-range read verified.
func.func @learned_offset_past_int64_max(%x: tensor<1x16x8xf32>, %t: tensor<16x8xf32>) {
  // expected-error@+1 {{reads positions from 9223372036854775800 past INT64_MAX but the table has 16 rows}}
  %0 = pe.add_learned %x, %t {static_offset = 9223372036854775800 : i64} : tensor<1x16x8xf32>, tensor<16x8xf32>
  return
}

// -----

func.func @rope_cache_offset_past_int64_max(%x: tensor<1x2x16x16xf32>, %c: tensor<16x8xf32>) {
  // expected-error@+1 {{reads positions from 9223372036854775807 past INT64_MAX but the table has 16 rows}}
  %0 = pe.rope half %x cache(%c, %c : tensor<16x8xf32>, tensor<16x8xf32>) {static_offset = 9223372036854775807 : i64} : tensor<1x2x16x16xf32>
  return
}

// -----

// C = 0 crashed the CPU sinusoidal kernel builder (convert-pe-to-vector).
func.func @sinusoidal_zero_channels(%x: tensor<1x4x0xf32>) {
  // expected-error@+1 {{expects at least 1 channel}}
  %0 = pe.add_sinusoidal concat %x : tensor<1x4x0xf32>
  return
}

// -----

// pe.attention's rope encoding reads the cache at the same static positions
// as the pe.rope ops it decomposes into, so it has the same range check.
func.func @attention_rope_cache_query_range(%q: tensor<1x2x4x16xf32>, %c: tensor<16x8xf32>) {
  %attn_init6 = tensor.empty() : tensor<1x2x4x16xf32>
  // expected-error@+1 {{reads query rope positions [100, 104) but the cache has 16 rows}}
  %0 = pe.attention %q, %q, %q rope <half, query_offset = 100> cache(%c, %c : tensor<16x8xf32>, tensor<16x8xf32>) outs(%attn_init6 : tensor<1x2x4x16xf32>) : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
  return
}

// -----

func.func @attention_rope_cache_key_overflow(%q: tensor<1x2x4x16xf32>, %c: tensor<16x8xf32>) {
  %attn_init7 = tensor.empty() : tensor<1x2x4x16xf32>
  // expected-error@+1 {{reads key rope positions from 9223372036854775807 past INT64_MAX but the cache has 16 rows}}
  %0 = pe.attention %q, %q, %q rope <half, key_offset = 9223372036854775807> cache(%c, %c : tensor<16x8xf32>, tensor<16x8xf32>) outs(%attn_init7 : tensor<1x2x4x16xf32>) : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
  return
}

// -----

// A dynamic offset is clamped at run time: no error.
func.func @attention_rope_cache_dynamic_offset(%q: tensor<1x2x4x16xf32>, %c: tensor<16x8xf32>, %o: index) {
  %attn_init8 = tensor.empty() : tensor<1x2x4x16xf32>
  %0 = pe.attention %q, %q, %q rope <half, query_offset = 100> cache(%c, %c : tensor<16x8xf32>, tensor<16x8xf32>) query_offset(%o : index) outs(%attn_init8 : tensor<1x2x4x16xf32>) : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
  return
}
