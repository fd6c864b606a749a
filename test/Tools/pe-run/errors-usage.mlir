// Bad usage: each case is one 'pe-run: error:' line (or cl's message) and a
// non-zero exit status (`not` also fails on a crash).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'a=np.zeros(4, dtype=np.float32)'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --input=%t/a.npy \
// RUN:   --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// TOO-MANY: pe-run: error: 3 --input files given but function 'add' takes 2 arguments
//
// RUN: not pe-run %s -e add --input=%t/a.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TOO-FEW
// TOO-FEW: pe-run: error: function 'add' takes 2 arguments but 1 --input files were given (--random-inputs fills the rest)
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-OUTPUT
// NO-OUTPUT: pe-run: error: function 'add' has 1 result but 0 --output files were given
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --output=%t/o.npy \
// RUN:   --output=%t/p.npy --check=reference 2>&1 | FileCheck %s --check-prefix=TWO-OUTPUTS
// TWO-OUTPUTS: pe-run: error: function 'add' has 1 result but 2 --output files were given
//
// RUN: not pe-run %s -e nope --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN-FUNC
// UNKNOWN-FUNC: pe-run: error: no func.func named 'nope' in '{{.*}}errors-usage.mlir'; available: add, scalar_result, memref_arg, unranked_arg, tuple_arg{{$}}
//
// RUN: not pe-run %s -e decl --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: pe-run: error: function 'decl' in '{{.*}}' is a declaration; available: add,
//
// RUN: not pe-run %s -e scalar_result --input=%t/a.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RESULT
// RESULT: pe-run: error: function 'scalar_result' result 0 has type f32; pe-run supports only ranked tensor results
//
// RUN: not pe-run %s -e memref_arg --input=%t/a.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MEMREF
// MEMREF: pe-run: error: function 'memref_arg' argument 0 has unsupported type memref<4xf32>; supported are
//
// RUN: not pe-run %s -e unranked_arg --input=%t/a.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNRANKED
// UNRANKED: pe-run: error: function 'unranked_arg' argument 0 has unsupported type tensor<*xf32>
//
// RUN: not pe-run %s -e tuple_arg --random-inputs --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TUPLE
// TUPLE: pe-run: error: function 'tuple_arg' argument 1 has unsupported type tensor<4xui8>
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPEAT0
// REPEAT0: pe-run: error: --repeat must be at least 1, got 0
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=-3 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPEAT-NEG
// REPEAT-NEG: pe-run: error: --repeat must be at least 1, got -3
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=many 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPEAT-NAN
// REPEAT-NAN: pe-run: error: --repeat must be an integer in [-2147483648, 2147483647], not 'many'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --roofline 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ROOF-NOREPEAT
// ROOF-NOREPEAT: pe-run: error: --roofline needs --repeat (it times the calls)
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=2 \
// RUN:   --roofline --pipeline=vulkan 2>&1 | FileCheck %s --check-prefix=ROOF-GPU
// ROOF-GPU: pe-run: error: --roofline measures host memory: it applies to the reference and cpu pipelines, not to 'vulkan'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=2 \
// RUN:   --roofline --check=cuda 2>&1 | FileCheck %s --check-prefix=ROOF-CHECK-GPU
// ROOF-CHECK-GPU: pe-run: error: --roofline measures host memory: it applies to the reference and cpu pipelines, not to 'cuda'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --flops=1e9 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLOPS-NOREPEAT
// FLOPS-NOREPEAT: pe-run: error: --flops needs --repeat (it times the calls)
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=1 \
// RUN:   --flops=0 2>&1 | FileCheck %s --check-prefix=FLOPS-ZERO
// FLOPS-ZERO: pe-run: error: --flops must be a positive, finite number of operations, got 0
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=1 \
// RUN:   --flops=-5e3 2>&1 | FileCheck %s --check-prefix=FLOPS-NEG
// FLOPS-NEG: pe-run: error: --flops must be a positive, finite number of operations, got -5000
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=1 \
// RUN:   --flops=nan 2>&1 | FileCheck %s --check-prefix=FLOPS-NAN
// FLOPS-NAN: pe-run: error: --flops must be a positive, finite number of operations, got nan
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=1 \
// RUN:   --flops=1e999 2>&1 | FileCheck %s --check-prefix=FLOPS-INF
// FLOPS-INF: pe-run: error: --flops must be a positive, finite number of operations, got inf
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=1 \
// RUN:   --flops=many 2>&1 | FileCheck %s --check-prefix=FLOPS-WORD
// FLOPS-WORD: pe-run: error: --flops must be a number, not 'many'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=2 \
// RUN:   --flops=1e9 --pipeline=vulkan 2>&1 | FileCheck %s --check-prefix=FLOPS-GPU
// FLOPS-GPU: pe-run: error: --flops measures the host's compute peak: it applies to the reference and cpu pipelines, not to 'vulkan'
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --repeat=2 \
// RUN:   --flops=1e9 --check=cuda 2>&1 | FileCheck %s --check-prefix=FLOPS-CHECK-GPU
// FLOPS-CHECK-GPU: pe-run: error: --flops measures the host's compute peak: it applies to the reference and cpu pipelines, not to 'cuda'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --output=%t/o.npy \
// RUN:   --pipeline=fast 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: pe-run: error: unknown pipeline 'fast'; known pipelines: reference
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --check=numpy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHECK-PIPELINE
// CHECK-PIPELINE: pe-run: error: unknown --check pipeline 'numpy'; known pipelines: reference
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --check=reference \
// RUN:   --rtol=-1 2>&1 | FileCheck %s --check-prefix=RTOL
// RTOL: pe-run: error: --rtol and --atol must be finite and non-negative
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --output=%t/o.npy \
// RUN:   --shared-libs=%t/libnothere.so 2>&1 | FileCheck %s --check-prefix=LIB
// LIB: pe-run: error: --shared-libs: cannot find '{{.*}}libnothere.so'
//
// RUN: not pe-run %s -e add --input=%t/a.npy --input=%t/a.npy --output=%t/o.npy \
// RUN:   --frobnicate 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: pe-run: Unknown command line argument '--frobnicate'.
//
// RUN: not pe-run %s --input=%t/a.npy 2>&1 | FileCheck %s --check-prefix=NO-E
// NO-E: pe-run: for the -e option: must be specified at least once!
//
// RUN: not pe-run -e add 2>&1 | FileCheck %s --check-prefix=NO-FILE
// NO-FILE: pe-run: Not enough positional command line arguments specified!
//
// No output file is written after an error.
// RUN: not ls %t/o.npy

func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%a, %b : tensor<4xf32>, tensor<4xf32>)
                  outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @scalar_result(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %r = tensor.extract %a[%c0] : tensor<4xf32>
  return %r : f32
}

func.func @memref_arg(%a: memref<4xf32>) -> tensor<4xf32> {
  %r = bufferization.to_tensor %a restrict : memref<4xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @unranked_arg(%a: tensor<*xf32>) -> tensor<4xf32> {
  %r = tensor.cast %a : tensor<*xf32> to tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @tuple_arg(%a: tensor<4xf32>, %b: tensor<4xui8>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

func.func private @decl(%a: tensor<4xf32>) -> tensor<4xf32>
