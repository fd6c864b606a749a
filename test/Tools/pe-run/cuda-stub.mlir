// The whole host path of pe-run --pipeline=cuda (PTX generation, JIT of the
// host code, module loading in the global constructor) up to the driver: the
// CUDA toolkit's stub libcuda answers CUDA_ERROR_STUB_LIBRARY, which pe's
// CUDA runtime reports in one line (exit status 1).
// REQUIRES: ptxas
// RUN: env PE_CUDA_LIBRARY=%cuda_root/lib64/stubs/libcuda.so not pe-run %s \
// RUN:   -e attn --random-inputs --pipeline=cuda --output=%t.npy 2>&1 | FileCheck %s
// CHECK: pe-cuda-runtime: error: cuInit failed: CUDA_ERROR_STUB_LIBRARY (a stub, not a driver) (34)
func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}
