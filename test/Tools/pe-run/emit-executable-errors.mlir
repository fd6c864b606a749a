// Errors of pe-run --emit-executable and of the executables it writes: each
// case is one error line and exit status 1 (expect-exit.py checks the exact
// status; `not` also fails on a crash), and no output file after an error.
// RUN: rm -rf %t && mkdir -p %t
//
// pe-run: flags that do not apply, an empty path, signatures it cannot run,
// a path the linker cannot write.
// RUN: not pe-run %s -e f --pipeline=cpu --emit-executable=%t/f --input=%t/ok.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLAGS
// RUN: not pe-run %s -e f --pipeline=cpu --emit-executable=%t/f --repeat=2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLAGS
// RUN: not pe-run %s -e f --pipeline=cpu --emit-executable=%t/f --check=reference 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FLAGS
// FLAGS: pe-run: error: --emit-executable only compiles: --input, --output, --random-inputs, --seed, --repeat, --check, --ranks and --shared-libs do not apply
// RUN: not pe-run %s -e f --emit-executable= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: pe-run: error: --emit-executable needs a path
// RUN: not pe-run %s -e m --pipeline=cpu --emit-executable=%t/m 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MEMREF
// MEMREF: pe-run: error: function 'm' argument 0 has unsupported type memref<4xf32>; supported are ranked tensors
// RUN: not pe-run %s -e s --pipeline=cpu --emit-executable=%t/s 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-RESULT
// SCALAR-RESULT: pe-run: error: function 's' result 0 has type f32; pe-run supports only ranked tensor results
// RUN: not pe-run %s -e f --pipeline=cpu --emit-executable=%t/no-such-dir/f 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LINK
// LINK: pe-run: error: --emit-executable: linking '{{.*}}no-such-dir/f' failed
// RUN: not ls %t/m %t/s %t/no-such-dir/f
//
// The executable: bad flags, missing inputs, bad .npy files.
// RUN: pe-run %s -e f --pipeline=cpu --emit-executable=%t/f > /dev/null
// RUN: pe-run %s -e g --pipeline=cpu --emit-executable=%t/g > /dev/null
// RUN: pe-run %s -e b --pipeline=cpu --emit-executable=%t/b > /dev/null
// RUN: pe-run %s -e dyn --pipeline=cpu --emit-executable=%t/dyn > /dev/null
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'ok=np.zeros((2, 3), dtype=np.float32)' 'n=np.int64(2)' \
// RUN:   'f64=np.zeros((2, 3))' 't32=np.zeros((3, 2), dtype=np.float32)' \
// RUN:   'r1=np.zeros(6, dtype=np.float32)' 'vec=np.zeros(2, dtype=np.int64)' \
// RUN:   'fl=np.float32(2)' 'bo=np.bool_(True)' 'big=np.int64(2**40)' \
// RUN:   'h=np.zeros(4, dtype=np.float16)' 'bad=b"hello, world"' \
// RUN:   'trunc=raw_npy("<f4", (2, 3), b"\x00" * 8)' \
// RUN:   'fortran=np.asfortranarray(np.zeros((2, 3), dtype=np.float32))' \
// RUN:   'be=np.zeros((2, 3), dtype=">f4")' 'c64=np.zeros((2, 3), dtype=np.complex64)' \
// RUN:   'q=np.ones((1, 4, 3, 16), np.float32)' 'k8=np.ones((1, 2, 8, 16), np.float32)' \
// RUN:   'v4=np.ones((1, 2, 4, 16), np.float32)'
// RUN: %python %S/Inputs/expect-exit.py 1 %t/f --bogus 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: pe-aot: error: unknown argument '--bogus' (see --help)
// UNKNOWN-NOT: expect-exit
// RUN: not %t/f --input=%t/ok.npy --input=%t/n.npy --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not %t/f --input=%t/ok.npy --input=%t/n.npy --repeat=x 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: pe-aot: error: --repeat must be an integer of at least 1, got
// RUN: not %t/f --random-inputs --seed=-1 --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: pe-aot: error: --seed: expected an unsigned integer, got '-1'
// RUN: not %t/f --output=%t/o.npy --input 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: pe-aot: error: option '--input' needs a value
// RUN: %python %S/Inputs/expect-exit.py 1 %t/f --input=%t/ok.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FEW
// FEW: pe-aot: error: function 'f' takes 2 arguments but 1 --input files were given (--random-inputs fills the rest)
// RUN: not %t/f --input=%t/ok.npy --input=%t/n.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MANY
// MANY: pe-aot: error: 3 --input files given but function 'f' takes 2 arguments
// RUN: not %t/f --input=%t/ok.npy --input=%t/n.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: pe-aot: error: function 'f' has 1 result but 0 --output files were given
// RUN: not %t/f --input=%t/missing.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: pe-aot: error: {{.*}}missing.npy: cannot open file
// RUN: not %t/f --input=%t/bad.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: pe-aot: error: {{.*}}bad.npy: not a .npy file
// RUN: %python %S/Inputs/expect-exit.py 1 %t/f --input=%t/trunc.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRUNC
// TRUNC: pe-aot: error: {{.*}}trunc.npy: data is truncated: expected 24 bytes for 6 float32 elements, found 8
// TRUNC-NOT: expect-exit
// RUN: not %t/f --input=%t/fortran.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: pe-aot: error: {{.*}}fortran.npy: fortran_order=True (column-major) arrays are not supported
// RUN: not %t/f --input=%t/be.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BIGENDIAN
// BIGENDIAN: pe-aot: error: {{.*}}be.npy: big-endian dtype '>f4' is not supported (save the array as little-endian
// RUN: not %t/f --input=%t/c64.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPLEX
// COMPLEX: pe-aot: error: {{.*}}c64.npy: complex dtype '<c8' is not supported
// RUN: %python %S/Inputs/expect-exit.py 1 %t/f --input=%t/f64.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: pe-aot: error: argument 0 (tensor<2x3xf32>) from '{{.*}}f64.npy': expected dtype float32, got float64
// RUN: %python %S/Inputs/expect-exit.py 1 %t/f --input=%t/t32.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: pe-aot: error: argument 0 (tensor<2x3xf32>) from '{{.*}}t32.npy': expected shape (2, 3), got (3, 2)
// RUN: not %t/f --input=%t/r1.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANK
// RANK: pe-aot: error: argument 0 (tensor<2x3xf32>) from '{{.*}}r1.npy': expected shape (2, 3), got (6,)
// RUN: not %t/f --input=%t/ok.npy --input=%t/vec.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-SHAPE
// SCALAR-SHAPE: pe-aot: error: argument 1 (index) from '{{.*}}vec.npy': expected a scalar (0-d or 1-element 1-d array), got shape (2,)
// RUN: not %t/f --input=%t/ok.npy --input=%t/fl.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-DTYPE
// SCALAR-DTYPE: pe-aot: error: argument 1 (index) from '{{.*}}fl.npy': expected an integer dtype, got float32
// RUN: not %t/f --input=%t/ok.npy --input=%t/bo.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-BOOL
// SCALAR-BOOL: pe-aot: error: argument 1 (index) from '{{.*}}bo.npy': expected an integer dtype, got bool
// RUN: not %t/g --input=%t/big.npy --input=%t/fl.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: pe-aot: error: argument 0 (i32) from '{{.*}}big.npy': {{.*}}1099511627776{{.*}} out of range for int32
// RUN: not %t/g --input=%t/n.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-FLOAT
// SCALAR-FLOAT: pe-aot: error: argument 1 (f32) from '{{.*}}n.npy': expected a float dtype, got int64
// RUN: not %t/b --input=%t/h.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=BF16
// BF16: pe-aot: error: argument 0 (tensor<4xbf16>) from '{{.*}}h.npy': expected dtype float32 or bfloat16, got float16
// RUN: not %t/dyn --random-inputs --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=RANDOM-DYN
// RANDOM-DYN: pe-aot: error: --random-inputs: argument 0 has type tensor<1x4x?x16xf32> with dynamic dimensions; give it an --input file
//
// A failed run-time check of the compiled code (K with 8 keys, V with 4).
// RUN: %python %S/Inputs/expect-exit.py 1 %t/dyn --input=%t/q.npy --input=%t/k8.npy \
// RUN:   --input=%t/v4.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=CHECK-FAILED
// CHECK-FAILED: pe-aot: error: run-time check failed: {{.*}}'pe.attention' op expects key and value of one sequence length
// CHECK-FAILED-NOT: expect-exit
// RUN: not ls %t/o.npy
//
// The same inputs that pe-run accepts run: a bf16 argument from float32, an
// int64 scalar for i32, float32 for f32.
// RUN: %python %S/Inputs/npy.py %t 'x4=np.array([1, 2.5, -3, 1/3], np.float32)' \
// RUN:   'i5=np.int64(5)' 'f2=np.float32(0.5)'
// RUN: %t/b --input=%t/x4.npy --output=%t/b.npy
// RUN: %t/g --input=%t/i5.npy --input=%t/f2.npy --output=%t/g.npy
// RUN: %python %S/Inputs/npy.py %t '?load("b").tolist()' '?load("g").tolist()' \
// RUN:   '?load("b").dtype' | FileCheck %s --check-prefix=VALUES
// VALUES: [2.0, 5.0, -6.0, 0.66796875]
// VALUES-NEXT: [0.5, 0.5]
// VALUES-NEXT: float32

func.func @f(%a: tensor<2x3xf32>, %n: index) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.add ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @g(%k: i32, %s: f32) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.fill ins(%s : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

func.func @b(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %r = linalg.add ins(%a, %a : tensor<4xbf16>, tensor<4xbf16>)
                  outs(%e : tensor<4xbf16>) -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

func.func @dyn(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x4x?x16xf32> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x4x?x16xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}

func.func @m(%a: memref<4xf32>) {
  return
}

func.func @s(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0] : tensor<4xf32>
  return %x : f32
}
