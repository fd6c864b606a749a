// pe-run --emit-executable --pipeline=cuda: a standalone executable with the
// PTX kernels embedded and pe's CUDA runtime linked in. Its only non-system
// dependency is the NVIDIA driver, which the runtime loads with dlopen
// (libcuda.so.1, or PE_CUDA_LIBRARY): ldd lists no LLVM, MLIR, libstdc++,
// Vulkan or OpenMP library. Without a GPU, the host path runs up to the
// driver: a missing driver and the toolkit's stub give one error line and
// exit status 1. (On a GPU machine: bench/gpu/prepare.sh and run.sh.)
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/stub
// RUN: pe-run %s -e attn --pipeline=cuda --emit-executable=%t/attn \
// RUN:   | FileCheck %s --check-prefix=EMIT
// EMIT: pe-run: wrote '{{.*}}attn' (function 'attn', pipeline cuda; needs libcuda.so.1 (the NVIDIA driver) at run time
// RUN: ldd %t/attn | FileCheck %s --check-prefix=LDD
// LDD: libc.so
// LDD-NOT: {{libMLIR|libLLVM|libstdc\+\+|libc\+\+|libmlir|libvulkan|libomp|libcuda}}
//
// No driver: one line, exit status 1.
// RUN: env PE_CUDA_LIBRARY=%t.no-such-dir/libcuda.so.1 %python \
// RUN:   %S/Inputs/expect-exit.py 1 %t/attn --random-inputs --output=%t/o.npy \
// RUN:   2>&1 | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: pe-cuda-runtime: error: cannot load {{.*}}libcuda.so.1 (the NVIDIA driver): {{.*}}No such file or directory
// NODRIVER-NOT: expect-exit
// RUN: not ls %t/o.npy
//
// The toolkit's stub found as libcuda.so.1 on the loader path: the whole host
// path (module loading, allocation) up to cuInit.
// RUN: ln -s %cuda_root/lib64/stubs/libcuda.so %t/stub/libcuda.so.1
// RUN: env LD_LIBRARY_PATH=%t/stub %python %S/Inputs/expect-exit.py 1 \
// RUN:   %t/attn --random-inputs --output=%t/o.npy --repeat=3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STUB
// STUB: pe-cuda-runtime: error: cuInit failed: CUDA_ERROR_STUB_LIBRARY (a stub, not a driver) (34)
// STUB-NOT: expect-exit
//
// The arguments and inputs are checked before the driver is loaded, and
// --help needs no driver.
// RUN: env PE_CUDA_LIBRARY=%t.no-such-dir/libcuda.so.1 not %t/attn \
// RUN:   --input=%t/missing.npy --random-inputs --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT: pe-aot: error: {{.*}}missing.npy: cannot open file
// RUN: env PE_CUDA_LIBRARY=%t.no-such-dir/libcuda.so.1 %t/attn --help \
// RUN:   | FileCheck %s --check-prefix=HELP
// HELP: (pipeline cuda)
// HELP: argument 0: tensor<1x4x40x16xf16>

func.func @attn(%q: tensor<1x4x40x16xf16>, %k: tensor<1x2x40x16xf16>, %v: tensor<1x2x40x16xf16>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf16> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init0 : tensor<1x4x40x16xf16>) {causal} : tensor<1x4x40x16xf16>, tensor<1x2x40x16xf16>, tensor<1x2x40x16xf16> -> tensor<1x4x40x16xf16>
  return %0 : tensor<1x4x40x16xf16>
}
