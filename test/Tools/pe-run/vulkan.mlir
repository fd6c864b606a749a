// pe-run --pipeline=vulkan: pe-gpu-pipeline{target=spirv}, the kernels run
// through pe's Vulkan runtime (lavapipe on a machine without a GPU).
// REQUIRES: vulkan
// RUN: pe-run %s -e attn --random-inputs --pipeline=vulkan --check=reference \
// RUN:   --rtol=1e-5 --atol=1e-6 | FileCheck %s
// CHECK: pe-run: check result 0: max_abs_err={{.*}}: PASS
//
// Dynamic shapes (each buffer's byte size computed at run time,
// pe-gpu-intersperse-buffer-sizes), 70 queries over 90 keys, bottom-right
// causal alignment:
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t '!r=np.random.default_rng(7)' \
// RUN:   'q=r.uniform(-1,1,(1,4,70,16)).astype(np.float32)' \
// RUN:   'k=r.uniform(-1,1,(1,2,90,16)).astype(np.float32)' \
// RUN:   'v=r.uniform(-1,1,(1,2,90,16)).astype(np.float32)'
// RUN: pe-run %s -e dynamic --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --pipeline=vulkan --check=reference --rtol=1e-5 --atol=1e-6 | FileCheck %s
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
  %attn_init0 = tensor.empty() : tensor<1x4x150x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) alibi <symmetric> outs(%attn_init0 : tensor<1x4x150x16xf32>) {causal} : tensor<1x4x150x16xf32>, tensor<1x2x150x16xf32>, tensor<1x2x150x16xf32> -> tensor<1x4x150x16xf32>
  return %0 : tensor<1x4x150x16xf32>
}

func.func @dynamic(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x4x?x16xf32> {
  %attn_c2_1 = arith.constant 2 : index
  %attn_d0_2_1 = tensor.dim %q, %attn_c2_1 : tensor<1x4x?x16xf32>
  %attn_init1 = tensor.empty(%attn_d0_2_1) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init1 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}
