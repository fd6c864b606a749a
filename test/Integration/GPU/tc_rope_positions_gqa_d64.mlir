// Execution test of the tensor-core attention kernel on the Vulkan target
// (pe-gpu-pipeline{target=spirv tensor-cores=emulate}, lavapipe) with RoPE
// positions tensors: [B, T] i64 query_positions and key_positions (batch 0
// at 3 t, batch 1 at 500 + t; the queries are the last 40 keys), each query
// row and key rotated from its own batch's row of the tables. The result is
// compared with the float64 numpy reference (test/Integration/lib/cases.py,
// pe_ref.py).
//
// Half layout, bottom-right causal (by index), GQA 4/2, D = 64, Tq = 40,
// Tk = 70 in 3 key tiles of 32.
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_rope_positions_gqa_d64 %t
// RUN: pe-run %s -e tc_rope_positions_gqa_d64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --input=%t/pq.npy --input=%t/pk.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_rope_positions_gqa_d64(%q: tensor<2x4x40x64xf16>, %k: tensor<2x2x70x64xf16>, %v: tensor<2x2x70x64xf16>, %f: tensor<32xf64>, %pq: tensor<2x40xi64>, %pk: tensor<2x70xi64>) -> tensor<2x4x40x64xf16> {
  %init = tensor.empty() : tensor<2x4x40x64xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<2x40xi64>) key_positions(%pk : tensor<2x70xi64>) outs(%init : tensor<2x4x40x64xf16>) {causal} : tensor<2x4x40x64xf16>, tensor<2x2x70x64xf16>, tensor<2x2x70x64xf16> -> tensor<2x4x40x64xf16>
  return %0 : tensor<2x4x40x64xf16>
}
