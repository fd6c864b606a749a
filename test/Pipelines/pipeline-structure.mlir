// The passes each pipeline builds, in order (the pipelines are built from
// pass constructors; this pins the order they had as textual pipelines), and
// what each pe-cpu-pipeline option changes.

// RUN: pe-opt %s --pe-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: pe-opt %s --pe-reference-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=REF
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{fuse=false approximate-math=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{openmp=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOMP
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{threads=3 absolute-pe-row-tile=8})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{triple=aarch64-unknown-linux-gnu cpu=neoverse-n1 features=+crc})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{runtime-checks=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHECKS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-reference-pipeline{runtime-checks=false})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCHECKS
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{vector-width=8})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CPU: Pass Manager with 46 passes:
// CPU-NEXT: builtin.module(
// CPU-NEXT: pe-insert-runtime-checks
// CPU-NEXT: convert-elementwise-to-linalg
// CPU-NEXT: pe-attach-cpu-target{cpu= features= triple=}
// CPU-NEXT: pe-fold-frequencies
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: pe-fuse-encodings-into-attention
// CPU-NEXT: pe-fold-attention-scaling
// CPU-NEXT: pe-fold-attention-layout
// CPU-NEXT: pe-fuse-absolute-pe{{.*}}
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: convert-pe-to-vector
// CPU-NEXT: convert-pe-to-linalg
// CPU-NEXT: pe-approximate-math
// CPU-NEXT: pe-expand-bf16-conversions
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: cse
// CPU-NEXT: one-shot-bufferize{{.*}}
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: cse
// CPU-NEXT: expand-realloc{{.*}}
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: ownership-based-buffer-deallocation{{.*}}
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: buffer-deallocation-simplification
// CPU-NEXT: bufferization-lower-deallocations
// CPU-NEXT: cse
// CPU-NEXT: canonicalize{{.*}}
// CPU-NEXT: convert-bufferization-to-memref
// CPU-NEXT: convert-linalg-to-loops
// CPU-NEXT: convert-scf-to-openmp{{.*}}
// CPU-NEXT: convert-vector-to-scf{{.*}}
// CPU-NEXT: lower-affine
// CPU-NEXT: expand-strided-metadata
// CPU-NEXT: lower-affine
// CPU-NEXT: finalize-memref-to-llvm{{.*}}
// CPU-NEXT: convert-scf-to-cf{{.*}}
// CPU-NEXT: convert-vector-to-llvm{{.*}}
// CPU-NEXT: convert-openmp-to-llvm
// CPU-NEXT: convert-math-to-llvm{{.*}}
// CPU-NEXT: convert-math-to-libm
// CPU-NEXT: convert-arith-to-llvm{{.*}}
// CPU-NEXT: convert-index-to-llvm{{.*}}
// CPU-NEXT: convert-func-to-llvm{{.*}}
// CPU-NEXT: convert-cf-to-llvm{{.*}}
// CPU-NEXT: convert-ub-to-llvm{{.*}}
// CPU-NEXT: reconcile-unrealized-casts
// CPU-NEXT: )

// REF: Pass Manager with 30 passes:
// REF-NEXT: builtin.module(
// REF-NEXT: pe-insert-runtime-checks
// REF-NEXT: convert-elementwise-to-linalg
// REF-NEXT: convert-pe-to-linalg
// REF-NEXT: canonicalize{{.*}}
// REF-NEXT: cse
// REF-NEXT: one-shot-bufferize{{.*}}
// REF-NEXT: canonicalize{{.*}}
// REF-NEXT: cse
// REF-NEXT: expand-realloc{{.*}}
// REF-NEXT: canonicalize{{.*}}
// REF-NEXT: ownership-based-buffer-deallocation{{.*}}
// REF-NEXT: canonicalize{{.*}}
// REF-NEXT: buffer-deallocation-simplification
// REF-NEXT: bufferization-lower-deallocations
// REF-NEXT: cse
// REF-NEXT: canonicalize{{.*}}
// REF-NEXT: convert-bufferization-to-memref
// REF-NEXT: convert-linalg-to-loops
// REF-NEXT: expand-strided-metadata
// REF-NEXT: lower-affine
// REF-NEXT: finalize-memref-to-llvm{{.*}}
// REF-NEXT: convert-scf-to-cf{{.*}}
// REF-NEXT: convert-cf-to-llvm{{.*}}
// REF-NEXT: convert-math-to-llvm{{.*}}
// REF-NEXT: convert-math-to-libm
// REF-NEXT: convert-arith-to-llvm{{.*}}
// REF-NEXT: convert-index-to-llvm{{.*}}
// REF-NEXT: convert-func-to-llvm{{.*}}
// REF-NEXT: convert-ub-to-llvm{{.*}}
// REF-NEXT: reconcile-unrealized-casts
// REF-NEXT: )

// NOFUSE: pe-fold-frequencies
// NOFUSE-NOT: pe-fuse
// NOFUSE-NOT: pe-fold-attention-scaling
// NOFUSE-NOT: pe-fold-attention-layout
// NOFUSE-NOT: pe-approximate-math
// NOFUSE: convert-pe-to-vector
// NOFUSE-NEXT: convert-pe-to-linalg
// NOFUSE-NEXT: pe-expand-bf16-conversions
// NOFUSE-NEXT: canonicalize
// NOFUSE: convert-scf-to-openmp

// NOOMP: pe-fuse-absolute-pe
// NOOMP-NOT: openmp
// NOOMP: convert-vector-to-scf
// NOOMP-NOT: openmp
// NOOMP: reconcile-unrealized-casts

// OPTS: pe-fuse-absolute-pe{row-tile=8}
// OPTS: convert-scf-to-openmp{num-threads=3}

// TARGET: pe-attach-cpu-target{cpu=neoverse-n1 features=+crc triple=aarch64-unknown-linux-gnu}
// TARGET-NEXT: pe-fold-frequencies

// NOCHECKS-NOT: pe-insert-runtime-checks
// NOCHECKS: convert-pe-to-linalg
// NOCHECKS-NOT: pe-insert-runtime-checks

// UNKNOWN: no such option vector-width

module {}
