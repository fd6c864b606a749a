// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_attention_lengths_bottom_right.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py attn_kv_lengths_causal).
//
// Bottom-right causal with valid lengths 6 and 10 (queries are the last 3\n// of each batch's keys), tiled to single query rows and 8 value columns: the\n// causal offset of row r becomes r + 1 - Tq, the batch's L[b] stays.
// Tolerance: rtol 1e-5, atol 1e-6 (f32 attention math).
// XFAIL: pe-pipeline-cpu, pe-pipeline-cpu-avx2, pe-pipeline-cpu-sse2, pe-pipeline-cpu-aarch64
// The decode kernel applies to this host's tiles of 8 value columns (on
// every target since kernels take any head dimension), and the pipeline
// fails on it inside the host's scf.for tile loops ("'scf.for' op expects
// region #0 to have 0 or 1 blocks"; the cpu-aarch64 run, without OpenMP,
// fails the same way): kernels on a host's tiles are issue 30 item 3.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py attn_kv_lengths_causal %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_lengths_bottom_right.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e attn_kv_lengths_causal --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_kv_lengths_causal(%q: tensor<2x4x3x16xf32>, %k: tensor<2x2x10x16xf32>, %v: tensor<2x2x10x16xf32>, %lengths: tensor<2xi32>) -> tensor<2x4x3x16xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x3x16xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x3x16xf32>) {causal} : tensor<2x4x3x16xf32>, tensor<2x2x10x16xf32>, tensor<2x2x10x16xf32> -> tensor<2x4x3x16xf32>
  return %0 : tensor<2x4x3x16xf32>
}
// TILED-COUNT-4: scf.for
// TILED: pe.attention {{.*}} kv_lengths({{.*}}) causal_offset({{.*}}) outs({{[^)]*}}) {causal} : tensor<1x2x1x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x8xf32> -> tensor<1x2x1x8xf32>
