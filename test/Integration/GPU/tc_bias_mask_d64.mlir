// Execution test of the tensor-core attention kernel on the Vulkan target
// with explicit bias and mask tensors: pe-gpu-pipeline{target=spirv
// tensor-cores=emulate} builds the NVVM fragment kernel with each mma.sync
// and shuffle emulated through workgroup memory; each accumulator element
// reads its bias and mask entry (f32 / i32 host copies, broadcast by index).
// The result is compared with the float64 numpy reference
// (test/Integration/lib/cases.py, pe_ref.py).
//
// f16, GQA 4/2, D = 64, Tq = 70, Tk = 90 (partial blocks and tiles); a
// [1, 1, Tq, Tk] f32 bias (random, -inf for the padding keys >= 80) after a
// softcap of 8, a [Tq, Tk] mask (random, key 0 always allowed), bottom-right
// causal.
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_bias_mask_d64 %t
// RUN: pe-run %s -e tc_bias_mask_d64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/bias.npy --input=%t/mask.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the tensor-core kernel (the per-warp emulation tiles):
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_bias_mask_d64(%q: tensor<1x4x70x64xf16>, %k: tensor<1x2x90x64xf16>, %v: tensor<1x2x90x64xf16>, %b: tensor<1x1x70x90xf32>, %m: tensor<70x90xi1>) -> tensor<1x4x70x64xf16> {
  %init = tensor.empty() : tensor<1x4x70x64xf16>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<1x1x70x90xf32>) mask(%m : tensor<70x90xi1>) outs(%init : tensor<1x4x70x64xf16>) {causal, softcap = 8.0 : f64} : tensor<1x4x70x64xf16>, tensor<1x2x90x64xf16>, tensor<1x2x90x64xf16> -> tensor<1x4x70x64xf16>
  return %0 : tensor<1x4x70x64xf16>
}
