// W3: causal attention with the ALiBi bias (paper slopes 2^-1 .. 2^-8 for
// 8 heads, symmetric distance -|i - j| as llama.cpp). H = 8, T = 2048,
// D = 128. FLOPs counted as 2*H*T^2*D.

func.func @w3_alibi_attention(%q: tensor<1x8x2048x128xf32>,
                              %k: tensor<1x8x2048x128xf32>,
                              %v: tensor<1x8x2048x128xf32>)
    -> tensor<1x8x2048x128xf32> {
  %b = pe.alibi_bias symmetric : tensor<8x2048x2048xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x2048x128xf32>
  %o = pe.attention %q, %k, %v bias(%b : tensor<8x2048x2048xf32>) outs(%attn_init0 : tensor<1x8x2048x128xf32>) {causal}
         : tensor<1x8x2048x128xf32>, tensor<1x8x2048x128xf32>,
           tensor<1x8x2048x128xf32> -> tensor<1x8x2048x128xf32>
  return %o : tensor<1x8x2048x128xf32>
}
