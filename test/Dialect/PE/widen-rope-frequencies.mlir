// RUN: pe-opt %s --pe-fold-frequencies --split-input-file | FileCheck %s
// RUN: pe-opt %s --canonicalize --split-input-file | FileCheck %s --check-prefix=CANON
// RUN: pe-opt %s --convert-pe-to-linalg --split-input-file | FileCheck %s --check-prefix=LINALG

// The widening pattern (populateWidenRopeFrequenciesPatterns): a frequency op
// whose f32 inv_freq result is used only as inv_freq operands of pe.rope or
// pe.attention gets an f64 result, since those angles use the op's exact
// value. pe-fold-frequencies and convert-pe-to-linalg run it first; it is
// also a canonicalization pattern (the folders leave such an op alone, so
// --canonicalize widens it first and then folds the f64 op).
// R = 4 default frequencies: [1, 10000^(-1/2)] = [1, 0.01]; 0.01 is exact in
// f64 (printed 1.000000e-02) and 0.00999999977 in f32.

// Fires: both uses are rope frequency operands.
// CHECK-LABEL: func @rope_uses
// CHECK: %[[F:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<2xf64>)
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<2xf64>)
// CANON-LABEL: func @rope_uses
// CANON: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// CANON-NOT: xf32>)
// LINALG-LABEL: func @rope_uses
// LINALG: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// LINALG-NOT: tensor<2xf32>
func.func @rope_uses(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  %f, %m = pe.rope_frequencies : tensor<2xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<2xf32>) attention_scaling(%m) : tensor<1x2x3x4xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<2xf32>) attention_scaling(%m) : tensor<1x2x3x4xf32>
  return %qr, %kr : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// Fires: the inv_freq operand of a pe.attention rope encoding.
// CHECK-LABEL: func @attention_use
// CHECK: %[[F:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// CHECK: pe.attention {{.*}} rope <half> inv_freq(%[[F]] : tensor<2xf64>)
// CANON-LABEL: func @attention_use
// CANON: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// LINALG-LABEL: func @attention_use
// LINALG: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// LINALG-NOT: tensor<2xf32>
func.func @attention_use(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %f, %m = pe.rope_frequencies : tensor<2xf32>
  %attn_init0 = tensor.empty() : tensor<1x2x3x4xf32>
  %o = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<2xf32>) outs(%attn_init0 : tensor<1x2x3x4xf32>) {causal} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// Fires for run-time frequency ops too: pe-fold-frequencies widens but does
// not fold them, and their lowerings then compute f64 tables (dynamic NTK:
// the generic yields f64; LongRoPE: a select between f64 constants).
// CHECK-LABEL: func @runtime
// CHECK: pe.dynamic_ntk_scale %{{.*}} : index {{.*}} : tensor<2xf64>
// CHECK: pe.longrope_scale %{{.*}} : index {{.*}} : tensor<2xf64>
// CANON-LABEL: func @runtime
// CANON: pe.dynamic_ntk_scale %{{.*}} : index {{.*}} : tensor<2xf64>
// CANON: pe.longrope_scale %{{.*}} : index {{.*}} : tensor<2xf64>
// LINALG-LABEL: func @runtime
// LINALG: linalg.generic
// LINALG: math.exp %{{.*}} : f64
// LINALG-NEXT: linalg.yield %{{.*}} : f64
// LINALG: arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2xf64>
// LINALG-NOT: tensor<2xf32>
func.func @runtime(%x: tensor<1x2x3x4xf32>, %n: index) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<2xf32>
  %a = pe.rope half %x inv_freq(%f : tensor<2xf32>) : tensor<1x2x3x4xf32>
  %g, %s = pe.longrope_scale %n : index {short_factor = array<f64: 1.0, 1.0>, long_factor = array<f64: 1.5, 4.0>, original_max_position_embeddings = 8 : i64, max_position_embeddings = 32 : i64} : tensor<2xf32>
  %b = pe.rope half %x inv_freq(%g : tensor<2xf32>) attention_scaling(%s) : tensor<1x2x3x4xf32>
  return %a, %b : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
}

// -----

// Must not fire: the table is also returned, so every consumer (the rope
// included) sees the same f32 table.
// CHECK-LABEL: func @returned
// CHECK: %[[F:.*]] = arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<2xf32>)
// CHECK: return %{{.*}}, %[[F]]
// CANON-LABEL: func @returned
// CANON: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CANON-NOT: xf64>
// LINALG-LABEL: func @returned
// LINALG: arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// LINALG-NOT: xf64>
func.func @returned(%q: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<2xf32>) {
  %f, %m = pe.rope_frequencies : tensor<2xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<2xf32>) : tensor<1x2x3x4xf32>
  return %qr, %f : tensor<1x2x3x4xf32>, tensor<2xf32>
}

// -----

// Must not fire: the table also feeds another op (and a run-time op keeps
// its f32 result).
// CHECK-LABEL: func @other_op
// CHECK: pe.dynamic_ntk_scale %{{.*}} : tensor<2xf32>
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<2xf32>)
// CHECK: tensor.extract
// CANON-LABEL: func @other_op
// CANON: pe.dynamic_ntk_scale %{{.*}} : tensor<2xf32>
// LINALG-LABEL: func @other_op
// LINALG: linalg.yield %{{.*}} : f32
// LINALG-NOT: xf64>
func.func @other_op(%x: tensor<1x2x3x4xf32>, %n: index) -> (tensor<1x2x3x4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<2xf32>
  %a = pe.rope half %x inv_freq(%f : tensor<2xf32>) : tensor<1x2x3x4xf32>
  %e = tensor.extract %f[%c0] : tensor<2xf32>
  return %a, %e : tensor<1x2x3x4xf32>, f32
}

// -----

// Must not fire: the table is already f64 (it folds as before).
// CHECK-LABEL: func @already_f64
// CHECK: %[[F:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<2xf64>)
// CANON-LABEL: func @already_f64
// CANON: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
// LINALG-LABEL: func @already_f64
// LINALG: arith.constant dense<[1.000000e+00, 1.000000e-02]> : tensor<2xf64>
func.func @already_f64(%q: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %f, %m = pe.rope_frequencies : tensor<2xf64>
  %qr = pe.rope half %q inv_freq(%f : tensor<2xf64>) : tensor<1x2x3x4xf32>
  return %qr : tensor<1x2x3x4xf32>
}

// -----

// Not a frequency op's result: an f32 table from a function argument (or a
// constant) is used as given.
// CHECK-LABEL: func @argument
// CHECK: pe.rope half %{{.*}} inv_freq(%{{.*}} : tensor<2xf32>)
func.func @argument(%q: tensor<1x2x3x4xf32>, %f: tensor<2xf32>) -> tensor<1x2x3x4xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<2xf32>) : tensor<1x2x3x4xf32>
  return %qr : tensor<1x2x3x4xf32>
}
