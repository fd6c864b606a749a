// issue 11: a static_offset near 2^63 overflowed the verifier's range
// arithmetic (static_offset + T).
func.func @f(%x: tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32> {
  %f, %m = pe.rope_frequencies : tensor<8xf32>
  %r = pe.rope half %x inv_freq(%f : tensor<8xf32>) {static_offset = 9223372036854775800 : i64} : tensor<1x2x16x16xf32>
  return %r : tensor<1x2x16x16xf32>
}
