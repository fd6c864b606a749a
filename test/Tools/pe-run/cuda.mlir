// pe-run --pipeline=cuda without a usable NVIDIA driver: one error line from
// pe's CUDA runtime and exit status 1, not a crash. (On a machine with a GPU,
// bench/gpu/run.sh runs the execution tests through this pipeline.)
// RUN: env PE_CUDA_LIBRARY=%t.no-such-dir/libcuda.so.1 not pe-run %s -e attn \
// RUN:   --random-inputs --pipeline=cuda --check=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: pe-cuda-runtime: error: cannot load {{.*}}libcuda.so.1 (the NVIDIA driver): {{.*}}No such file or directory
// NODRIVER-NOT: pe-run: check result
func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}
