// W5: sinusoidal absolute position encoding, interleaved layout (Vaswani et
// al.), added to x of 8192 tokens x 4096 channels at positions 0..8191.
// Memory-bound: 128 MiB read, 128 MiB written.

func.func @w5_sinusoidal(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %o = pe.add_sinusoidal interleaved %x : tensor<8192x4096xf32>
  return %o : tensor<8192x4096xf32>
}
