// W2: Llama-3.1-style causal attention: llama3-scaled RoPE (base 500000,
// factor 8, low 1, high 4, original context 8192; split-half) on Q and K,
// then causal pe.attention. H = 8, T = 2048, D = 80 (W2 with a head
// dimension that is not a power of two; see bench/NOTES.md).
// FLOPs counted as 2*H*T^2*D (QK^T and PV over the causal half).

func.func @w2_llama3_attention_d80(%q: tensor<1x8x2048x80xf32>,
                               %k: tensor<1x8x2048x80xf32>,
                               %v: tensor<1x8x2048x80xf32>)
    -> tensor<1x8x2048x80xf32> {
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64,
      low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64,
      original_max_position_embeddings = 8192 : i64} : tensor<40xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<40xf32>) attention_scaling(%m)
          : tensor<1x8x2048x80xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<40xf32>) attention_scaling(%m)
          : tensor<1x8x2048x80xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x2048x80xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x2048x80xf32>) {causal}
         : tensor<1x8x2048x80xf32>, tensor<1x8x2048x80xf32>,
           tensor<1x8x2048x80xf32> -> tensor<1x8x2048x80xf32>
  return %o : tensor<1x8x2048x80xf32>
}
