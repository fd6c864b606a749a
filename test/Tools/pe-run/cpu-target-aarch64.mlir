// pe-run --emit-executable for an AArch64 NEON target (neoverse-n1: 4-lane
// kernels), run under qemu-aarch64 on a CPU model without SVE, against the
// float64 reference (pe_ref.py) at pe-run's default tolerance (rtol 1e-5,
// atol 1e-6, as on x86: f32 inputs, the CPU pipeline's polynomial math).
// Sequential loops: pe links no AArch64 OpenMP runtime.
// REQUIRES: aarch64-cross
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/aot_attention.py %t float32 40
// RUN: pe-run %s -e attn --pipeline=cpu --target-triple=aarch64-unknown-linux-gnu \
// RUN:   --target-cpu=neoverse-n1 --cpu-openmp=false --emit-executable=%t/a64 \
// RUN:   | FileCheck %s --check-prefix=EMIT
// EMIT: pe-run: wrote '{{.*}}a64' (function 'attn', pipeline cpu; needs only libc and libm at run time
// RUN: llvm-objdump -d --no-show-raw-insn %t/a64 | FileCheck %s --check-prefix=NEON
// NEON: file format elf64-littleaarch64
// NEON: fmla v{{[0-9]+}}.4s
// RUN: %qemu_aarch64 %t/a64 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --input=%t/f.npy --output=%t/a64.npy
// RUN: %npycmp %t/a64.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS
//
// With OpenMP (the default), there is no runtime to link for AArch64.
// RUN: not pe-run %s -e attn --pipeline=cpu --target-triple=aarch64-unknown-linux-gnu \
// RUN:   --emit-executable=%t/omp 2>&1 | FileCheck %s --check-prefix=OMP
// OMP: pe-run: error: --emit-executable: the code for 'aarch64-unknown-linux-gnu' calls the OpenMP runtime, which pe does not link for that target: compile it without OpenMP (--cpu-openmp=false, pe-cpu-pipeline{openmp=false})

func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}
