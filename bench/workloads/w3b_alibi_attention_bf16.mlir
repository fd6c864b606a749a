// W3b: W3 in bf16: causal attention with the ALiBi bias (paper slopes 2^-1
// .. 2^-8 for 8 heads, symmetric distance -|i - j| as llama.cpp), query,
// key and value in bf16, the result in f32. H = 8, T = 2048, D = 128. FLOPs
// counted as 2*H*T^2*D, as W3.

func.func @w3b_alibi_attention_bf16(%q: tensor<1x8x2048x128xbf16>,
                                    %k: tensor<1x8x2048x128xbf16>,
                                    %v: tensor<1x8x2048x128xbf16>)
    -> tensor<1x8x2048x128xf32> {
  %b = pe.alibi_bias symmetric : tensor<8x2048x2048xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x2048x128xf32>
  %o = pe.attention %q, %k, %v bias(%b : tensor<8x2048x2048xf32>) outs(%attn_init0 : tensor<1x8x2048x128xf32>) {causal}
         : tensor<1x8x2048x128xbf16>, tensor<1x8x2048x128xbf16>,
           tensor<1x8x2048x128xbf16> -> tensor<1x8x2048x128xf32>
  return %o : tensor<1x8x2048x128xf32>
}
