// pe-attach-cpu-target writes the target on the module and its functions,
// for the kernels (llvm.target) and the LLVM translation (llvm.target_triple,
// target_cpu, target_features). A module's own llvm.target is kept when the
// pass names none; the options override it.
// RUN: pe-opt %s --split-input-file --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3 features=+avx512bf16,-avx512bf16" | FileCheck %s --check-prefix=OPTS
// RUN: pe-opt %s --split-input-file --pe-attach-cpu-target | FileCheck %s --check-prefix=KEEP

// OPTS: module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3", features = <["+avx512bf16", "-avx512bf16"]>>, llvm.target_triple = "x86_64-unknown-linux-gnu"}
// OPTS: func.func @f() attributes {target_cpu = "x86-64-v3", target_features = #llvm.target_features<["+avx512bf16", "-avx512bf16"]>}
// OPTS: func.func private @external()
// OPTS-NOT: target_cpu
func.func @f() {
  return
}
func.func private @external()

// -----

// KEEP: module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">, llvm.target_triple = "aarch64-unknown-linux-gnu"}
// KEEP: func.func @g() attributes {target_cpu = "neoverse-n1"}
// OPTS: module attributes {llvm.target = #llvm.target<triple = "x86_64-unknown-linux-gnu", chip = "x86-64-v3"
module attributes {llvm.target = #llvm.target<triple = "aarch64-unknown-linux-gnu", chip = "neoverse-n1">} {
  func.func @g() {
    return
  }
}
