// int64, int32, int8 and bool (i1) arguments and results (and rank-0 tensors), checked exactly (values
// beyond 2^53 would be lost in a float64 comparison).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'a=np.array([2**60 + 1, -5, 7, 3000000000, 0, -(2**62)], dtype=np.int64)' \
// RUN:   'b=np.array([0, 3, -2, 5, 9, 1], dtype=np.int64)' \
// RUN:   'm=np.array([False, True, True, True, False, False])' \
// RUN:   'c=np.array([1, -2, 2**30, 4, -(2**31), 6], dtype=np.int32)'
// RUN: pe-run %s -e ints --input=%t/a.npy --input=%t/b.npy --input=%t/m.npy \
// RUN:   --input=%t/c.npy --output=%t/r0.npy --output=%t/r1.npy --output=%t/r2.npy
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   '!a, b, m, c = load("a"), load("b"), load("m"), load("c")' \
// RUN:   '!r0, r1, r2 = load("r0"), load("r1"), load("r2")' \
// RUN:   '!assert r0.dtype == np.int64 and r1.dtype == np.bool_ and r2.dtype == np.int32' \
// RUN:   '!assert (r0 == np.where(m, a * b, a - b)).all(), r0' \
// RUN:   '!assert (r1 == (a > b)).all(), r1' \
// RUN:   '!assert (r2 == c * np.int32(3)).all(), r2' \
// RUN:   '?"ints: ok"' | FileCheck %s

// CHECK: ints: ok

#id = affine_map<(d0) -> (d0)>
func.func @ints(%a: tensor<6xi64>, %b: tensor<6xi64>, %m: tensor<6xi1>, %c: tensor<6xi32>)
    -> (tensor<6xi64>, tensor<6xi1>, tensor<6xi32>) {
  %e0 = tensor.empty() : tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi1>
  %e2 = tensor.empty() : tensor<6xi32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id],
                         iterator_types = ["parallel"]}
      ins(%a, %b, %m, %c : tensor<6xi64>, tensor<6xi64>, tensor<6xi1>, tensor<6xi32>)
      outs(%e0, %e1, %e2 : tensor<6xi64>, tensor<6xi1>, tensor<6xi32>) {
  ^bb0(%x: i64, %y: i64, %s: i1, %z: i32, %o0: i64, %o1: i1, %o2: i32):
    %p = arith.muli %x, %y : i64
    %d = arith.subi %x, %y : i64
    %v = arith.select %s, %p, %d : i64
    %g = arith.cmpi sgt, %x, %y : i64
    %three = arith.constant 3 : i32
    %z3 = arith.muli %z, %three : i32
    linalg.yield %v, %g, %z3 : i64, i1, i32
  } -> (tensor<6xi64>, tensor<6xi1>, tensor<6xi32>)
  return %r#0, %r#1, %r#2 : tensor<6xi64>, tensor<6xi1>, tensor<6xi32>
}

// Rank-0 tensors and int8.
// RUN: %python %S/Inputs/npy.py %t 'z=np.array(2.5, dtype=np.float32)' \
// RUN:   'i8=np.array([-128, 5, 126], dtype=np.int8)'
// RUN: pe-run %s -e rank0_i8 --input=%t/z.npy --input=%t/i8.npy \
// RUN:   --output=%t/z_out.npy --output=%t/i8_out.npy
// RUN: %python %S/Inputs/npy.py %t '!z, i8 = load("z_out"), load("i8_out")' \
// RUN:   '?z.dtype, z.shape, float(z), i8.dtype, i8.tolist()' | FileCheck %s --check-prefix=RANK0
// RANK0: (dtype('float32'), (), 5.0, dtype('int8'), [-127, 6, 127])

func.func @rank0_i8(%a: tensor<f32>, %b: tensor<3xi8>) -> (tensor<f32>, tensor<3xi8>) {
  %e0 = tensor.empty() : tensor<f32>
  %r0 = linalg.add ins(%a, %a : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  %one = arith.constant dense<1> : tensor<3xi8>
  %e1 = tensor.empty() : tensor<3xi8>
  %r1 = linalg.add ins(%b, %one : tensor<3xi8>, tensor<3xi8>) outs(%e1 : tensor<3xi8>) -> tensor<3xi8>
  return %r0, %r1 : tensor<f32>, tensor<3xi8>
}
