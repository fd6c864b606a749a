// Execution test of the split-KV decode kernels on the Vulkan target:
// pe-run --gpu-decode-split-keys=32 splits the 200 cached keys into 7
// pieces of one key tile, each a block of its own that writes its
// unnormalised O, max and sum; a second kernel merges them per row. The
// result and lse are compared with the float64 numpy reference
// (test/Integration/lib/cases.py).
//
// GQA 8/2, D = 32, valid lengths 200, 45 and 0 (empty splits past L[b]; a
// row with no valid key: output 0, lse -inf), bottom-right causal, a window
// of 100 keys (empty splits before it; a NaN and an infinity in value rows
// the window hides, inside a staged key tile), f32.
// Tolerance: rtol 1e-5, atol 2e-6, as the one-kernel decode tests: the merge
// adds one rescaling per split in f32.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py split_decode_lse_masks %t
// RUN: pe-run %s -e split_decode_lse_masks --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/l.npy --output=%t/out.npy --output=%t/lse.npy --pipeline=vulkan --gpu-decode-split-keys=32
// RUN: %npycmp %t/out.npy %t/o.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/lse.npy %t/s.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS
// The op gets the two kernels (7 splits of 3 batches x 8 heads x 1 token):
// RUN: pe-opt %s --convert-pe-to-gpu=decode-split-keys=32 | FileCheck %s --check-prefix=KERNEL
// KERNEL: memref.alloc() {alignment = 64 : i64} : memref<5376xf32>
// KERNEL: gpu.launch
// KERNEL: gpu.launch
// KERNEL-NOT: pe.attention

func.func @split_decode_lse_masks(%q: tensor<3x8x1x32xf32>, %k: tensor<3x2x200x32xf32>, %v: tensor<3x2x200x32xf32>, %l: tensor<3xi32>)
    -> (tensor<3x8x1x32xf32>, tensor<3x8x1xf32>) {
  %attn_init0 = tensor.empty() : tensor<3x8x1x32xf32>
  %attn_lse_init0 = tensor.empty() : tensor<3x8x1xf32>
  %o, %lse = pe.attention %q, %k, %v kv_lengths(%l : tensor<3xi32>) outs(%attn_init0, %attn_lse_init0 : tensor<3x8x1x32xf32>, tensor<3x8x1xf32>) {causal, window = 100 : i64} : tensor<3x8x1x32xf32>, tensor<3x2x200x32xf32>, tensor<3x2x200x32xf32> -> tensor<3x8x1x32xf32>, tensor<3x8x1xf32>
  return %o, %lse : tensor<3x8x1x32xf32>, tensor<3x8x1xf32>
}
