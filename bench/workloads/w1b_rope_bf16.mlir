// W1b: W1 in bf16 (query and key stored and returned in bf16, rotated in
// f32). RoPE apply, split-half layout (GPT-NeoX / Hugging Face Llama
// rotate_half), default frequencies base^(-2i/128) with base 10000, on Q and
// K of 32 heads x 4096 tokens x 128 channels at positions 0..4095.
// Memory-bound: 64 MiB read, 64 MiB written.

func.func @w1b_rope_bf16(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x32x4096x128xbf16>)
    -> (tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>) {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xbf16>
  %kr = pe.rope half %k inv_freq(%f : tensor<64xf32>) : tensor<1x32x4096x128xbf16>
  return %qr, %kr : tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>
}
