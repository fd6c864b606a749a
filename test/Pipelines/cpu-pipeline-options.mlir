// pe-cpu-pipeline options change the generated code: the OpenMP thread count,
// sequential loops without OpenMP, no fusion (the rope stays a kernel of its
// own), and the LLVM tanh instead of the polynomial one.

// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{threads=3})' | FileCheck %s --check-prefix=THREADS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{openmp=false})' | FileCheck %s --check-prefix=NOOMP
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{fuse=false})' | FileCheck %s --check-prefix=NOFUSE
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline)' | FileCheck %s --check-prefix=POLY
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{approximate-math=false})' | FileCheck %s --check-prefix=LIBM

// THREADS-LABEL: llvm.func @block
// THREADS: %[[N:.*]] = llvm.mlir.constant(3 : i32) : i32
// THREADS: omp.parallel num_threads(%[[N]] : i32)

// NOOMP-NOT: omp.
// NOOMP-LABEL: llvm.func @block
// NOOMP-NOT: omp.
// NOOMP: llvm.intr.fma
// NOOMP-NOT: omp.

// A separate rope kernel writes the rotated queries before the attention
// kernel reads them: one more parallel region.
// NOFUSE-LABEL: llvm.func @block
// NOFUSE-COUNT-2: omp.parallel
// NOFUSE-NOT: omp.parallel
// NOFUSE-LABEL: llvm.func @capped

// The softcap's tanh: a polynomial by default, the LLVM intrinsic (libm)
// without approximate-math.
// POLY-LABEL: llvm.func @capped
// POLY-NOT: llvm.intr.tanh
// LIBM-LABEL: llvm.func @capped
// LIBM: llvm.intr.tanh

func.func @block(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> tensor<1x4x?x64xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<32xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) attention_scaling(%m) : tensor<1x4x?x64xf32>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %qr, %attn_c2_0 : tensor<1x4x?x64xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x64xf32>
  %o = pe.attention %qr, %k, %v outs(%attn_init0 : tensor<1x4x?x64xf32>) {causal} : tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}

func.func @capped(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>)
    -> tensor<1x4x?x64xf32> {
  %attn_c2_1 = arith.constant 2 : index
  %attn_d0_2_1 = tensor.dim %q, %attn_c2_1 : tensor<1x4x?x64xf32>
  %attn_init1 = tensor.empty(%attn_d0_2_1) : tensor<1x4x?x64xf32>
  %o = pe.attention %q, %k, %v outs(%attn_init1 : tensor<1x4x?x64xf32>) {causal, softcap = 30.0 : f64} : tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}
