// RUN: pe-opt %s --pe-approximate-math | FileCheck %s

// f32 exp/tanh/sin/cos (scalars and vectors) become polynomials; f64 stays a
// math op (a libm call later).

// CHECK-LABEL: func @f32
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.sin
// CHECK-NOT: math.cos
// CHECK: math.fma
// CHECK: return
func.func @f32(%v: vector<16xf32>, %s: f32) -> (vector<16xf32>, f32, vector<16xf32>, vector<16xf32>) {
  %0 = math.exp %v : vector<16xf32>
  %1 = math.tanh %s : f32
  %2 = math.sin %v : vector<16xf32>
  %3 = math.cos %v : vector<16xf32>
  return %0, %1, %2, %3 : vector<16xf32>, f32, vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func @f64
// CHECK: math.cos %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %0 = math.cos %x : f64
  return %0 : f64
}

// Math on whole tensors is left alone (the approximations build constants
// for scalars and vectors only); the pipelines lower it to linalg payloads
// before this pass.
// CHECK-LABEL: func @tensor
// CHECK: %[[E:.*]] = math.exp %{{.*}} : tensor<4x8xf32>
// CHECK: %[[T:.*]] = math.tanh %[[E]] : tensor<4x8xf32>
// CHECK: return %[[T]]
func.func @tensor(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = math.exp %x : tensor<4x8xf32>
  %1 = math.tanh %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// The same math in a linalg payload is scalar, and approximated.
// CHECK-LABEL: func @payload
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: linalg.yield
func.func @payload(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
