// pe-run --pipeline=vulkan: pe-gpu-pipeline{target=spirv}, the kernels run
// through pe's Vulkan runtime (lavapipe on a machine without a GPU).
// REQUIRES: vulkan
// RUN: pe-run %s -e attn --random-inputs --pipeline=vulkan --check=reference \
// RUN:   --rtol=1e-5 --atol=1e-6 | FileCheck %s
// CHECK: pe-run: check result 0: max_abs_err={{.*}}: PASS
//
// The runtime's one-line error (and exit status 1) for a device that is not
// there:
// RUN: env PE_VULKAN_DEVICE=no-such-device not pe-run %s -e attn \
// RUN:   --random-inputs --pipeline=vulkan --check=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODEVICE
// NODEVICE: pe-vulkan-runtime: error: no Vulkan device matches PE_VULKAN_DEVICE='no-such-device'
//
// 300 rows (2 query heads x 150 tokens per KV head) in 5 blocks of 64, one of
// them across two heads, and 5 key tiles of 32 (the last one partial), with
// RoPE, ALiBi and the causal mask.
func.func @attn(%q: tensor<1x4x150x16xf32>, %k: tensor<1x2x150x16xf32>, %v: tensor<1x2x150x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x150x16xf32> {
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) alibi <symmetric> {causal} : tensor<1x4x150x16xf32>, tensor<1x2x150x16xf32>, tensor<1x2x150x16xf32> -> tensor<1x4x150x16xf32>
  return %0 : tensor<1x4x150x16xf32>
}
