// Execution test of the tensor-core attention kernel's two-stage K/V buffer
// on the Vulkan target (pe-gpu-pipeline{target=spirv tensor-cores=emulate},
// lavapipe): tile t is staged in stage t % 2 while tile t - 1 is computed,
// with plain loads and stores where the NVVM kernel uses cp.async, and K is
// rotated in place in its stage. The result is compared with the float64
// numpy reference (test/Integration/lib/cases.py, pe_ref.py).
//
// Interleaved RoPE on Q and K, bottom-right causal, GQA 2/1, 2 batches,
// Tq = 130, Tk = 200: 7 key tiles of 32, the last one 8 keys (ragged), so
// each stage is refilled three times.
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_stages_rope_causal_d64 %t
// RUN: pe-run %s -e tc_stages_rope_causal_d64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the two-stage tensor-core kernel: K and V buffers of 2 x 32
// keys and the per-warp emulation tiles.
// RUN: pe-opt %s --convert-pe-to-gpu="tensor-cores=emulate shared-memory-bytes=32768" | FileCheck %s --check-prefix=KERNEL
// KERNEL: gpu.launch
// KERNEL-SAME: workgroup(%{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x64xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<4x16x16xf32, #gpu.address_space<workgroup>>
// KERNEL-NOT: pe.attention

func.func @tc_stages_rope_causal_d64(%q: tensor<2x2x130x64xf16>, %k: tensor<2x1x200x64xf16>, %v: tensor<2x1x200x64xf16>, %f: tensor<32xf64>) -> tensor<2x2x130x64xf16> {
  %init = tensor.empty() : tensor<2x2x130x64xf16>
  %0 = pe.attention %q, %k, %v rope <interleaved> inv_freq(%f : tensor<32xf64>) outs(%init : tensor<2x2x130x64xf16>) {causal} : tensor<2x2x130x64xf16>, tensor<2x1x200x64xf16>, tensor<2x1x200x64xf16> -> tensor<2x2x130x64xf16>
  return %0 : tensor<2x2x130x64xf16>
}
