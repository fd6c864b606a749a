// issue 11 (found by hand while probing zero sizes): pe.add_sinusoidal with
// C = 0 verified and then crashed convert-pe-to-vector (SEGV building a
// vector.load in KernelBuilder::buildSinusoidal) through pe-cpu-pipeline.
// Fixed: the verifier requires at least 1 channel.
func.func @a(%x: tensor<1x4x0xf32>) -> tensor<1x4x0xf32> {
  %0 = pe.add_sinusoidal concat %x : tensor<1x4x0xf32>
  return %0 : tensor<1x4x0xf32>
}
