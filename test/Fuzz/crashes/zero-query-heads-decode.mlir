// Fixed (issue 11): the pe.attention verifier requires H >= 1.
// issue 11 / pe-fuzz: H = 0 query heads in decode (Tq = 1): pe-cpu-pipeline divides
// by zero in convert-pe-to-vector (PEToVector.cpp:902; SIGFPE, UBSan
// division-by-zero). pe-reference-pipeline: invalid linalg.generic (floordiv 0).
// Reproduce: pe-opt FILE --pe-cpu-pipeline (found by hand while seeding the corpus)
func.func @f(%q: tensor<1x0x1x16xf32>, %k: tensor<1x1x16x16xf32>, %v: tensor<1x1x16x16xf32>) -> tensor<1x0x1x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x0x1x16xf32>
  %o = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x0x1x16xf32>) : tensor<1x0x1x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32> -> tensor<1x0x1x16xf32>
  return %o : tensor<1x0x1x16xf32>
}
