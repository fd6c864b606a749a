// A Llama-3.1-style attention block: RoPE with the llama3 context-extension
// scaling on Q and K (split-half layout, base 500000), grouped-query attention
// (32 query heads -> here 8 query heads over 2 KV heads), causal mask.
//
// Shapes: Q [1, 8, 256, 64], K/V [1, 2, 256, 64].

func.func @llama_attention(%q: tensor<1x8x256x64xf32>,
                           %k: tensor<1x2x256x64xf32>,
                           %v: tensor<1x2x256x64xf32>)
    -> tensor<1x8x256x64xf32> {
  %inv_freq, %mscale = pe.llama3_scale {
      base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<32xf32>
  %qr = pe.rope half %q inv_freq(%inv_freq : tensor<32xf32>)
          attention_scaling(%mscale) : tensor<1x8x256x64xf32>
  %kr = pe.rope half %k inv_freq(%inv_freq : tensor<32xf32>)
          attention_scaling(%mscale) : tensor<1x2x256x64xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x256x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x256x64xf32>) {causal}
         : tensor<1x8x256x64xf32>, tensor<1x2x256x64xf32>,
           tensor<1x2x256x64xf32> -> tensor<1x8x256x64xf32>
  return %o : tensor<1x8x256x64xf32>
}
