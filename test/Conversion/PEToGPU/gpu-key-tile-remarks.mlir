// convert-pe-to-gpu sizes the attention kernels' key tiles from
// shared-memory-bytes: the K/V tiles (static workgroup memory) of the SIMT
// kernel take key-tile x (D + Dv) x 4 bytes, those of the tensor-core kernel
// key-tile x (D + Dv) x 2 per stage, in two stages (plus the emulation
// buffers when emulated). A kernel that takes fewer keys than key-tile says
// so (remark `key-tile`, category convert-pe-to-gpu); the tensor-core kernel
// that cannot have two stages of 16 keys has one (remark
// `tensor-core-stages`); an attention whose SIMT tile of one key does not
// fit runs on the host (remark `attention-kernel`).

// Defaults (48 KiB): D = 128 keeps 32 keys (32 KiB, no remark), D = 256
// takes 24 (48 KiB of 64), D = 512 12 (48 KiB of 128); the tensor-core
// kernel (f16, D = 128: two stages of 16 KiB) keeps 32.
// RUN: pe-opt %s --convert-pe-to-gpu=chip=sm_80 --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-NOT: remark:
// DEFAULT: remark: [Missed] key-tile | Category:convert-pe-to-gpu | Reason="the SIMT attention kernel stages K/V tiles of 24 keys (49152 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=49152"
// DEFAULT-NOT: remark:
// DEFAULT: remark: [Missed] key-tile | Category:convert-pe-to-gpu | Reason="the SIMT attention kernel stages K/V tiles of 12 keys (49152 bytes of workgroup memory), not key-tile=32 (131072 bytes): shared-memory-bytes=49152"
// DEFAULT-NOT: remark:
// RUN: pe-opt %s --convert-pe-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=TILES
// TILES: workgroup(%{{.*}} : memref<32x128xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x128xf32, #gpu.address_space<workgroup>>)
// TILES-SAME: private({{.*}}memref<32xf32, #gpu.address_space<private>>)
// TILES: workgroup(%{{.*}} : memref<24x256xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<24x256xf32, #gpu.address_space<workgroup>>)
// TILES-SAME: private({{.*}}memref<24xf32, #gpu.address_space<private>>)
// TILES: workgroup(%{{.*}} : memref<12x512xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<12x512xf32, #gpu.address_space<workgroup>>)
// TILES: workgroup(%{{.*}} : memref<64x128xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x128xf16, #gpu.address_space<workgroup>>)
// TILES: nvgpu.mma.sync

// A key-tile that fits everywhere (16 keys, D = 512: 64 KiB): no remark.
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 key-tile=16 shared-memory-bytes=65536" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// A larger budget: no remark, 32 keys everywhere (ptxas would reject the
// D = 256 and 512 kernels; gpu-ptxas-large-head-dims.mlir).
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=131072" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark:

// A 12 KiB budget: the SIMT kernel at D = 128 takes 12 keys, 6 at 256, 3 at
// 512; the tensor-core kernel one stage of 16 (8 KiB of f16 tiles; two
// stages of 16 keys: 16 KiB, one of 32 keys: 16 KiB).
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=12288" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: Reason="the SIMT attention kernel stages K/V tiles of 12 keys (12288 bytes of workgroup memory), not key-tile=32 (32768 bytes): shared-memory-bytes=12288"
// SMALL: Reason="the SIMT attention kernel stages K/V tiles of 6 keys (12288 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=12288"
// SMALL: Reason="the SIMT attention kernel stages K/V tiles of 3 keys (12288 bytes of workgroup memory), not key-tile=32 (131072 bytes): shared-memory-bytes=12288"
// SMALL: remark: [Missed] tensor-core-stages | Category:convert-pe-to-gpu | Reason="the tensor-core attention kernel stages K/V tiles in one workgroup-memory stage (the copies of a tile do not overlap the mma.sync of the one before): two stages of 16 keys take 16384 bytes, above shared-memory-bytes=12288"
// SMALL: Reason="the tensor-core attention kernel stages K/V tiles of 16 keys (8192 bytes of workgroup memory), not key-tile=32 (16384 bytes): shared-memory-bytes=12288"
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=12288" | FileCheck %s --check-prefix=SMALLTILES
// SMALLTILES: memref<12x128xf32, #gpu.address_space<workgroup>>
// SMALLTILES: memref<6x256xf32, #gpu.address_space<workgroup>>
// SMALLTILES: memref<3x512xf32, #gpu.address_space<workgroup>>
// SMALLTILES: memref<16x128xf16, #gpu.address_space<workgroup>>
// SMALLTILES: nvgpu.mma.sync
// SMALL-NOT: remark:
// A 20000-byte budget: the tensor-core kernel keeps two stages, of 16 keys
// (16 KiB; 32 keys: 32 KiB).
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=20000" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// TWO-NOT: tensor-core-stages
// TWO: Reason="the tensor-core attention kernel stages K/V tiles of 16 keys in 2 stages (16384 bytes of workgroup memory), not key-tile=32 (32768 bytes): shared-memory-bytes=20000"
// TWO-NOT: tensor-core-stages
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=20000" | FileCheck %s --check-prefix=TWOTILES
// TWOTILES: memref<32x128xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x128xf16, #gpu.address_space<workgroup>>
// TWOTILES: nvvm.cp.async.commit.group

// An 8191-byte budget: the tensor-core kernel's 16-key tiles (8192 bytes)
// do not fit, so the f16 op keeps the SIMT kernel (7 keys); D = 512 does not
// fit one key (4096 bytes) with 4095 and runs on the host.
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=8191" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=TINY
// TINY: Reason="the SIMT attention kernel stages K/V tiles of 7 keys (7168 bytes of workgroup memory), not key-tile=32 (32768 bytes): shared-memory-bytes=8191"
// TINY: Reason="the SIMT attention kernel stages K/V tiles of 3 keys (6144 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=8191"
// TINY: Reason="the SIMT attention kernel stages K/V tiles of 1 keys (4096 bytes of workgroup memory), not key-tile=32 (131072 bytes): shared-memory-bytes=8191"
// TINY: remark: [Missed] tensor-core-kernel | Category:convert-pe-to-gpu | Reason="no tensor-core attention kernel (the SIMT kernel runs): its workgroup memory with key tiles of 16 keys, 8192 bytes, is above shared-memory-bytes=8191"
// TINY: Reason="the SIMT attention kernel stages K/V tiles of 7 keys (7168 bytes of workgroup memory), not key-tile=32 (32768 bytes): shared-memory-bytes=8191"
// TINY-NOT: remark:
// RUN: pe-opt %s --convert-pe-to-gpu="chip=sm_80 shared-memory-bytes=4095" --remarks-filter=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: remark: [Missed] attention-kernel | Category:convert-pe-to-gpu | Reason="no GPU attention kernel (the reference lowering runs on the host): a K/V tile of one key takes 4096 bytes of workgroup memory, above shared-memory-bytes=4095"
// HOST-LABEL: func.func @f32_d512
// HOST-NOT: gpu.launch
// HOST: pe.attention
// HOST-LABEL: func.func @f16_d128

// The emulated tensor-core kernel counts its emulation buffers (7168 bytes):
// two stages of 16 keys do not fit in 16 KiB, one does.
// RUN: pe-opt %s --convert-pe-to-gpu="tensor-cores=emulate shared-memory-bytes=16384" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMU
// EMU: Reason="the tensor-core attention kernel stages K/V tiles in one workgroup-memory stage (the copies of a tile do not overlap the mma.sync of the one before): two stages of 16 keys take 23552 bytes, above shared-memory-bytes=16384"
// EMU: Reason="the tensor-core attention kernel stages K/V tiles of 16 keys (15360 bytes of workgroup memory), not key-tile=32 (23552 bytes): shared-memory-bytes=16384"

// pe-gpu-pipeline: 48 KiB on nvvm, 32 KiB on spirv (lavapipe's
// maxComputeSharedMemorySize), or shared-memory-bytes.
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_80 format=isa fuse=false" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: pe-opt %s --pe-gpu-pipeline="target=spirv fuse=false" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPIRV
// SPIRV: Reason="the SIMT attention kernel stages K/V tiles of 16 keys (32768 bytes of workgroup memory), not key-tile=32 (65536 bytes): shared-memory-bytes=32768"
// SPIRV: Reason="the SIMT attention kernel stages K/V tiles of 8 keys (32768 bytes of workgroup memory), not key-tile=32 (131072 bytes): shared-memory-bytes=32768"
// RUN: pe-opt %s --pe-gpu-pipeline="target=spirv fuse=false shared-memory-bytes=16384" --remarks-filter=convert-pe-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPIRV16
// SPIRV16: Reason="the SIMT attention kernel stages K/V tiles of 16 keys (16384 bytes of workgroup memory), not key-tile=32 (32768 bytes): shared-memory-bytes=16384"

func.func @f32_d128(%q: tensor<1x4x40x128xf32>, %k: tensor<1x2x40x128xf32>, %v: tensor<1x2x40x128xf32>) -> tensor<1x4x40x128xf32> {
  %init = tensor.empty() : tensor<1x4x40x128xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x40x128xf32>) {causal} : tensor<1x4x40x128xf32>, tensor<1x2x40x128xf32>, tensor<1x2x40x128xf32> -> tensor<1x4x40x128xf32>
  return %0 : tensor<1x4x40x128xf32>
}
func.func @f32_d256(%q: tensor<1x4x40x256xf32>, %k: tensor<1x2x40x256xf32>, %v: tensor<1x2x40x256xf32>) -> tensor<1x4x40x256xf32> {
  %init = tensor.empty() : tensor<1x4x40x256xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x40x256xf32>) {causal} : tensor<1x4x40x256xf32>, tensor<1x2x40x256xf32>, tensor<1x2x40x256xf32> -> tensor<1x4x40x256xf32>
  return %0 : tensor<1x4x40x256xf32>
}
func.func @f32_d512(%q: tensor<1x4x40x512xf32>, %k: tensor<1x2x40x512xf32>, %v: tensor<1x2x40x512xf32>) -> tensor<1x4x40x512xf32> {
  %init = tensor.empty() : tensor<1x4x40x512xf32>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x40x512xf32>) {causal} : tensor<1x4x40x512xf32>, tensor<1x2x40x512xf32>, tensor<1x2x40x512xf32> -> tensor<1x4x40x512xf32>
  return %0 : tensor<1x4x40x512xf32>
}
func.func @f16_d128(%q: tensor<1x4x40x128xf16>, %k: tensor<1x2x40x128xf16>, %v: tensor<1x2x40x128xf16>) -> tensor<1x4x40x128xf16> {
  %init = tensor.empty() : tensor<1x4x40x128xf16>
  %0 = pe.attention %q, %k, %v outs(%init : tensor<1x4x40x128xf16>) {causal} : tensor<1x4x40x128xf16>, tensor<1x2x40x128xf16>, tensor<1x2x40x128xf16> -> tensor<1x4x40x128xf16>
  return %0 : tensor<1x4x40x128xf16>
}
