// Execution test of the tensor-core attention kernel on the Vulkan target in
// bf16: pe-gpu-pipeline{target=spirv tensor-cores=emulate} builds the NVVM
// fragment kernel with each mma.sync and shuffle emulated through workgroup
// memory, and pe-gpu-bf16-storage stores its bf16 buffers and K/V tiles as
// i16 (SPIR-V 1.3 has no bf16); lavapipe runs it. The result is compared
// with the float64 numpy reference (test/Integration/lib/cases.py).
//
// RoPE (half) on Q and K, bottom-right causal, GQA 4/2, D = 64, Tq = 70,
// Tk = 90 (partial blocks and tiles), f32 result.
// Tolerance: rtol 1e-2, atol 4e-3: the kernel rounds the softmax weights P to
// bf16 for P V (each within 2^-9 relative: the result within 2^-9 max|v| =
// 2e-3 of the f32 math); the rotated q and k are rounded to bf16 as in the
// reference, where an f32 rounding difference can flip one of them by a bf16
// ulp.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_bf16_rope_causal_gqa_d64 %t
// RUN: pe-run %s -e tc_bf16_rope_causal_gqa_d64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-2 --atol 4e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_bf16_rope_causal_gqa_d64(%q: tensor<1x4x70x64xbf16>, %k: tensor<1x2x90x64xbf16>, %v: tensor<1x2x90x64xbf16>, %f: tensor<32xf64>) -> tensor<1x4x70x64xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x70x64xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf64>) outs(%attn_init0 : tensor<1x4x70x64xf32>) {causal} : tensor<1x4x70x64xbf16>, tensor<1x2x90x64xbf16>, tensor<1x2x90x64xbf16> -> tensor<1x4x70x64xf32>
  return %0 : tensor<1x4x70x64xf32>
}
