// Scalar arguments: an index (from int64 0-d, int32 0-d and 1-element 1-d
// files), an f32 (from a float64 0-d file) and an i32.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t \
// RUN:   'x=np.arange(8, dtype=np.float32) - 3' \
// RUN:   'n=np.int64(5)' 'n32=np.int32(-2)' 'n1=np.array([7], dtype=np.int64)' \
// RUN:   's=np.float64(0.5)' 'k=np.int32(3)' \
// RUN:   'exp_n=(x * np.float32(0.5) + np.float32(5 * 3)).astype(np.float32)' \
// RUN:   'exp_n32=(x * np.float32(0.5) + np.float32(-2 * 3)).astype(np.float32)' \
// RUN:   'exp_n1=(x * np.float32(0.5) + np.float32(7 * 3)).astype(np.float32)'
// RUN: pe-run %s -e affine --input=%t/x.npy --input=%t/n.npy --input=%t/s.npy \
// RUN:   --input=%t/k.npy --output=%t/out_n.npy
// RUN: %npycmp %t/out_n.npy %t/exp_n.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e affine --input=%t/x.npy --input=%t/n32.npy --input=%t/s.npy \
// RUN:   --input=%t/k.npy --output=%t/out_n32.npy
// RUN: %npycmp %t/out_n32.npy %t/exp_n32.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: pe-run %s -e affine --input=%t/x.npy --input=%t/n1.npy --input=%t/s.npy \
// RUN:   --input=%t/k.npy --output=%t/out_n1.npy
// RUN: %npycmp %t/out_n1.npy %t/exp_n1.npy --rtol 0 --atol 0 | FileCheck %s

// CHECK: npycmp: PASS

// out = x * s + n * k
func.func @affine(%x: tensor<8xf32>, %n: index, %s: f32, %k: i32) -> tensor<8xf32> {
  %ni = arith.index_cast %n : index to i32
  %nk = arith.muli %ni, %k : i32
  %add = arith.sitofp %nk : i32 to f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    %a = arith.addf %m, %add : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
