// Option values convert-pe-to-gpu rejects.
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=0" 2>&1 | FileCheck %s
// RUN: not pe-opt %s --convert-pe-to-gpu="key-tile=-4" 2>&1 | FileCheck %s
// RUN: not pe-opt %s --convert-pe-to-gpu="rope-block=0" 2>&1 | FileCheck %s
// RUN: not pe-opt %s --convert-pe-to-gpu="shared-memory-bytes=0" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not pe-opt %s --pe-gpu-pipeline="target=spirv shared-memory-bytes=-1" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not pe-opt %s --convert-pe-to-gpu="tensor-cores=always" 2>&1 | FileCheck %s --check-prefix=TC
// RUN: not pe-opt %s --convert-pe-to-gpu="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not pe-run %s -e f --random-inputs --pipeline=vulkan --gpu-tensor-cores=yes 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not pe-opt %s --convert-pe-to-gpu="decode-split-keys=-1" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not pe-run %s -e f --random-inputs --pipeline=vulkan --gpu-decode-split-keys=-5 2>&1 | FileCheck %s --check-prefix=TOOL-SPLIT
// SPLIT: error: convert-pe-to-gpu: decode-split-keys must be at least 0 (0: no split), not -1
// TOOL-SPLIT: pe-run: error: --gpu-decode-split-keys must be at least 0, not -5
// TC: error: convert-pe-to-gpu: tensor-cores must be auto, off or emulate, not 'always'
// CHIP: error: convert-pe-to-gpu: chip 'gfx942' is not an NVVM chip (sm_NN)
// SMEM: error: convert-pe-to-gpu: shared-memory-bytes must be at least 1
// TOOL: pe-run: error: --gpu-tensor-cores must be auto, off or emulate, not 'yes'
// CHECK: error: convert-pe-to-gpu: block-rows, key-tile and rope-block must be at least 1

func.func @f(%x: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = pe.attention %x, %x, %x outs(%attn_init0 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
