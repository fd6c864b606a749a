//===- GPUPipeline.cpp - pe-gpu-pipeline ----------------------------------===//
//
// Part of the pe-mlir project.
//
// Built from pass constructors like the CPU pipelines; `pe-opt
// --pe-gpu-pipeline=target=spirv --dump-pass-pipeline` prints it
// (test/Pipelines/gpu-pipeline-structure.mlir checks it).
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Pipelines/Pipelines.h"
#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/SPIRV/Target.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// One-shot bufferization of the host code (identity layouts at function
/// boundaries, as the CPU pipelines), with buffer deallocation nested on
/// func.func: the kernels (gpu.func, already outlined) use gpu.barrier, whose
/// memory effects are unknown to the deallocation pass.
static void addHostBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(memref::createExpandReallocPass());
  func.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  func.addPass(createCanonicalizerPass());
  func.addPass(bufferization::createBufferDeallocationSimplificationPass());
  func.addPass(bufferization::createLowerDeallocationsPass());
  func.addPass(createCSEPass());
  func.addPass(createCanonicalizerPass());
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createConvertLinalgToLoopsPass());
}

/// The host code (func.func) to the LLVM dialect, except the GPU ops.
static void addHostLowering(OpPassManager &pm) {
  OpPassManager &func = pm.nest<func::FuncOp>();
  func.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
}

void mlir::pe::buildGPUPipeline(OpPassManager &pm,
                                const GPUPipelineOptions &options) {
  bool spirv = options.target == GPUTarget::SPIRV;

  // Run-time size checks (on the host), compile-time folding and fusion, as
  // in pe-cpu-pipeline.
  if (options.runtimeChecks)
    pm.addPass(createInsertRuntimeChecks());
  addElementwiseToLinalg(pm);
  pm.addPass(createFoldFrequencies());
  pm.addPass(createCanonicalizerPass());
  if (options.fuse) {
    pm.addPass(createFuseEncodingsIntoAttention());
    pm.addPass(createFoldAttentionScaling());
    pm.addPass(createFoldAttentionLayout());
  }
  pm.addPass(createCanonicalizerPass());

  // Kernels for attention and RoPE; everything else on the host through the
  // reference lowering.
  ConvertPEToGPUOptions kernels;
  kernels.blockRows = options.blockRows;
  kernels.keyTile = options.keyTile;
  kernels.decodeSplitKeys = options.decodeSplitKeys;
  // The K/V tiles are static workgroup memory: 48 KiB is what a CUDA kernel
  // may declare statically; lavapipe, which runs the SPIR-V kernels here,
  // reports a maxComputeSharedMemorySize of 32 KiB (Vulkan guarantees only
  // 16 KiB; set shared-memory-bytes for another device).
  kernels.sharedMemoryBytes = options.sharedMemoryBytes
                                  ? options.sharedMemoryBytes.getValue()
                                  : (spirv ? 32768 : 49152);
  // bf16 kernels on SPIR-V too: pe-gpu-bf16-storage below.
  kernels.allowBF16 = true;
  kernels.tensorCores = options.tensorCores;
  // SPIR-V has no mma.sync: no chip, so tensor-cores=auto keeps the SIMT
  // kernel there (and says so).
  kernels.chip = spirv ? "" : options.chip.getValue();
  pm.addPass(createConvertPEToGPU(kernels));
  // Constants into the kernels (else they become kernel parameters), then
  // outlining, before any canonicalization could fold a kernel's load from a
  // host tensor's buffer into a tensor.extract inside the kernel.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createConvertPEToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addHostBufferization(pm);

  if (spirv) {
    pm.addPass(createPrepareGPUForSPIRV());
    // SPIR-V 1.3 has no bf16: bf16 buffers as i16, conversions as integer
    // operations on their bits.
    pm.addPass(createGPUBF16Storage());
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    OpPassManager &kernelArith = pm.nest<gpu::GPUModuleOp>();
    kernelArith.addPass(arith::createArithExpandOpsPass(expand));
    kernelArith.addPass(createCanonicalizerPass());
    GpuSPIRVAttachTargetOptions target;
    target.spirvVersion = "v1.3";
    // spirv-update-vce keeps only what the kernels use: f16 kernels need
    // Float16 and 16-bit storage buffers, the sinusoidal kernel Float64
    // (Vulkan shaderFloat16, storageBuffer16BitAccess, shaderFloat64, which
    // the runtime enables where the device has them).
    target.spirvCapabilities = {"Shader",  "Int64",
                                "Int16",   "Float16",
                                "Float64", "StorageBuffer16BitAccess"};
    target.spirvExtensions = {"SPV_KHR_storage_buffer_storage_class",
                              "SPV_KHR_16bit_storage"};
    pm.addPass(createGpuSPIRVAttachTarget(target));
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertMathToSPIRVPass());
    pm.addPass(createConvertGPUToSPIRVPass(/*mapMemorySpace=*/true));
    pm.addPass(createNestSPIRVModules());
    OpPassManager &spirvModule =
        pm.nest<gpu::GPUModuleOp>().nest<spirv::ModuleOp>();
    spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
    spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
    pm.addPass(createGpuModuleToBinaryPass());
    // Each memref kernel argument is passed as its aligned pointer followed
    // by its size in bytes, for any shape: what the Vulkan runtime binds as a
    // storage buffer.
    pm.addPass(createGPUIntersperseBufferSizes());
    addHostLowering(pm);
    GpuToLLVMConversionPassOptions host;
    host.kernelBarePtrCallConv = true;
    pm.addPass(createGpuToLLVMConversionPass(host));
  } else {
    if (options.deviceBuffers)
      pm.addPass(createGPUDeviceBuffers());
    GpuNVVMAttachTargetOptions target;
    target.chip = options.chip;
    target.features = options.features;
    target.optLevel = 3;
    pm.addPass(createGpuNVVMAttachTarget(target));
    // .shared arrays aligned for the tensor-core kernel's cp.async.
    pm.addPass(createGPUAlignWorkgroupMemory());
    OpPassManager &kernel = pm.nest<gpu::GPUModuleOp>();
    kernel.addPass(createStripDebugInfoPass());
    kernel.addPass(createSCFToControlFlowPass());
    // nvgpu.mma.sync of the tensor-core kernel.
    kernel.addPass(createConvertNVGPUToNVVMPass());
    kernel.addPass(createConvertGpuOpsToNVVMOps());
    kernel.addPass(createCanonicalizerPass());
    kernel.addPass(createCSEPass());
    kernel.addPass(createReconcileUnrealizedCastsPass());
    addHostLowering(pm);
    pm.addPass(createGpuToLLVMConversionPass());
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = options.format;
    binary.toolkitPath = options.toolkit;
    pm.addPass(createGpuModuleToBinaryPass(binary));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::pe::registerGPUPipelineDialects(DialectRegistry &registry) {
  registerPipelineDialects(registry);
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, spirv::SPIRVDialect>();
  // gpu-module-to-binary: the targets' serialization, and the LLVM IR
  // translation of the kernels (nvvm) and of the host code's gpu ops.
  // convert-gpu-to-nvvm and gpu-to-llvm take the patterns of every dialect
  // in the kernels / host code from its ConvertToLLVMPatternInterface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  spirv::registerSPIRVTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
}
