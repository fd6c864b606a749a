// W4: one decode step: a single query at position 4095, rotated with the
// llama3-scaled RoPE (as W2), against a K/V cache of 4096 tokens that is
// already rotated. H = 32, D = 128. With Tq = 1 the bottom-right causal mask
// allows every key. Memory-bound: the K and V caches (128 MiB in f32) are read once.
//
// The same decode step reading a bf16 KV cache (keys and values stored in bf16,
// the query and all arithmetic f32): half the bytes of the f32 cache.

func.func @w4b_decode_bf16(%q: tensor<1x32x1x128xf32>,
                     %k: tensor<1x32x4096x128xbf16>,
                     %v: tensor<1x32x4096x128xbf16>)
    -> tensor<1x32x1x128xf32> {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) attention_scaling(%m)
          {static_offset = 4095 : i64} : tensor<1x32x1x128xf32>
  %attn_init0 = tensor.empty() : tensor<1x32x1x128xf32>
  %o = pe.attention %qr, %k, %v outs(%attn_init0 : tensor<1x32x1x128xf32>) {causal}
         : tensor<1x32x1x128xf32>, tensor<1x32x4096x128xbf16>,
           tensor<1x32x4096x128xbf16> -> tensor<1x32x1x128xf32>
  return %o : tensor<1x32x1x128xf32>
}
