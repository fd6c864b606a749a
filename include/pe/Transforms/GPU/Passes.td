//===- Passes.td - gpu dialect passes ----------------------*- tablegen -*-===//
//
// Part of the pe-mlir project.
//
// Passes that fill gaps of MLIR 22 itself, independent of the pe dialect;
// each one's description says what MLIR lacks.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_GPU_PASSES_TD
#define PE_TRANSFORMS_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareGPUForSPIRV : Pass<"pe-prepare-gpu-for-spirv", "ModuleOp"> {
  let summary = "Put gpu kernels into the forms MLIR's GPU to SPIR-V "
                "conversion accepts";
  let description = [{
    For every kernel `gpu.func`: each workgroup attribution becomes a
    `memref.alloc` in the `Workgroup` storage class and each private
    attribution a `memref.alloca` in the `Function` storage class at the top
    of the body (the GPU to SPIR-V conversion of MLIR 22 rejects
    attributions and does not map `#gpu.address_space`), and a kernel
    without a `spirv.entry_point_abi` gets one whose workgroup size is the
    kernel's `known_block_size` (set by `gpu-kernel-outlining` for constant
    block sizes; a kernel without one is an error).
  }];
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::spirv::SPIRVDialect",
  ];
}

def GPUBF16Storage : Pass<"pe-gpu-bf16-storage", "ModuleOp"> {
  let summary = "Store the bf16 buffers of gpu kernels as i16, for targets "
                "without a bf16 type";
  let description = [{
    For SPIR-V targets without bf16 (SPIR-V 1.3, Vulkan on lavapipe). Each
    kernel `gpu.func` argument `memref<... x bf16>` becomes
    `memref<... x i16>` (the same bytes): its `memref.load`s are followed by
    an `arith.bitcast` to bf16 and its `memref.store`s preceded by one to
    i16, and every `gpu.launch_func` of the kernel passes that operand
    through a `builtin.unrealized_conversion_cast` (both memref types lower
    to the same LLVM struct on the host). The kernel's own bf16 buffers
    (`memref.alloc` / `memref.alloca`, e.g. workgroup tiles) become i16
    buffers the same way. Inside the kernels,
    `arith.extf` bf16 -> f64 goes through f32 (exact), and `arith.truncf`
    f64 -> bf16 rounds to odd into f32 and then to nearest even into bf16,
    which equals one correct rounding of the f64 value. After this pass,
    `arith-expand{include-bf16=true}` turns the remaining f32 <-> bf16
    conversions into integer operations and canonicalization folds the
    bitcasts, so that no bf16 type is left.

    A bf16 kernel buffer used by anything other than `memref.load`,
    `memref.store` (and `memref.dealloc`) is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
}

def NestSPIRVModules : Pass<"pe-nest-spirv-modules", "ModuleOp"> {
  let summary = "Move each spirv.module into the gpu.module it came from";
  let description = [{
    `convert-gpu-to-spirv` creates `spirv.module @__spv__<name>` beside
    `gpu.module @<name>`; `gpu-module-to-binary` serializes a gpu.module with
    a SPIR-V target from the `spirv.module` inside it. This pass moves each
    such spirv.module into its gpu.module.
  }];
}

def GPUDeviceBuffers : Pass<"pe-gpu-device-buffers", "ModuleOp"> {
  let summary = "Give kernel launches device copies of their host buffers";
  let description = [{
    For every synchronous `gpu.launch_func` in host code (after
    bufferization): each memref kernel operand is replaced by a device buffer
    (`gpu.alloc`) that gets the host data before the launch (`gpu.memcpy`);
    after the launch, the buffers the kernel may write (an argument with a
    use other than `memref.load` / `memref.dim` in the kernel and other
    than an op that declares its memory effects with no write on it and
    makes no view of it, such as `nvgpu.device_async_copy` reading it, or
    every argument of a kernel without a body) are copied back, and all device
    buffers are freed (`gpu.dealloc`). `pe-gpu-pipeline{target=nvvm}` runs it
    so that the kernels work on a discrete GPU, whatever memory the host code
    allocated. Launches with async tokens are an error.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUAlignWorkgroupMemory
    : Pass<"pe-gpu-align-workgroup-memory", "ModuleOp"> {
  let summary = "Align the workgroup buffers of asynchronous copies";
  let description = [{
    Gives each workgroup attribution of a kernel `gpu.func` that an
    `nvgpu.device_async_copy` writes an `llvm.align` of at least the copy's
    size (4, 8 or 16 bytes). `gpu-kernel-outlining` gives attributions no
    alignment (`gpu.launch` has no attribution attributes), so
    `convert-gpu-to-nvvm` declares each `.shared` array with the alignment
    of its element type, while `cp.async` of N bytes needs N-byte aligned
    shared addresses. Other attributions keep their alignment (no padding
    beyond the kernels' workgroup memory budgets).
    `pe-gpu-pipeline{target=nvvm}` runs it before `convert-gpu-to-nvvm`.
  }];
}

def GPUIntersperseBufferSizes
    : Pass<"pe-gpu-intersperse-buffer-sizes", "ModuleOp"> {
  let summary = "Follow each buffer argument of a launch by its size in bytes";
  let description = [{
    For every `gpu.launch_func` in host code whose kernel is already
    serialized (`gpu.binary`), each memref kernel operand (contiguous, with
    whole-byte elements) is followed by an `i64` operand: its size in bytes,
    computed from its (possibly dynamic) shape. With
    `gpu-to-llvm{use-bare-pointers-for-kernels}` this gives the kernel
    parameters as (pointer, size) pairs, the calling convention of pe's
    Vulkan runtime, for any shape (MLIR's own
    `intersperse-sizes-for-kernels` supports static shapes only). A launch of
    a kernel that is not serialized yet, or of a non-contiguous buffer, is an
    error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

#endif // PE_TRANSFORMS_GPU_PASSES_TD
