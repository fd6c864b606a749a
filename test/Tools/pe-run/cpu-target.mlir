// pe-run --target-triple/--target-cpu/--target-features: the cpu pipeline's
// code is compiled for that target (pe-cpu-pipeline{triple cpu features}),
// in the JIT and in --emit-executable, instead of for this machine. The
// fused RoPE + causal GQA attention of emit-executable-cpu.mlir, compared
// with the float64 reference (pe_ref.py) at pe-run's default tolerance
// (rtol 1e-5, atol 1e-6; f32 inputs, the CPU pipeline's polynomial math).
// REQUIRES: host-avx2
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/aot_attention.py %t float32 40
//
// AVX2 + FMA (x86-64-v3, 8-lane kernels), run natively: the executable has
// 256-bit FMAs and no AVX-512 register anywhere.
// RUN: pe-run %s -e attn --pipeline=cpu --target-triple=x86_64-unknown-linux-gnu \
// RUN:   --target-cpu=x86-64-v3 --emit-executable=%t/v3 | FileCheck %s --check-prefix=EMIT
// EMIT: pe-run: wrote '{{.*}}v3' (function 'attn', pipeline cpu;
// RUN: %t/v3 --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --input=%t/f.npy --output=%t/v3.npy
// RUN: %npycmp %t/v3.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: llvm-objdump -d --no-show-raw-insn %t/v3 | FileCheck %s --check-prefix=V3 --implicit-check-not=zmm
// V3: vfmadd{{[0-9]+}}ps{{.*}}%ymm
// The executable checks the target's features (x86-64-v3's, from its CPU)
// before the first call.
// RUN: env PE_AOT_ASSUME_MISSING=avx2 %python %S/Inputs/expect-exit.py 1 \
// RUN:   %t/v3 --random-inputs --output=%t/x.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: pe-aot: error: {{.*}}(x86-64-v3); this CPU lacks avx2
//
// The JIT with the same target, and with an SSE2-only x86-64 (4-lane
// kernels, the width of NEON).
// RUN: pe-run %s -e attn --pipeline=cpu --target-triple=x86_64-unknown-linux-gnu \
// RUN:   --target-cpu=x86-64-v3 --input=%t/q.npy --input=%t/k.npy \
// RUN:   --input=%t/v.npy --input=%t/f.npy --output=%t/jit-v3.npy
// RUN: %npycmp %t/jit-v3.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: pe-run %s -e attn --pipeline=cpu --target-triple=x86_64-unknown-linux-gnu \
// RUN:   --target-cpu=x86-64 --input=%t/q.npy --input=%t/k.npy \
// RUN:   --input=%t/v.npy --input=%t/f.npy --output=%t/jit-v1.npy
// RUN: %npycmp %t/jit-v1.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS
//
// An AVX-512 target gets AVX-512 code whatever this machine has (the
// executable is only compiled here, not run; attn_d32: the 16-lane kernel
// needs whole vectors of rotated pairs, which attn's 8 pairs are not).
// RUN: pe-run %s -e attn_d32 --pipeline=cpu --target-triple=x86_64-unknown-linux-gnu \
// RUN:   --target-cpu=x86-64-v4 --emit-executable=%t/v4 > /dev/null
// RUN: llvm-objdump -d --no-show-raw-insn %t/v4 | FileCheck %s --check-prefix=V4
// V4: vfmadd{{[0-9]+}}ps{{.*}}%zmm
//
// Errors.
// RUN: not pe-run %s -e attn --pipeline=cpu --target-cpu=x86-64-v3 --random-inputs 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTRIPLE
// NOTRIPLE: pe-run: error: --target-cpu and --target-features need --target-triple
// RUN: not pe-run %s -e attn --pipeline=cpu --target-triple=aarch64-unknown-linux-gnu \
// RUN:   --random-inputs --output=%t/jit-a64.npy 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: pe-run: error: the code is for 'aarch64-unknown-linux-gnu', which this machine ({{.*}}) cannot run; --emit-executable writes an executable for it
// RUN: not pe-run %s -e attn --pipeline=cpu --target-triple=x86_64-unknown-linux-gnu \
// RUN:   --target-features=+avx9 --random-inputs --output=%t/x.npy 2>&1 | FileCheck %s --check-prefix=FEATURE
// FEATURE: error: CPU target: unknown feature 'avx9' for 'x86_64-unknown-linux-gnu' (features='+avx9')

func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}

func.func @attn_d32(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %init = tensor.empty() : tensor<1x2x64x32xf32>
  %0 = pe.attention %q, %k, %k outs(%init : tensor<1x2x64x32xf32>) {causal} : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}
