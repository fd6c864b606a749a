// W1: RoPE apply, split-half layout (GPT-NeoX / Hugging Face Llama
// rotate_half), default frequencies base^(-2i/128) with base 10000, on Q and
// K of 32 heads x 4096 tokens x 128 channels at positions 0..4095.
// Memory-bound: 128 MiB read, 128 MiB written.

func.func @w1_rope(%q: tensor<1x32x4096x128xf32>, %k: tensor<1x32x4096x128xf32>)
    -> (tensor<1x32x4096x128xf32>, tensor<1x32x4096x128xf32>) {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xf32>
  return %qr, %kr : tensor<1x32x4096x128xf32>, tensor<1x32x4096x128xf32>
}
