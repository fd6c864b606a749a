// Each reason convert-pe-to-gpu gives for keeping an f16/bf16 attention on
// the SIMT kernel instead of the tensor-core kernel, as a missed-optimization
// remark `tensor-core-kernel` (category convert-pe-to-gpu), one RUN line per
// option-dependent reason; the shape-dependent reasons are in
// gpu-tensor-core-kernel.mlir. The op still gets the SIMT kernel (no mma).

// Chip below sm_80:
// RUN: pe-opt %s --convert-pe-to-gpu=chip=sm_75 --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefixes=SM75,SIMT
// SM75: remark: [Missed] tensor-core-kernel | Category:convert-pe-to-gpu | Reason="no tensor-core attention kernel (the SIMT kernel runs): chip sm_75 is below sm_80 (mma.sync m16n8k16 with f32 accumulators)"

// The option off (on a chip that has mma.sync):
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_90 tensor-cores=off" --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefixes=OFF,SIMT
// OFF: remark: [Missed] tensor-core-kernel | Category:convert-pe-to-gpu | Reason="no tensor-core attention kernel (the SIMT kernel runs): tensor-cores=off"

// No chip (the pass alone, or pe-gpu-pipeline target=spirv) and no emulation:
// RUN: pe-opt %s --convert-pe-to-gpu --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefixes=NOCHIP,SIMT
// RUN: pe-opt %s --pe-gpu-pipeline="target=spirv fuse=false" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: remark: [Missed] tensor-core-kernel | Category:convert-pe-to-gpu | Reason="no tensor-core attention kernel (the SIMT kernel runs): no NVVM chip (chip=; pe-gpu-pipeline target=spirv has no mma.sync: tensor-cores=emulate builds the fragment kernel with emulated mma.sync)"

// A key tile that is not a multiple of 16 (the k-steps of P V):
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 key-tile=24" --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefixes=TILE,SIMT
// TILE: remark: [Missed] tensor-core-kernel | Category:convert-pe-to-gpu | Reason="no tensor-core attention kernel (the SIMT kernel runs): key-tile 24 is not a multiple of 16"

// SIMT: gpu.launch
// SIMT-SAME: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64
// SIMT-NOT: mma.sync
// SIMT-NOT: gpu.shuffle

// Must not fire: the tensor-core kernel on sm_80, sm_90a, and emulated on
// either target (no remark, a 128-thread kernel with mma.sync or its
// emulation).
// RUN: pe-opt %s --convert-pe-to-gpu=chip=sm_80 --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=TC
// RUN: pe-opt %s --convert-pe-to-gpu=chip=sm_90a --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=TC
// RUN: pe-opt %s --convert-pe-to-gpu=tensor-cores=emulate --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=EMU
// RUN: pe-opt %s --pe-gpu-pipeline="target=spirv tensor-cores=emulate fuse=false" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// TC-NOT: remark
// TC: gpu.launch
// TC-SAME: in (%{{.*}} = %c128
// TC: nvgpu.mma.sync
// EMU-NOT: remark
// EMU: gpu.launch
// EMU-SAME: in (%{{.*}} = %c128
// EMU-NOT: nvgpu.mma.sync
// QUIET-NOT: tensor-core-kernel

func.func @prefill(%q: tensor<1x4x40x64xf16>, %k: tensor<1x2x40x64xf16>, %v: tensor<1x2x40x64xf16>) -> tensor<1x4x40x64xf16> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x64xf16>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x40x64xf16>) {causal} : tensor<1x4x40x64xf16>, tensor<1x2x40x64xf16>, tensor<1x2x40x64xf16> -> tensor<1x4x40x64xf16>
  return %0 : tensor<1x4x40x64xf16>
}
