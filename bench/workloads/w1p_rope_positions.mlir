// W1p: W1 (RoPE apply, split-half layout, base 10000, Q and K of 32 heads x
// 4096 tokens x 128 channels) with the positions given as a [T] i32 tensor
// argument (Hugging Face position_ids, vLLM positions) instead of the
// offset form; run-benchmarks.sh passes positions 0..4095, so the result is
// W1's. Memory-bound: 128 MiB read, 128 MiB written (+ 16 KiB positions).

func.func @w1p_rope_positions(%q: tensor<1x32x4096x128xf32>, %k: tensor<1x32x4096x128xf32>,
                              %p: tensor<4096xi32>)
    -> (tensor<1x32x4096x128xf32>, tensor<1x32x4096x128xf32>) {
  %f, %one = pe.rope_frequencies {base = 10000.0 : f64} : tensor<64xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<64xf32>) positions(%p : tensor<4096xi32>) : tensor<1x32x4096x128xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<64xf32>) positions(%p : tensor<4096xi32>) : tensor<1x32x4096x128xf32>
  return %qr, %kr : tensor<1x32x4096x128xf32>, tensor<1x32x4096x128xf32>
}
