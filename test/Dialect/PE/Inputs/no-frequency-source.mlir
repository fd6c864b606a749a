// Used by parse-errors.mlir: a verifier error from the command line.
func.func @f(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // No inv_freq and no cache.
  %0 = pe.rope half %x : tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
