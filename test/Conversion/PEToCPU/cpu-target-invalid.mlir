// Bad CPU targets are errors with the reason, from the pass options or the
// module's llvm.target alike.
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=nonsense-unknown-none" 2>&1 | FileCheck %s --check-prefix=TRIPLE
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=riscv64-unknown-linux-gnu" 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=pentium9" 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu features=+avx9" 2>&1 | FileCheck %s --check-prefix=FEATURE
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu features=avx2" 2>&1 | FileCheck %s --check-prefix=SIGN
// RUN: not pe-opt %s --pe-attach-cpu-target="cpu=x86-64-v3" 2>&1 | FileCheck %s --check-prefix=NOTRIPLE
// RUN: not pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu features=-neon" 2>&1 | FileCheck %s --check-prefix=NEON
// RUN: not pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=znver99" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: pe-opt %s --split-input-file --verify-diagnostics --convert-pe-to-vector -o /dev/null

// TRIPLE: error: CPU target: unknown triple 'nonsense-unknown-none'
// ARCH: error: CPU target: the generated kernels support x86-64 and AArch64, not 'riscv64' (triple 'riscv64-unknown-linux-gnu')
// CPU: error: CPU target: unknown CPU 'pentium9' for 'x86_64-unknown-linux-gnu'
// FEATURE: error: CPU target: unknown feature 'avx9' for 'x86_64-unknown-linux-gnu' (features='+avx9')
// SIGN: error: CPU target: feature 'avx2' must be '+name' or '-name' (features='avx2')
// NOTRIPLE: error: pe-attach-cpu-target: cpu and features need a triple
// NEON: error: CPU target: the generated kernels need NEON on AArch64 (features='-neon')
// PIPELINE: error: CPU target: unknown CPU 'znver99' for 'x86_64-unknown-linux-gnu'
func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A module's own target is checked when the kernels read it.
// expected-error@+1 {{CPU target: unknown CPU 'pentium9' for 'x86_64-unknown-linux-gnu'}}
module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "pentium9">} {
  func.func @g(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = pe.add_sinusoidal interleaved %x : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
