// A decode step over long caches on lavapipe: the decode kernel spreads the
// keys over the threads of each block (and the blocks of each split), so no
// invocation comes near lavapipe's 65535-iteration loop limiter
// (vulkan-long-keys.mlir: the one-row-per-thread kernel does, and is wrong).
// 512 keys of D = 64 with the default splits (4 of 128 keys), and 2048 keys
// of D = 128 in one split.
// REQUIRES: vulkan
// RUN: pe-run %s -e long_keys_decode --random-inputs --pipeline=vulkan \
// RUN:   --check=reference --rtol=1e-3 --atol=1e-4 | FileCheck %s
// RUN: pe-run %s -e long_cache_one_split --random-inputs --pipeline=vulkan \
// RUN:   --gpu-decode-split-keys=0 --check=reference --rtol=1e-3 --atol=1e-4 | FileCheck %s
// CHECK: pe-run: check result 0: max_abs_err={{.*}}: PASS
func.func @long_keys_decode(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x512x64xf32>, %v: tensor<1x1x512x64xf32>) -> tensor<1x1x1x64xf32> {
  %attn_init0 = tensor.empty() : tensor<1x1x1x64xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x1x1x64xf32>) : tensor<1x1x1x64xf32>, tensor<1x1x512x64xf32>, tensor<1x1x512x64xf32> -> tensor<1x1x1x64xf32>
  return %0 : tensor<1x1x1x64xf32>
}
func.func @long_cache_one_split(%q: tensor<1x4x1x128xf32>, %k: tensor<1x2x2048x128xf32>, %v: tensor<1x2x2048x128xf32>) -> tensor<1x4x1x128xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x1x128xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x1x128xf32>) {causal} : tensor<1x4x1x128xf32>, tensor<1x2x2048x128xf32>, tensor<1x2x2048x128xf32> -> tensor<1x4x1x128xf32>
  return %0 : tensor<1x4x1x128xf32>
}
