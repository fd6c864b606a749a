// W4g: W4 with grouped-query attention: 32 query heads over 8 KV heads
// (head h reads KV head h / 4). The K and V caches are 32 MiB in f32.
//
// The same decode step reading an f16 KV cache (keys and values stored in f16,
// the query and all arithmetic f32): half the bytes of the f32 cache.

func.func @w4gh_decode_gqa_f16(%q: tensor<1x32x1x128xf32>,
                          %k: tensor<1x8x4096x128xf16>,
                          %v: tensor<1x8x4096x128xf16>)
    -> tensor<1x32x1x128xf32> {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) attention_scaling(%m)
          {static_offset = 4095 : i64} : tensor<1x32x1x128xf32>
  %attn_init0 = tensor.empty() : tensor<1x32x1x128xf32>
  %o = pe.attention %qr, %k, %v outs(%attn_init0 : tensor<1x32x1x128xf32>) {causal}
         : tensor<1x32x1x128xf32>, tensor<1x8x4096x128xf16>,
           tensor<1x8x4096x128xf16> -> tensor<1x32x1x128xf32>
  return %o : tensor<1x32x1x128xf32>
}
