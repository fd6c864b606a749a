// RUN: pe-opt %s --canonicalize | FileCheck %s
// RUN: pe-opt %s --canonicalize | %python %pe_ref_lib/check_folds.py %s | FileCheck %s --check-prefix=REF

// Every frequency op with constant inputs folds to one inv_freq constant and
// one attention_scaling constant. The values are checked against the float64
// reference of the formula sheet (test/Integration/lib/pe_ref.py, written from
// PE-FORMULAS.md and not from the compiler) by check_folds.py, within one
// rounding to the result element type.

// REF: check_folds: 20 passed, 0 failed

// CHECK-LABEL: func @default_llama2
// CHECK-NOT: pe.
// CHECK: arith.constant dense<{{.*}}> : tensor<64xf32>
// VALUES: @default_llama2 = ref.default_freqs(10000.0, 128)
func.func @default_llama2() -> (tensor<64xf32>, f32) {
  %f, %m = pe.rope_frequencies : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @default_f64 = ref.default_freqs(500000.0, 128)
func.func @default_f64() -> (tensor<64xf64>, f32) {
  %f, %m = pe.rope_frequencies {base = 500000.0 : f64} : tensor<64xf64>
  return %f, %m : tensor<64xf64>, f32
}

// VALUES: @default_partial = ref.default_freqs(10000.0, 32)
func.func @default_partial() -> (tensor<16xf32>, f32) {
  %f, %m = pe.rope_frequencies : tensor<16xf32>
  return %f, %m : tensor<16xf32>, f32
}

// VALUES: @linear = ref.linear(10000.0, 128, 4.0)
func.func @linear() -> (tensor<64xf32>, f32) {
  %f, %m = pe.linear_scale {factor = 4.0 : f64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @ntk = ref.ntk(10000.0, 128, 2.0)
func.func @ntk() -> (tensor<64xf32>, f32) {
  %f, %m = pe.ntk_scale {factor = 2.0 : f64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// Below max_position_embeddings dynamic NTK is the default table.
// VALUES: @dynamic_ntk_short = ref.dynamic_ntk(10000.0, 128, 2.0, 4096, 1000)
func.func @dynamic_ntk_short() -> (tensor<64xf32>, f32) {
  %n = arith.constant 1000 : index
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 4096 : i64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @dynamic_ntk_long = ref.dynamic_ntk(10000.0, 128, 2.0, 4096, 10000)
func.func @dynamic_ntk_long() -> (tensor<64xf32>, f32) {
  %n = arith.constant 10000 : i64
  %f, %m = pe.dynamic_ntk_scale %n : i64 {factor = 2.0 : f64, max_position_embeddings = 4096 : i64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @dynamic_ntk_i32 = ref.dynamic_ntk(10000.0, 64, 4.0, 2048, 8192)
func.func @dynamic_ntk_i32() -> (tensor<32xf32>, f32) {
  %n = arith.constant 8192 : i32
  %f, %m = pe.dynamic_ntk_scale %n : i32 {factor = 4.0 : f64, max_position_embeddings = 2048 : i64} : tensor<32xf32>
  return %f, %m : tensor<32xf32>, f32
}

// VALUES: @yarn_default = ref.yarn(10000.0, 128, 4.0, 4096)
func.func @yarn_default() -> (tensor<64xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @yarn_qwen = ref.yarn(1000000.0, 128, 4.0, 32768)
func.func @yarn_qwen() -> (tensor<64xf32>, f32) {
  %f, %m = pe.yarn_scale {base = 1000000.0 : f64, factor = 4.0 : f64, original_max_position_embeddings = 32768 : i64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// DeepSeek-V2 style: mscale == mscale_all_dim gives attention_scaling 1.
// VALUES: @yarn_deepseek = ref.yarn(10000.0, 64, 40.0, 4096, mscale=0.707, mscale_all_dim=0.707)
func.func @yarn_deepseek() -> (tensor<32xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 40.0 : f64, original_max_position_embeddings = 4096 : i64, mscale = 0.707 : f64, mscale_all_dim = 0.707 : f64} : tensor<32xf32>
  return %f, %m : tensor<32xf32>, f32
}

// mscale alone (mscale_all_dim absent) falls back to get_mscale(factor).
// VALUES: @yarn_mscale_only = ref.yarn(10000.0, 64, 8.0, 2048, mscale=1.0)
func.func @yarn_mscale_only() -> (tensor<32xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 8.0 : f64, original_max_position_embeddings = 2048 : i64, mscale = 1.0 : f64} : tensor<32xf32>
  return %f, %m : tensor<32xf32>, f32
}

// VALUES: @yarn_no_truncate = ref.yarn(10000.0, 128, 4.0, 4096, beta_fast=16, beta_slow=2, truncate=False)
func.func @yarn_no_truncate() -> (tensor<64xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, beta_fast = 16.0 : f64, beta_slow = 2.0 : f64, truncate = false} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// VALUES: @yarn_attention_factor = ref.yarn(10000.0, 128, 4.0, 4096, attention_factor=1.25)
func.func @yarn_attention_factor() -> (tensor<64xf64>, f32) {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64, attention_factor = 1.25 : f64} : tensor<64xf64>
  return %f, %m : tensor<64xf64>, f32
}

// VALUES: @llama31 = ref.llama3(500000.0, 128, 8.0, 1.0, 4.0, 8192)
func.func @llama31() -> (tensor<64xf32>, f32) {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  return %f, %m : tensor<64xf32>, f32
}

// Llama 3.2-style factor 32.
// VALUES: @llama32 = ref.llama3(500000.0, 64, 32.0, 1.0, 4.0, 8192)
func.func @llama32() -> (tensor<32xf32>, f32) {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 32.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  return %f, %m : tensor<32xf32>, f32
}

// VALUES: @longrope_short = ref.longrope(10000.0, 8, [1.0, 1.5, 2.0, 3.0], [4.0, 8.0, 16.0, 32.0], 4096, 131072, seq_len=4096)
func.func @longrope_short() -> (tensor<4xf32>, f32) {
  %n = arith.constant 4096 : index
  %f, %m = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.5, 2.0, 3.0>, long_factor = array<f64: 4.0, 8.0, 16.0, 32.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}

// VALUES: @longrope_long = ref.longrope(10000.0, 8, [1.0, 1.5, 2.0, 3.0], [4.0, 8.0, 16.0, 32.0], 4096, 131072, seq_len=4097)
func.func @longrope_long() -> (tensor<4xf32>, f32) {
  %n = arith.constant 4097 : index
  %f, %m = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.5, 2.0, 3.0>, long_factor = array<f64: 4.0, 8.0, 16.0, 32.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}

// Without a sequence length the short factors apply.
// VALUES: @longrope_no_len = ref.longrope(10000.0, 8, [1.0, 1.5, 2.0, 3.0], [4.0, 8.0, 16.0, 32.0], 4096, 131072)
func.func @longrope_no_len() -> (tensor<4xf32>, f32) {
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0, 1.5, 2.0, 3.0>, long_factor = array<f64: 4.0, 8.0, 16.0, 32.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}

// VALUES: @longrope_explicit = ref.longrope(10000.0, 8, [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], 4096, 131072, seq_len=9000, factor=16.0, attention_factor=1.1)
func.func @longrope_explicit() -> (tensor<4xf32>, f32) {
  %n = arith.constant 9000 : index
  %f, %m = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.0, 1.0, 1.0>, long_factor = array<f64: 2.0, 2.0, 2.0, 2.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64, factor = 16.0 : f64, attention_factor = 1.1 : f64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}
