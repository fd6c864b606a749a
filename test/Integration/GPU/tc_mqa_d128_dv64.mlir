// Execution test of the tensor-core attention kernel on the Vulkan target:
// pe-gpu-pipeline{target=spirv tensor-cores=emulate} builds the same
// fragment kernel as for NVVM (4 warps of 16 query rows, m16n8k16 fragments,
// online softmax across the 4 lanes of a fragment row) with each mma.sync and
// each shuffle emulated through workgroup memory in the PTX fragment layouts,
// and lavapipe runs it. The result is compared with the float64 numpy
// reference (test/Integration/lib/cases.py, pe_ref.py).
//
// MQA 4/1 without a mask, D = 128 and Dv = 64, scale 0.1, Tq = 20, Tk = 45.
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_mqa_d128_dv64 %t
// RUN: pe-run %s -e tc_mqa_d128_dv64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_mqa_d128_dv64(%q: tensor<1x4x20x128xf16>, %k: tensor<1x1x45x128xf16>, %v: tensor<1x1x45x64xf16>) -> tensor<1x4x20x64xf16> {
  %attn_init0 = tensor.empty() : tensor<1x4x20x64xf16>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x20x64xf16>) {scale = 0.1 : f64} : tensor<1x4x20x128xf16>, tensor<1x1x45x128xf16>, tensor<1x1x45x64xf16> -> tensor<1x4x20x64xf16>
  return %0 : tensor<1x4x20x64xf16>
}
