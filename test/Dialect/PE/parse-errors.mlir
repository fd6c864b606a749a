// RUN: pe-opt %s -split-input-file -verify-diagnostics

// Malformed custom syntax gets a located diagnostic (and pe-opt exits 1).

func.func @unknown_layout(%x: tensor<8x64xf32>, %f: tensor<32xf32>) {
  // expected-error@+2 {{expected ::mlir::pe::RopeLayout to be one of: interleaved, half}}
  // expected-error@+1 {{failed to parse PE_RopeLayoutAttr parameter 'value'}}
  %0 = pe.rope diagonal %x inv_freq(%f : tensor<32xf32>) : tensor<8x64xf32>
  return
}

// -----

func.func @unknown_distance() {
  // expected-error@+2 {{expected ::mlir::pe::AlibiDistance to be one of: symmetric, signed, key}}
  // expected-error@+1 {{failed to parse PE_AlibiDistanceAttr parameter 'value'}}
  %0 = pe.alibi_bias manhattan : tensor<8x4x4xf32>
  return
}

// -----

func.func @missing_type(%x: tensor<8x64xf32>) {
  // expected-error@+1 {{expected ':'}}
  %0 = pe.add_sinusoidal interleaved %x
  return
}

// -----

// RUN: not pe-opt %S/Inputs/no-frequency-source.mlir 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: no-frequency-source.mlir:4:8: error: 'pe.rope' op expects exactly one frequency source: inv_freq or cache
