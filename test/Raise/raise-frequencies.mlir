// pe-raise recovers the frequency op behind a constant inv_freq table
// (Inputs/rope_frequencies.mlir, float32 tables written by
// Inputs/gen_corpus.py from the Hugging Face formulas); a table no op
// computes stays a constant, and recover-scaling=false keeps every table.
// RUN: pe-opt --pe-raise %S/Inputs/rope_frequencies.mlir | FileCheck %s
// RUN: pe-opt --pe-raise=recover-scaling=false %S/Inputs/rope_frequencies.mlir | FileCheck %s --check-prefix=KEEP
// A tolerance too tight for float32 tables finds no op for the 32-entry
// tables (they are rounded to float32).
// RUN: pe-opt --pe-raise=tolerance=0 %S/Inputs/rope_frequencies.mlir | FileCheck %s --check-prefix=EXACT

// CHECK-LABEL: func.func @rope_default(
// CHECK: %[[F:.*]], %{{.*}} = pe.rope_frequencies : tensor<8xf32>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<8xf32>) : tensor<1x2x4x16xf32>
// CHECK-LABEL: func.func @rope_linear(
// CHECK: %[[F:.*]], %{{.*}} = pe.linear_scale {factor = 4.000000e+00 : f64} : tensor<32xf32>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<32xf32>) : tensor<1x2x4x64xf32>
// CHECK-LABEL: func.func @rope_yarn(
// CHECK: %[[F:.*]], %[[M:.*]] = pe.yarn_scale {base = 1.000000e+06 : f64, factor = 4.000000e+00 : f64, original_max_position_embeddings = 32768 : i64} : tensor<32xf32>
// CHECK: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<32xf32>) attention_scaling(%[[M]]) : tensor<1x2x4x64xf32>
// CHECK-LABEL: func.func @rope_unknown(
// CHECK: %[[C:.*]] = arith.constant dense<[0.995504796,
// CHECK: pe.rope half %{{.*}} inv_freq(%[[C]] : tensor<32xf32>) : tensor<1x2x4x64xf32>

// KEEP-NOT: pe.rope_frequencies
// KEEP-NOT: pe.linear_scale
// KEEP-NOT: pe.yarn_scale
// KEEP-LABEL: func.func @rope_yarn(
// KEEP: %[[M:.*]] = arith.constant 1.13862944 : f32
// KEEP: %[[C:.*]] = arith.constant dense<[1.000000e+00,
// KEEP: pe.rope half %{{.*}} inv_freq(%[[C]] : tensor<32xf32>) attention_scaling(%[[M]]) : tensor<1x2x4x64xf32>

// EXACT-LABEL: func.func @rope_linear(
// EXACT: arith.constant dense
// EXACT-NOT: pe.linear_scale
// EXACT: pe.rope half

// A tolerance outside [0, 1) is an error.
// RUN: not pe-opt --pe-raise=tolerance=1.5 %S/Inputs/rope_frequencies.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: pe-raise: tolerance must be in [0, 1), got 1.5
