// The SIMT attention kernels at head dimensions 256 and 512 through
// pe-run --pipeline=vulkan (lavapipe), checked against the float64
// reference. pe-gpu-pipeline{target=spirv} gives the kernels 32 KiB of
// workgroup memory (lavapipe's maxComputeSharedMemorySize), so the prefill
// kernel's K/V tiles (f32, key-tile x (D + Dv) x 4 bytes) take 16 keys at
// D = 256 instead of 32 (remark `key-tile`): 40 keys are 3 tiles (the last
// one partial). The decode kernel at D = 512 (4 query rows per KV head)
// takes 5-key tiles: 8 tiles, one split. Keys x D stay below 2^15 per head
// (vulkan-long-keys.mlir).
// REQUIRES: vulkan
// RUN: pe-opt %s --pe-gpu-pipeline="target=spirv" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: Reason="the SIMT attention kernel stages K/V tiles of 16 keys (32768 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=32768"
// REMARK: Reason="the SIMT attention kernel stages K/V tiles of 16 keys (32768 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=32768"
// REMARK: Reason="the decode attention kernel stages K/V tiles of 5 keys (28836 bytes of workgroup memory), not key-tile=32 (139968 bytes): shared-memory-bytes=32768"
//
// f32 prefill, D = 256, RoPE (half) and bottom-right causal, 4 query heads
// over 2 KV heads (80 rows per KV head: 2 blocks of 64), 40 keys:
// RUN: pe-run %s -e rope_causal_d256 --random-inputs --pipeline=vulkan \
// RUN:   --check=reference --rtol=1e-5 --atol=1e-6 | FileCheck %s
// The same in f16 (tolerance of the f16 execution tests):
// RUN: pe-run %s -e rope_causal_f16_d256 --random-inputs --pipeline=vulkan \
// RUN:   --check=reference --rtol=2e-3 --atol=1e-3 | FileCheck %s
// f32 decode, D = 512, 8 query heads over 2 KV heads, 40 keys:
// RUN: pe-run %s -e decode_d512 --random-inputs --pipeline=vulkan \
// RUN:   --check=reference --rtol=1e-5 --atol=1e-6 | FileCheck %s
// CHECK: pe-run: check result 0: max_abs_err={{.*}}: PASS

func.func @rope_causal_d256(%q: tensor<1x4x20x256xf32>, %k: tensor<1x2x40x256xf32>, %v: tensor<1x2x40x256xf32>, %f: tensor<128xf64>) -> tensor<1x4x20x256xf32> {
  %init = tensor.empty() : tensor<1x4x20x256xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<128xf64>) outs(%init : tensor<1x4x20x256xf32>) {causal} : tensor<1x4x20x256xf32>, tensor<1x2x40x256xf32>, tensor<1x2x40x256xf32> -> tensor<1x4x20x256xf32>
  return %0 : tensor<1x4x20x256xf32>
}
func.func @rope_causal_f16_d256(%q: tensor<1x4x20x256xf16>, %k: tensor<1x2x40x256xf16>, %v: tensor<1x2x40x256xf16>, %f: tensor<128xf64>) -> tensor<1x4x20x256xf16> {
  %init = tensor.empty() : tensor<1x4x20x256xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<128xf64>) outs(%init : tensor<1x4x20x256xf16>) {causal} : tensor<1x4x20x256xf16>, tensor<1x2x40x256xf16>, tensor<1x2x40x256xf16> -> tensor<1x4x20x256xf16>
  return %0 : tensor<1x4x20x256xf16>
}
func.func @decode_d512(%q: tensor<1x8x1x512xf32>, %k: tensor<1x2x40x512xf32>, %v: tensor<1x2x40x512xf32>) -> tensor<1x8x1x512xf32> {
  %init = tensor.empty() : tensor<1x8x1x512xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x8x1x512xf32>) : tensor<1x8x1x512xf32>, tensor<1x2x40x512xf32>, tensor<1x2x40x512xf32> -> tensor<1x8x1x512xf32>
  return %0 : tensor<1x8x1x512xf32>
}
