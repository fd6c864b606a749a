// f16 and bf16 arguments. f16 data comes as float16 and goes out as float16;
// bf16 data comes as float32 (rounded to nearest even by pe-run) or with the
// 'bfloat16' descriptor, and goes out as float32 (exact widening).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'h1=np.linspace(-4, 4, 12).astype(np.float16).reshape(3, 4)' \
// RUN:   'h2=np.linspace(0.1, 7, 12).astype(np.float16).reshape(3, 4)' \
// RUN:   'hsum=h1 + h2' \
// RUN:   'b1=np.array([1.0, 1.00390625, 1.01171875, -3.14159265, 1e30, 1.5e-3], dtype=np.float32)' \
// RUN:   'b2=np.array([3.0, 3.0, 1.3, 2.71828183, 2.0, -7.25], dtype=np.float32)' \
// RUN:   'bprod=bf16(bf16(b1) * bf16(b2))' \
// RUN:   'b1raw=raw_npy("bfloat16", (6,), (bf16(b1).view(np.uint32) >> 16).astype("<u2").tobytes())'
// RUN: pe-run %s -e add_f16 --input=%t/h1.npy --input=%t/h2.npy --output=%t/hout.npy
// RUN: %npycmp %t/hout.npy %t/hsum.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e mul_bf16 --input=%t/b1.npy --input=%t/b2.npy --output=%t/bout.npy
// RUN: %npycmp %t/bout.npy %t/bprod.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e mul_bf16 --input=%t/b1raw.npy --input=%t/b2.npy --output=%t/bout2.npy
// RUN: %npycmp %t/bout2.npy %t/bprod.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/Inputs/npy.py %t '?load("hout").dtype, load("bout").dtype' \
// RUN:   | FileCheck %s --check-prefix=DTYPES

// CHECK: npycmp: PASS
// DTYPES: (dtype('float16'), dtype('float32'))

func.func @add_f16(%a: tensor<3x4xf16>, %b: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %e = tensor.empty() : tensor<3x4xf16>
  %r = linalg.add ins(%a, %b : tensor<3x4xf16>, tensor<3x4xf16>)
                  outs(%e : tensor<3x4xf16>) -> tensor<3x4xf16>
  return %r : tensor<3x4xf16>
}

func.func @mul_bf16(%a: tensor<6xbf16>, %b: tensor<6xbf16>) -> tensor<6xbf16> {
  %e = tensor.empty() : tensor<6xbf16>
  %r = linalg.mul ins(%a, %b : tensor<6xbf16>, tensor<6xbf16>)
                  outs(%e : tensor<6xbf16>) -> tensor<6xbf16>
  return %r : tensor<6xbf16>
}
