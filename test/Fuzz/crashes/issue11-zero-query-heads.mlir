// issue 11: H = 0 query heads (over 1 key/value head) verified and then
// divided by zero in convert-pe-to-vector (SIGFPE) through pe-cpu-pipeline.
func.func @f(%q: tensor<1x0x16x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x0x16x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x0x16x16xf32>
  %o = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x0x16x16xf32>) {causal} : tensor<1x0x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x0x16x16xf32>
  return %o : tensor<1x0x16x16xf32>
}
