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
