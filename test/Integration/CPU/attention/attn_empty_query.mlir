// Execution test of the pe dialect: pe-run JIT-runs the function through the
// reference pipeline (or the pipeline of `--param pe_pipeline`) and the result
// is compared against the float64 reference test/Integration/lib/pe_ref.py on
// the same inputs (written, with the expected values, by
// test/Integration/lib/cases.py).
//
// A statically empty query (Tq = 0, valid IR): every pipeline gives the empty
// result (the SPIR-V pipeline used to fail with "failed to legalize operation
// 'gpu.func'" on the zero-size kernel buffers; convert-pe-to-gpu now leaves
// such an op to the host).
// Tolerance: none needed (no element); npycmp checks the shape.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py attn_empty_query %t
// RUN: pe-run %s -e attn_empty_query --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy | FileCheck %s
// CHECK: npycmp: PASS max_abs=0 max_rel=0 n=0

func.func @attn_empty_query(%q: tensor<1x2x0x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x0x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x2x0x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x2x0x16xf32>) {causal} : tensor<1x2x0x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x0x16xf32>
  return %0 : tensor<1x2x0x16xf32>
}
