// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline and the result is compared against the float64 reference
// test/Integration/lib/pe_ref.py on the same inputs (written, with the expected
// values, by test/Integration/lib/cases.py).
//
// Output and lse of three causal attentions (T = 130, GQA 4/2, D = 32,
// scores with a standard deviation of about 4): ALiBi (symmetric), an
// explicit f32 bias, and ALiBi with a softcap of 4. The generated CPU kernel
// keeps the first two in base 2 (log2 e folded into the query scale, the
// slopes and the bias, 2^x instead of exp, lse = m ln 2 + log l) and the
// softcapped one in natural units (tanh takes the natural score): a wrong
// unit anywhere moves outputs or lse by far more than the tolerance.
// Tolerance: rtol 1e-5, atol 1e-5: f32 softmax math; the lse values (up to
// about 30) carry the rounding of scores of that size (2^-24 relative) and
// of log l.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_lse_alibi_softcap %t
// RUN: pe-run %s -e attn_lse_alibi_softcap --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --output=%t/out1.npy --output=%t/lse1.npy --output=%t/out2.npy --output=%t/lse2.npy --output=%t/out3.npy --output=%t/lse3.npy
// RUN: %npycmp %t/out1.npy %t/o1.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/lse1.npy %t/s1.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/out2.npy %t/o2.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/lse2.npy %t/s2.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/out3.npy %t/o3.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %npycmp %t/lse3.npy %t/s3.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_lse_alibi_softcap(%q: tensor<1x4x130x32xf32>, %k: tensor<1x2x130x32xf32>, %v: tensor<1x2x130x32xf32>, %b: tensor<1x4x130x130xf32>)
    -> (tensor<1x4x130x32xf32>, tensor<1x4x130xf32>, tensor<1x4x130x32xf32>, tensor<1x4x130xf32>, tensor<1x4x130x32xf32>, tensor<1x4x130xf32>) {
  %i1 = tensor.empty() : tensor<1x4x130x32xf32>
  %l1 = tensor.empty() : tensor<1x4x130xf32>
  %o1, %s1 = pe.attention %q, %k, %v alibi <symmetric> outs(%i1, %l1 : tensor<1x4x130x32xf32>, tensor<1x4x130xf32>) {causal} : tensor<1x4x130x32xf32>, tensor<1x2x130x32xf32>, tensor<1x2x130x32xf32> -> tensor<1x4x130x32xf32>, tensor<1x4x130xf32>
  %i2 = tensor.empty() : tensor<1x4x130x32xf32>
  %l2 = tensor.empty() : tensor<1x4x130xf32>
  %o2, %s2 = pe.attention %q, %k, %v bias(%b : tensor<1x4x130x130xf32>) outs(%i2, %l2 : tensor<1x4x130x32xf32>, tensor<1x4x130xf32>) {causal} : tensor<1x4x130x32xf32>, tensor<1x2x130x32xf32>, tensor<1x2x130x32xf32> -> tensor<1x4x130x32xf32>, tensor<1x4x130xf32>
  %i3 = tensor.empty() : tensor<1x4x130x32xf32>
  %l3 = tensor.empty() : tensor<1x4x130xf32>
  %o3, %s3 = pe.attention %q, %k, %v alibi <symmetric> outs(%i3, %l3 : tensor<1x4x130x32xf32>, tensor<1x4x130xf32>) {causal, softcap = 4.0 : f64} : tensor<1x4x130x32xf32>, tensor<1x2x130x32xf32>, tensor<1x2x130x32xf32> -> tensor<1x4x130x32xf32>, tensor<1x4x130xf32>
  return %o1, %s1, %o2, %s2, %o3, %s3 : tensor<1x4x130x32xf32>, tensor<1x4x130xf32>, tensor<1x4x130x32xf32>, tensor<1x4x130xf32>, tensor<1x4x130x32xf32>, tensor<1x4x130xf32>
}
