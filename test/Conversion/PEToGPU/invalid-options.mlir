// Option values convert-pe-to-gpu and pe-gpu-pipeline reject: each error names
// the option and its range, ends the run with a non-zero exit, and comes
// before any kernel is generated (block-rows=2^31 once reached nvvm.maxntid as
// an unlocated "can't parse integer attribute"; 65536 gave a block CUDA
// cannot launch).
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=0" 2>&1 | FileCheck %s --check-prefix=ROWS0
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=1025" 2>&1 | FileCheck %s --check-prefix=ROWS1025
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=65536" 2>&1 | FileCheck %s --check-prefix=ROWS65536
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=2147483648" 2>&1 | FileCheck %s --check-prefix=ROWS2P31
// RUN: not pe-opt %s --pass-pipeline='builtin.module(convert-pe-to-gpu{block-rows=99999999999999999999})' 2>&1 | FileCheck %s --check-prefix=ROWSHUGE
// RUN: not pe-opt %s --convert-pe-to-gpu="block-rows=abc" 2>&1 | FileCheck %s --check-prefix=ROWSABC
// RUN: not pe-opt %s --convert-pe-to-gpu="key-tile=-4" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not pe-opt %s --convert-pe-to-gpu="key-tile=2147483648" 2>&1 | FileCheck %s --check-prefix=TILEBIG
// RUN: not pe-opt %s --convert-pe-to-gpu="rope-block=0" 2>&1 | FileCheck %s --check-prefix=ROPE0
// RUN: not pe-opt %s --convert-pe-to-gpu="rope-block=4096" 2>&1 | FileCheck %s --check-prefix=ROPEBIG
// RUN: not pe-opt %s --convert-pe-to-gpu="shared-memory-bytes=0" 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not pe-opt %s --convert-pe-to-gpu="shared-memory-bytes=4294967296" 2>&1 | FileCheck %s --check-prefix=SMEMBIG
// RUN: not pe-opt %s --convert-pe-to-gpu="decode-split-keys=-1" 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not pe-opt %s --convert-pe-to-gpu="decode-split-keys=2147483648" 2>&1 | FileCheck %s --check-prefix=SPLITBIG
// RUN: not pe-opt %s --convert-pe-to-gpu="tensor-cores=always" 2>&1 | FileCheck %s --check-prefix=TC
// RUN: not pe-opt %s --convert-pe-to-gpu="chip=gfx942" 2>&1 | FileCheck %s --check-prefix=CHIP
// The largest values in range are accepted.
// RUN: pe-opt %s --convert-pe-to-gpu="block-rows=1024 rope-block=1024 key-tile=2147483647 shared-memory-bytes=2147483647 decode-split-keys=2147483647" -o /dev/null
// ROWS0: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not 0
// ROWS1025: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not 1025
// ROWS65536: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not 65536
// ROWS2P31: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not 2147483648
// ROWSHUGE: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not '99999999999999999999'
// ROWSABC: error: convert-pe-to-gpu: block-rows must be an integer in [1, 1024] (threads per block), not 'abc'
// TILE: error: convert-pe-to-gpu: key-tile must be an integer in [1, 2147483647], not -4
// TILEBIG: error: convert-pe-to-gpu: key-tile must be an integer in [1, 2147483647], not 2147483648
// ROPE0: error: convert-pe-to-gpu: rope-block must be an integer in [1, 1024] (threads per block), not 0
// ROPEBIG: error: convert-pe-to-gpu: rope-block must be an integer in [1, 1024] (threads per block), not 4096
// SMEM: error: convert-pe-to-gpu: shared-memory-bytes must be an integer in [1, 2147483647], not 0
// SMEMBIG: error: convert-pe-to-gpu: shared-memory-bytes must be an integer in [1, 2147483647], not 4294967296
// SPLIT: error: convert-pe-to-gpu: decode-split-keys must be an integer in [0, 2147483647] (0: no split), not -1
// SPLITBIG: error: convert-pe-to-gpu: decode-split-keys must be an integer in [0, 2147483647] (0: no split), not 2147483648
// TC: error: convert-pe-to-gpu: tensor-cores must be auto, off or emulate, not 'always'
// CHIP: error: convert-pe-to-gpu: chip 'gfx942' is not an NVVM chip (sm_NN)

// The same options of pe-gpu-pipeline (shared-memory-bytes=0 there: the
// target's default), as --pe-gpu-pipeline=... and in --pass-pipeline.
// RUN: not pe-opt %s --pe-gpu-pipeline="block-rows=2147483648" 2>&1 | FileCheck %s --check-prefix=PIPE-ROWS
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{target=spirv block-rows=65536})' 2>&1 | FileCheck %s --check-prefix=PIPE-ROWS65536
// RUN: not pe-opt %s --pe-gpu-pipeline="target=spirv key-tile=0" 2>&1 | FileCheck %s --check-prefix=PIPE-TILE
// RUN: not pe-opt %s --pe-gpu-pipeline="decode-split-keys=9223372036854775808" 2>&1 | FileCheck %s --check-prefix=PIPE-SPLIT
// RUN: not pe-opt %s --pe-gpu-pipeline="target=spirv shared-memory-bytes=-1" 2>&1 | FileCheck %s --check-prefix=PIPE-SMEM
// PIPE-ROWS: error: pe-gpu-pipeline: block-rows must be an integer in [1, 1024] (threads per block), not 2147483648
// PIPE-ROWS65536: error: pe-gpu-pipeline: block-rows must be an integer in [1, 1024] (threads per block), not 65536
// PIPE-TILE: error: pe-gpu-pipeline: key-tile must be an integer in [1, 2147483647], not 0
// PIPE-SPLIT: error: pe-gpu-pipeline: decode-split-keys must be an integer in [0, 2147483647] (0: no split), not '9223372036854775808'
// PIPE-SMEM: error: pe-gpu-pipeline: shared-memory-bytes must be an integer in [0, 2147483647] (0: the target's default), not -1

// pe-run's GPU options.
// RUN: not pe-run %s -e f --random-inputs --pipeline=vulkan --gpu-tensor-cores=yes 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not pe-run %s -e f --random-inputs --pipeline=vulkan --gpu-decode-split-keys=-5 2>&1 | FileCheck %s --check-prefix=TOOL-SPLIT
// TOOL: pe-run: error: --gpu-tensor-cores must be auto, off or emulate, not 'yes'
// TOOL-SPLIT: pe-run: error: --gpu-decode-split-keys must be at least 0, not -5

func.func @f(%x: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = pe.attention %x, %x, %x outs(%attn_init0 : tensor<1x2x8x16xf32>) : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
