// RUN: pe-opt %s --pe-gpu-align-workgroup-memory | FileCheck %s
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-gpu-align-workgroup-memory, gpu.module(convert-nvgpu-to-nvvm, convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM

// Workgroup buffers written by nvgpu.device_async_copy get the alignment of
// the copy's size (16 bytes: 8 f16; 4 bytes: 1 f32); the others keep theirs
// (none), and an alignment already larger stays.
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: workgroup(%{{.*}} : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 4 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64})
// NVVM: llvm.mlir.global internal @__wg_k_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f16>
// NVVM: llvm.mlir.global internal @__wg_k_1() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<8 x f32>
// NVVM: llvm.mlir.global internal @__wg_k_2() {addr_space = 3 : i32} : !llvm.array<8 x f32>
// NVVM: llvm.mlir.global internal @__wg_k_3() {addr_space = 3 : i32, alignment = 32 : i64} : !llvm.array<64 x f16>
gpu.module @m {
  gpu.func @k(%src: memref<64xf16>, %src32: memref<8xf32>) workgroup(%a : memref<64xf16, #gpu.address_space<workgroup>>, %b : memref<8xf32, #gpu.address_space<workgroup>>, %c : memref<8xf32, #gpu.address_space<workgroup>>, %d : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}) kernel {
    %c0 = arith.constant 0 : index
    %t0 = nvgpu.device_async_copy %src[%c0], %a[%c0], 8 {bypassL1} : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    %t1 = nvgpu.device_async_copy %src32[%c0], %b[%c0], 1 : memref<8xf32> to memref<8xf32, #gpu.address_space<workgroup>>
    %t2 = nvgpu.device_async_copy %src[%c0], %d[%c0], 8 : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    %x = memref.load %c[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
    memref.store %x, %src32[%c0] : memref<8xf32>
    gpu.return
  }
}
