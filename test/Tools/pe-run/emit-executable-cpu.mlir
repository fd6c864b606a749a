// pe-run --emit-executable --pipeline=cpu: a standalone executable of the
// fused RoPE + causal GQA attention (pe-cpu-pipeline, generated kernel), run
// on .npy inputs and compared with the float64 reference (pe_ref.py) and
// with pe-run's JIT of the same pipeline.
// Tolerance vs float64: rtol 1e-5, atol 1e-6, pe-run's defaults (f32 inputs;
// the CPU pipeline's polynomial exp/sin/cos and f32 accumulation; measured
// max_abs 7.2e-8).
// AOT vs JIT: the same lowering, optimized at O3 for the same host CPU: equal
// (atol 0).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/aot_attention.py %t float32 40
// RUN: pe-run %s -e attn --pipeline=cpu --emit-executable=%t/attn \
// RUN:   | FileCheck %s --check-prefix=EMIT
// EMIT: pe-run: wrote '{{.*}}attn' (function 'attn', pipeline cpu; needs
// RUN: %t/attn --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: pe-run %s -e attn --pipeline=cpu --input=%t/q.npy --input=%t/k.npy \
// RUN:   --input=%t/v.npy --input=%t/f.npy --output=%t/jit.npy
// RUN: %npycmp %t/out.npy %t/jit.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS
//
// --random-inputs gives pe-run's data (same seed, same result); --repeat
// times the calls; --help prints the signature.
// RUN: %t/attn --random-inputs --seed=7 --output=%t/r.npy --repeat=2 \
// RUN:   | FileCheck %s --check-prefix=TIME
// TIME: pe-aot: time pipeline=cpu runs=2 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}}
// RUN: pe-run %s -e attn --pipeline=cpu --random-inputs --seed=7 --output=%t/rjit.npy
// RUN: %npycmp %t/r.npy %t/rjit.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %t/attn --help | FileCheck %s --check-prefix=HELP
// HELP: runs 'attn', compiled ahead of time by pe-run --emit-executable
// HELP: Compiled for this CPU: {{.+}} (pe-run's host).
// HELP: argument 0: tensor<1x4x40x16xf32>
// HELP: argument 3: tensor<8xf64>
// HELP: result 0: tensor<1x4x40x16xf32>
//
// The code is for pe-run's host CPU: on a CPU without one of its features
// (here made to look missing) the executable stops before the first call.
// RUN: env PE_AOT_ASSUME_MISSING=sse4.2 %python %S/Inputs/expect-exit.py 1 \
// RUN:   %t/attn --random-inputs --output=%t/x.npy 2>&1 | FileCheck %s --check-prefix=HOSTCPU
// HOSTCPU: pe-aot: error: this executable was compiled for the CPU of the machine that ran pe-run ({{.+}}); this CPU lacks sse4.2
// HOSTCPU-NOT: expect-exit
// RUN: not ls %t/x.npy
//
// Dynamic sequence length: the executable takes the sizes from the files
// (here T = 40 for q, k and v).
// RUN: pe-run %s -e dyn --pipeline=cpu --emit-executable=%t/dyn > /dev/null
// RUN: %t/dyn --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --input=%t/f.npy --output=%t/dyn.npy
// RUN: %npycmp %t/dyn.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
//
// No LLVM or MLIR library at run time (libstdc++ is linked in).
// RUN: ldd %t/attn | FileCheck %s --check-prefix=LDD
// LDD: libc.so
// LDD-NOT: {{libMLIR|libLLVM|libstdc\+\+|libc\+\+|libmlir}}

func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}

func.func @dyn(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x?x16xf32> {
  %attn_c2_1 = arith.constant 2 : index
  %attn_d0_2_1 = tensor.dim %q, %attn_c2_1 : tensor<1x4x?x16xf32>
  %attn_init1 = tensor.empty(%attn_d0_2_1) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init1 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}
