// Property: positions up to 2^20 keep full f32 accuracy because the angle
// p * inv_freq is formed in f64 (PEOps.td, pe.rope). Rows of unit norm, D = R
// = 64, positions [0, 1000, 65535, 2^20 - 1, 2^20] as an i64 and an i32
// tensor, default frequencies given as f32 and as f64, both layouts; compared
// with the float64 reference pe_ref.rope_inv_freq on the exact frequency
// values. Tolerance: atol 2e-6, rtol 0 (the issue's bound); an f32 angle is
// off by up to p * 2^-24 rad = 0.06 rad at 2^20, and the last check shows
// that such an implementation (the Hugging Face formula, emulated in numpy)
// would exceed the bound, so the test can tell the two apart.

// The generated RoPE kernel takes the positions tensor on every target: the
// pe-opt runs fail on any convert-pe-to-vector remark for the AVX-512, AVX2
// and NEON targets ("no generated RoPE kernel ...").
// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py prop_large_positions %t
// RUN: pe-run %s -e inter_f32 --input=%t/x.npy --input=%t/f32.npy --input=%t/p.npy --output=%t/inter_f32.npy
// RUN: %npycmp %t/inter_f32.npy %t/expected_interleaved_f32.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: pe-run %s -e inter_f64 --input=%t/x.npy --input=%t/f64.npy --input=%t/p32.npy --output=%t/inter_f64.npy
// RUN: %npycmp %t/inter_f64.npy %t/expected_interleaved_f64.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: pe-run %s -e half_f32 --input=%t/x.npy --input=%t/f32.npy --input=%t/p32.npy --output=%t/half_f32.npy
// RUN: %npycmp %t/half_f32.npy %t/expected_half_f32.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: pe-run %s -e half_f64 --input=%t/x.npy --input=%t/f64.npy --input=%t/p.npy --output=%t/half_f64.npy
// RUN: %npycmp %t/half_f64.npy %t/expected_half_f64.npy --rtol 0 --atol 2e-6 | FileCheck %s
// RUN: %python %pe_ref_lib/props.py differ %t f32angle_interleaved.npy expected_interleaved_f32.npy 2e-6 | FileCheck %s --check-prefix=DIFFER
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v4" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-attach-cpu-target="triple=aarch64-unknown-linux-gnu cpu=neoverse-n1" --convert-pe-to-vector --remarks-filter=convert-pe-to-vector --verify-diagnostics -o /dev/null
// CHECK: npycmp: PASS
// DIFFER: props: PASS differ

func.func @inter_f32(%x: tensor<3x5x64xf32>, %f: tensor<32xf32>, %p: tensor<5xi64>) -> tensor<3x5x64xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<32xf32>) positions(%p : tensor<5xi64>) : tensor<3x5x64xf32>
  return %0 : tensor<3x5x64xf32>
}

func.func @inter_f64(%x: tensor<3x5x64xf32>, %f: tensor<32xf64>, %p: tensor<5xi32>) -> tensor<3x5x64xf32> {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<32xf64>) positions(%p : tensor<5xi32>) : tensor<3x5x64xf32>
  return %0 : tensor<3x5x64xf32>
}

func.func @half_f32(%x: tensor<3x5x64xf32>, %f: tensor<32xf32>, %p: tensor<5xi32>) -> tensor<3x5x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) positions(%p : tensor<5xi32>) : tensor<3x5x64xf32>
  return %0 : tensor<3x5x64xf32>
}

func.func @half_f64(%x: tensor<3x5x64xf32>, %f: tensor<32xf64>, %p: tensor<5xi64>) -> tensor<3x5x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf64>) positions(%p : tensor<5xi64>) : tensor<3x5x64xf32>
  return %0 : tensor<3x5x64xf32>
}
