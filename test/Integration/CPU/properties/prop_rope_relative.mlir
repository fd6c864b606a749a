// Property: <RoPE(q, m), RoPE(k, n)> depends only on n - m. q and k [2, 8, 32]
// (unit-norm tokens) are rotated at offsets (m, n) = (0, 5), (1000, 1005) and
// (70000, 70005); for every token t the dot products of q[t] at m + t and
// k[t] at n + t must agree across the three pairs. As a control, the pair
// (0, 9) must give clearly different dot products (else a no-op rope would
// pass). One run per layout. Compares pe-run outputs among themselves
// (lib/props.py relative). Tolerance 2e-6 absolute: unit-norm f32 vectors,
// each rotated value within ~1e-7, D = 32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py prop_relative %t
// RUN: pe-run %s -e rope_interleaved --input=%t/q.npy --input=%t/f.npy --input=%t/m0.npy --output=%t/iq0.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/k.npy --input=%t/f.npy --input=%t/n0.npy --output=%t/ik0.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/q.npy --input=%t/f.npy --input=%t/m1.npy --output=%t/iq1.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/k.npy --input=%t/f.npy --input=%t/n1.npy --output=%t/ik1.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/q.npy --input=%t/f.npy --input=%t/m2.npy --output=%t/iq2.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/k.npy --input=%t/f.npy --input=%t/n2.npy --output=%t/ik2.npy
// RUN: pe-run %s -e rope_interleaved --input=%t/k.npy --input=%t/f.npy --input=%t/n3.npy --output=%t/ik3.npy
// RUN: %python %pe_ref_lib/props.py relative %t iq0.npy ik0.npy iq1.npy ik1.npy iq2.npy ik2.npy --other iq0.npy ik3.npy | FileCheck %s
// RUN: pe-run %s -e rope_half --input=%t/q.npy --input=%t/f.npy --input=%t/m0.npy --output=%t/hq0.npy
// RUN: pe-run %s -e rope_half --input=%t/k.npy --input=%t/f.npy --input=%t/n0.npy --output=%t/hk0.npy
// RUN: pe-run %s -e rope_half --input=%t/q.npy --input=%t/f.npy --input=%t/m1.npy --output=%t/hq1.npy
// RUN: pe-run %s -e rope_half --input=%t/k.npy --input=%t/f.npy --input=%t/n1.npy --output=%t/hk1.npy
// RUN: pe-run %s -e rope_half --input=%t/q.npy --input=%t/f.npy --input=%t/m2.npy --output=%t/hq2.npy
// RUN: pe-run %s -e rope_half --input=%t/k.npy --input=%t/f.npy --input=%t/n2.npy --output=%t/hk2.npy
// RUN: pe-run %s -e rope_half --input=%t/k.npy --input=%t/f.npy --input=%t/n3.npy --output=%t/hk3.npy
// RUN: %python %pe_ref_lib/props.py relative %t hq0.npy hk0.npy hq1.npy hk1.npy hq2.npy hk2.npy --other hq0.npy hk3.npy | FileCheck %s
// CHECK: props: PASS relative

func.func @rope_interleaved(%x: tensor<2x8x32xf32>, %f: tensor<16xf32>, %o: index) -> tensor<2x8x32xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<16xf32>) offset(%o : index) : tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}

func.func @rope_half(%x: tensor<2x8x32xf32>, %f: tensor<16xf32>, %o: index) -> tensor<2x8x32xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<16xf32>) offset(%o : index) : tensor<2x8x32xf32>
  return %0 : tensor<2x8x32xf32>
}
