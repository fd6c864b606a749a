// pe-cpu-pipeline compiles for the target its options name, whatever machine
// runs it: the kernels' vectors and the LLVM translation (target triple,
// "target-cpu" and "target-features" of each function) follow the target,
// so that the backend (here llc, with no target flags of its own) emits
// AVX-512 code for an AVX-512 target on any host, no AVX-512 for an AVX2
// target on an AVX-512 host, and NEON for AArch64.
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4 features=+avx512bf16" -o %t.v4.mlir
// RUN: FileCheck %s --check-prefix=MLIR512 < %t.v4.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.v4.mlir | FileCheck %s --check-prefix=IR512
// RUN: mlir-translate --mlir-to-llvmir %t.v4.mlir | llc -O2 -relocation-model=pic | FileCheck %s --check-prefix=ASM512
// RUN: pe-opt %s --pe-cpu-pipeline="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" | mlir-translate --mlir-to-llvmir -o %t.v3.ll
// RUN: FileCheck %s --check-prefix=IR256 < %t.v3.ll
// RUN: llc -O2 -relocation-model=pic %t.v3.ll -o - | FileCheck %s --check-prefix=ASM256
// RUN: pe-opt %s --pe-cpu-pipeline="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" | mlir-translate --mlir-to-llvmir | llc -O2 -relocation-model=pic | FileCheck %s --check-prefix=NEON

// MLIR512: module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v4", features = <["+avx512bf16"]>>
// MLIR512: llvm.func @attn(
// MLIR512-SAME: target_cpu = "x86-64-v4"
// MLIR512-SAME: target_features = #llvm.target_features<["+avx512bf16"]>
// MLIR512: llvm.intr.fmuladd{{.*}} : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>

// IR512: target triple = "x86_64-unknown-linux-gnu"
// IR512: define {{.*}} @attn({{.*}} #[[ATTRS:[0-9]+]]
// IR512: attributes #[[ATTRS]] = { {{.*}}"target-cpu"="x86-64-v4" "target-features"="+avx512bf16"

// ASM512-LABEL: attn:
// ASM512: vfmadd{{[0-9]+}}ps{{.*}}%zmm

// IR256: target triple = "x86_64-unknown-linux-gnu"
// IR256: <8 x float>
// IR256-NOT: <16 x float>
// IR256: attributes #{{[0-9]+}} = { {{.*}}"target-cpu"="x86-64-v3"

// ASM256-LABEL: attn:
// ASM256-NOT: %zmm
// ASM256: vfmadd{{[0-9]+}}ps{{.*}}%ymm
// ASM256-NOT: %zmm

// NEON-LABEL: attn:
// NEON: fmla v{{[0-9]+}}.4s
// NEON-NOT: z{{[0-9]+}}.s

func.func @attn(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32> {
  %init = tensor.empty() : tensor<1x2x64x32xf32>
  %o = pe.attention %q, %k, %k outs(%init : tensor<1x2x64x32xf32>) {causal} : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x2x64x32xf32>
  return %o : tensor<1x2x64x32xf32>
}
