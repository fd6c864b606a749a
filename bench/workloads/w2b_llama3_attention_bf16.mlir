// W2b: W2 in bf16: Llama-3.1-style causal attention with the llama3-scaled
// RoPE on Q and K, query, key and value in bf16 (the rotated Q and K are
// bf16, as pe.rope of a bf16 tensor gives them), the result in f32.
// H = 8, T = 2048, D = 128. FLOPs counted as 2*H*T^2*D, as W2.

func.func @w2b_llama3_attention_bf16(%q: tensor<1x8x2048x128xbf16>,
                                     %k: tensor<1x8x2048x128xbf16>,
                                     %v: tensor<1x8x2048x128xbf16>)
    -> tensor<1x8x2048x128xf32> {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) attention_scaling(%m)
          : tensor<1x8x2048x128xbf16>
  %kr = pe.rope half %k inv_freq(%f : tensor<64xf32>) attention_scaling(%m)
          : tensor<1x8x2048x128xbf16>
  %attn_init0 = tensor.empty() : tensor<1x8x2048x128xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x2048x128xf32>) {causal}
         : tensor<1x8x2048x128xbf16>, tensor<1x8x2048x128xbf16>,
           tensor<1x8x2048x128xbf16> -> tensor<1x8x2048x128xf32>
  return %o : tensor<1x8x2048x128xf32>
}
