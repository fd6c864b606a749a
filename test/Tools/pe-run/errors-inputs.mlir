// Bad input data: each case is one 'pe-run: error:' line and a non-zero exit
// status (`not` also fails on a crash).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'ok=np.zeros((2, 3), dtype=np.float32)' 'n=np.int64(2)' \
// RUN:   'f64=np.zeros((2, 3))' 't32=np.zeros((3, 2), dtype=np.float32)' \
// RUN:   'r1=np.zeros(6, dtype=np.float32)' 'vec=np.zeros(2, dtype=np.int64)' \
// RUN:   'fl=np.float32(2)' 'bo=np.bool_(True)' 'big=np.int64(2**40)' \
// RUN:   'h=np.zeros(4, dtype=np.float16)' 'bad=b"hello, world"' \
// RUN:   'trunc=raw_npy("<f4", (2, 3), b"\x00" * 8)'
//
// RUN: not pe-run %s -e f --input=%t/missing.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: pe-run: error: {{.*}}missing.npy: cannot open file
//
// RUN: not pe-run %s -e f --input=%t/bad.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: pe-run: error: {{.*}}bad.npy: not a .npy file
//
// RUN: not pe-run %s -e f --input=%t/trunc.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRUNC
// TRUNC: pe-run: error: {{.*}}trunc.npy: data is truncated: expected 24 bytes for 6 float32 elements, found 8
//
// RUN: not pe-run %s -e f --input=%t/f64.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: pe-run: error: argument 0 (tensor<2x3xf32>) from '{{.*}}f64.npy': expected dtype float32, got float64
//
// RUN: not pe-run %s -e f --input=%t/t32.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SHAPE
// SHAPE: pe-run: error: argument 0 (tensor<2x3xf32>) from '{{.*}}t32.npy': expected shape (2, 3), got (3, 2)
//
// RUN: not pe-run %s -e f --input=%t/r1.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANK
// RANK: pe-run: error: argument 0 (tensor<2x3xf32>) from '{{.*}}r1.npy': expected shape (2, 3), got (6,)
//
// RUN: not pe-run %s -e f --input=%t/ok.npy --input=%t/vec.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-SHAPE
// SCALAR-SHAPE: pe-run: error: argument 1 (index) from '{{.*}}vec.npy': expected a scalar (0-d or 1-element 1-d array), got shape (2,)
//
// RUN: not pe-run %s -e f --input=%t/ok.npy --input=%t/fl.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-DTYPE
// SCALAR-DTYPE: pe-run: error: argument 1 (index) from '{{.*}}fl.npy': expected an integer dtype, got float32
//
// RUN: not pe-run %s -e f --input=%t/ok.npy --input=%t/bo.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-BOOL
// SCALAR-BOOL: pe-run: error: argument 1 (index) from '{{.*}}bo.npy': expected an integer dtype, got bool
//
// RUN: not pe-run %s -e g --input=%t/big.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: pe-run: error: argument 0 (i32) from '{{.*}}big.npy': {{.*}}1099511627776{{.*}} out of range for int32
//
// RUN: not pe-run %s -e g --input=%t/n.npy --input=%t/n.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SCALAR-FLOAT
// SCALAR-FLOAT: pe-run: error: argument 1 (f32) from '{{.*}}n.npy': expected a float dtype, got int64
//
// RUN: not pe-run %s -e b --input=%t/h.npy --output=%t/o.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BF16
// BF16: pe-run: error: argument 0 (tensor<4xbf16>) from '{{.*}}h.npy': expected dtype float32 or bfloat16, got float16
//
// No output file is written after an error.
// RUN: not ls %t/o.npy

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
