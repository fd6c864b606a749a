// The passes pe-gpu-pipeline builds for each target (from pass constructors),
// and what its options change.

// RUN: pe-opt %s --pe-gpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefixes=COMMON,NVVM
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{target=spirv})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefixes=COMMON,SPIRV
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{chip=sm_90 features=+ptx83 format=fatbin block-rows=128 key-tile=64 shared-memory-bytes=65536 decode-split-keys=256 fuse=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{device-buffers=false toolkit=/opt/cuda})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODEV
// tensor-cores reaches convert-pe-to-gpu on both targets (spirv never gets a
// chip: it has no mma.sync).
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{tensor-cores=off})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TCOFF
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{target=spirv chip=sm_90 tensor-cores=emulate})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TCEMU
// TCOFF: convert-pe-to-gpu{{{.*}} chip=sm_80 {{.*}}tensor-cores=off}
// TCEMU: convert-pe-to-gpu{{{.*}} chip= {{.*}}tensor-cores=emulate}
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{runtime-checks=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHECKS
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-gpu-pipeline{target=rocdl})' 2>&1 | FileCheck %s --check-prefix=BADTARGET

// NOCHECKS: builtin.module(
// NOCHECKS-NEXT: convert-elementwise-to-linalg
// NOCHECKS-NEXT: pe-fold-frequencies

// COMMON: builtin.module(
// COMMON-NEXT: pe-insert-runtime-checks
// COMMON-NEXT: convert-elementwise-to-linalg
// COMMON-NEXT: pe-fold-frequencies
// COMMON-NEXT: canonicalize
// COMMON-NEXT: pe-fuse-encodings-into-attention
// COMMON-NEXT: pe-fold-attention-scaling
// COMMON-NEXT: pe-fold-attention-layout
// COMMON-NEXT: canonicalize
// NVVM-NEXT: convert-pe-to-gpu{allow-bf16=true allow-f16=true block-rows=64 chip=sm_80 decode-split-keys=128 key-tile=32 rope-block=128 shared-memory-bytes=49152 static-buffers-only=false tensor-cores=auto}
// SPIRV-NEXT: convert-pe-to-gpu{allow-bf16=true allow-f16=true block-rows=64 chip= decode-split-keys=128 key-tile=32 rope-block=128 shared-memory-bytes=32768 static-buffers-only=false tensor-cores=auto}
// COMMON-NEXT: gpu-launch-sink-index-computations
// COMMON-NEXT: gpu-kernel-outlining
// COMMON-NEXT: convert-pe-to-linalg
// COMMON-NEXT: canonicalize
// COMMON-NEXT: cse
// COMMON-NEXT: one-shot-bufferize{{.*}}bufferize-function-boundaries=true{{.*}}function-boundary-type-conversion=identity-layout-map
// COMMON-NEXT: canonicalize
// COMMON-NEXT: cse
// COMMON-NEXT: func.func(
// COMMON-NEXT: expand-realloc
// COMMON-NEXT: ownership-based-buffer-deallocation
// COMMON: convert-linalg-to-loops
// NVVM-NEXT: pe-gpu-device-buffers
// NVVM-NEXT: nvvm-attach-target{O=3 chip=sm_80 {{.*}}features=+ptx80
// NVVM-NEXT: pe-gpu-align-workgroup-memory
// NVVM-NEXT: gpu.module(
// NVVM-NEXT: strip-debuginfo
// NVVM-NEXT: convert-scf-to-cf
// NVVM-NEXT: convert-nvgpu-to-nvvm
// NVVM-NEXT: convert-gpu-to-nvvm
// NVVM: gpu-to-llvm{intersperse-sizes-for-kernels=false use-bare-pointers-for-host=false use-bare-pointers-for-kernels=false}
// NVVM-NEXT: gpu-module-to-binary{format=isa
// SPIRV-NEXT: pe-prepare-gpu-for-spirv
// SPIRV-NEXT: pe-gpu-bf16-storage
// SPIRV-NEXT: gpu.module(
// SPIRV-NEXT: arith-expand{include-bf16=true
// SPIRV-NEXT: canonicalize
// SPIRV-NEXT: )
// SPIRV-NEXT: spirv-attach-target{caps={Shader,Int64,Int16,Float16,Float64,StorageBuffer16BitAccess} {{.*}}exts={SPV_KHR_storage_buffer_storage_class,SPV_KHR_16bit_storage} {{.*}}ver=v1.3}
// SPIRV-NEXT: gpu.module(
// SPIRV-NEXT: convert-math-to-spirv
// SPIRV-NEXT: )
// SPIRV-NEXT: convert-gpu-to-spirv
// SPIRV-NEXT: pe-nest-spirv-modules
// SPIRV-NEXT: gpu.module(
// SPIRV-NEXT: spirv.module(
// SPIRV-NEXT: spirv-lower-abi-attrs
// SPIRV-NEXT: spirv-update-vce
// SPIRV-NEXT: )
// SPIRV-NEXT: )
// SPIRV-NEXT: gpu-module-to-binary
// SPIRV-NEXT: pe-gpu-intersperse-buffer-sizes
// SPIRV: gpu-to-llvm{intersperse-sizes-for-kernels=false use-bare-pointers-for-host=false use-bare-pointers-for-kernels=true}
// COMMON: reconcile-unrealized-casts
// COMMON-NEXT: )

// OPTS-NOT: pe-fuse-encodings-into-attention
// OPTS: convert-pe-to-gpu{allow-bf16=true allow-f16=true block-rows=128 chip=sm_90 decode-split-keys=256 key-tile=64 rope-block=128 shared-memory-bytes=65536 {{.*}}tensor-cores=auto}
// OPTS: nvvm-attach-target{O=3 chip=sm_90 {{.*}}features=+ptx83
// OPTS: gpu-module-to-binary{format=fatbin

// NODEV-NOT: pe-gpu-device-buffers
// NODEV: gpu-module-to-binary{format=isa {{.*}}toolkit=/opt/cuda}

// BADTARGET: for the --target option: Cannot find option named 'rocdl'!
module {}
