// The executables of --emit-executable take and return what pe-run does:
// several results, i1/i8/i32/i64, rank-0 and zero-size tensors, bf16 (written
// as float32), index/f32/i32 scalars given as .npy files, dynamic sizes. Each
// writes the same .npy files, byte for byte, as pe-run's JIT of the same
// pipeline on the same inputs.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'a=np.arange(6, dtype=np.int64) - 2' 'b=np.ones(6, np.int64)' \
// RUN:   'm=np.array([1, 0, 1, 1, 0, 0], bool)' 'c=np.arange(6, dtype=np.int32)' \
// RUN:   'z=np.array(2.5, dtype=np.float32)' 'i8=np.array([-128, 5, 126], np.int8)' \
// RUN:   'x=np.linspace(-1, 1, 8, dtype=np.float32)' 'n=np.int64(3)' \
// RUN:   's=np.float32(0.25)' 'k=np.int32(-2)' \
// RUN:   'e=np.zeros(0, np.int32)' 'p=np.arange(5, dtype=np.int32)'
//
// RUN: pe-run %s -e two --pipeline=cpu --emit-executable=%t/two > /dev/null
// RUN: %t/two --random-inputs --seed=3 --output=%t/two0.npy --output=%t/two1.npy
// RUN: pe-run %s -e two --pipeline=cpu --random-inputs --seed=3 --output=%t/jtwo0.npy --output=%t/jtwo1.npy
// RUN: cmp %t/two0.npy %t/jtwo0.npy
// RUN: cmp %t/two1.npy %t/jtwo1.npy
//
// RUN: pe-run %s -e ints --pipeline=cpu --emit-executable=%t/ints > /dev/null
// RUN: %t/ints --input=%t/a.npy --input=%t/b.npy --input=%t/m.npy --input=%t/c.npy \
// RUN:   --output=%t/i0.npy --output=%t/i1.npy --output=%t/i2.npy
// RUN: pe-run %s -e ints --pipeline=cpu --input=%t/a.npy --input=%t/b.npy --input=%t/m.npy \
// RUN:   --input=%t/c.npy --output=%t/ji0.npy --output=%t/ji1.npy --output=%t/ji2.npy
// RUN: cmp %t/i0.npy %t/ji0.npy
// RUN: cmp %t/i1.npy %t/ji1.npy
// RUN: cmp %t/i2.npy %t/ji2.npy
// RUN: %python %S/Inputs/npy.py %t '?load("i0").tolist(), load("i1").tolist(), load("i2").tolist()' \
// RUN:   | FileCheck %s --check-prefix=INTS
// INTS: ([-2, -2, 0, 1, 1, 2], [False, False, False, False, True, True], [0, 3, 6, 9, 12, 15])
//
// RUN: pe-run %s -e rank0_i8 --pipeline=reference --emit-executable=%t/r0 > /dev/null
// RUN: %t/r0 --input=%t/z.npy --input=%t/i8.npy --output=%t/r00.npy --output=%t/r01.npy
// RUN: %python %S/Inputs/npy.py %t '!z, i8 = load("r00"), load("r01")' \
// RUN:   '?z.dtype, z.shape, float(z), i8.dtype, i8.tolist()' | FileCheck %s --check-prefix=RANK0
// RANK0: (dtype('float32'), (), 5.0, dtype('int8'), [-127, 6, 127])
//
// RUN: pe-run %s -e affine --pipeline=cpu --emit-executable=%t/affine > /dev/null
// RUN: %t/affine --input=%t/x.npy --input=%t/n.npy --input=%t/s.npy --input=%t/k.npy --output=%t/af.npy
// RUN: pe-run %s -e affine --pipeline=cpu --input=%t/x.npy --input=%t/n.npy --input=%t/s.npy \
// RUN:   --input=%t/k.npy --output=%t/jaf.npy
// RUN: cmp %t/af.npy %t/jaf.npy
// RUN: %python %S/Inputs/npy.py %t '!x = load("x")' \
// RUN:   '!assert (load("af") == (x * np.float32(0.25) - 6).astype(np.float32)).all()'
//
// RUN: pe-run %s -e mul_bf16 --pipeline=cpu --emit-executable=%t/bf > /dev/null
// RUN: %t/bf --random-inputs --seed=9 --output=%t/bf.npy
// RUN: pe-run %s -e mul_bf16 --pipeline=cpu --random-inputs --seed=9 --output=%t/jbf.npy
// RUN: cmp %t/bf.npy %t/jbf.npy
// RUN: %python %S/Inputs/npy.py %t '?load("bf").dtype' | FileCheck %s --check-prefix=BF16
// BF16: float32
//
// Zero-size and dynamic: concat of 0 and 5 elements.
// RUN: pe-run %s -e concat --pipeline=cpu --emit-executable=%t/concat > /dev/null
// RUN: %t/concat --input=%t/e.npy --input=%t/p.npy --output=%t/cc.npy
// RUN: %t/concat --input=%t/e.npy --input=%t/e.npy --output=%t/cc0.npy
// RUN: %python %S/Inputs/npy.py %t '?load("cc").tolist(), load("cc0").shape' \
// RUN:   | FileCheck %s --check-prefix=CONCAT
// CONCAT: ([0, 1, 2, 3, 4], (0,))

#id = affine_map<(d0) -> (d0)>

func.func @two(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>)
    -> (tensor<3x5xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x5xf32>
  %sum = linalg.add ins(%a, %b : tensor<3x5xf32>, tensor<3x5xf32>)
                    outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %max = linalg.reduce ins(%a : tensor<3x5xf32>) outs(%init : tensor<3xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %sum, %max : tensor<3x5xf32>, tensor<3xf32>
}

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

func.func @rank0_i8(%a: tensor<f32>, %b: tensor<3xi8>) -> (tensor<f32>, tensor<3xi8>) {
  %e0 = tensor.empty() : tensor<f32>
  %r0 = linalg.add ins(%a, %a : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  %one = arith.constant dense<1> : tensor<3xi8>
  %e1 = tensor.empty() : tensor<3xi8>
  %r1 = linalg.add ins(%b, %one : tensor<3xi8>, tensor<3xi8>) outs(%e1 : tensor<3xi8>) -> tensor<3xi8>
  return %r0, %r1 : tensor<f32>, tensor<3xi8>
}

func.func @affine(%x: tensor<8xf32>, %n: index, %s: f32, %k: i32) -> tensor<8xf32> {
  %ni = arith.index_cast %n : index to i32
  %nk = arith.muli %ni, %k : i32
  %add = arith.sitofp %nk : i32 to f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %add : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @mul_bf16(%a: tensor<6xbf16>, %b: tensor<6xbf16>) -> tensor<6xbf16> {
  %e = tensor.empty() : tensor<6xbf16>
  %r = linalg.mul ins(%a, %b : tensor<6xbf16>, tensor<6xbf16>)
                  outs(%e : tensor<6xbf16>) -> tensor<6xbf16>
  return %r : tensor<6xbf16>
}

func.func @concat(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
