// A minimal reproducer of the lavapipe behaviour behind the wrong long-key
// attention results (vulkan-long-keys.mlir, docs/CodegenGPU.md): llvmpipe,
// which compiles lavapipe's shaders, gives every shader invocation one loop
// limiter of 65535 iterations shared by all of its loops (Mesa gallivm,
// LP_MAX_TGSI_LOOP_ITERATIONS: "Maximum iterations before loop termination,
// shared between every loop"; lp_exec_endloop decrements it at the end of
// every iteration of any loop, including the one that exits, and leaves the
// loop once it reaches 0). Past that budget every loop stops early, without
// an error.
//
// One invocation runs a first loop of N iterations (out[i % 64] = in[i % 64])
// and then a 64-iteration loop that doubles out[0..63]. With N = 65470 the
// first loop takes 65471 decrements, which leaves 64 for the second loop:
// every channel is doubled. With N = 65471 the second loop stops after 63
// iterations: channel 63 is copied but not doubled. On a driver without such
// a limiter (any real GPU) the second run doubles all 64 channels too and
// this test fails; the attention tests' limit moves with it.
//
// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/npy.py %t 'x=np.arange(1, 65, dtype=np.float32)' \
// RUN:   'all=2 * x' 'first63=np.concatenate([2 * x[:63], x[63:]])'
// RUN: pe-run %s -e below --input=%t/x.npy --pipeline=vulkan --output=%t/below.npy
// RUN: %npycmp %t/below.npy %t/all.npy | FileCheck %s
// RUN: pe-run %s -e above --input=%t/x.npy --pipeline=vulkan --output=%t/above.npy
// RUN: %npycmp %t/above.npy %t/first63.npy | FileCheck %s
// CHECK: npycmp: PASS

func.func @below(%x: tensor<64xf32>) -> tensor<64xf32> {
  %xb = bufferization.to_buffer %x read_only : tensor<64xf32> to memref<64xf32>
  %in = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  memref.copy %xb, %in : memref<64xf32> to memref<64xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %n = arith.constant 65470 : index
    scf.for %i = %c0 to %n step %one {
      %j = arith.remui %i, %c64 : index
      %v = memref.load %in[%j] : memref<64xf32>
      memref.store %v, %out[%j] : memref<64xf32>
    }
    scf.for %c = %c0 to %c64 step %one {
      %v = memref.load %out[%c] : memref<64xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %out[%c] : memref<64xf32>
    }
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<64xf32> to tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @above(%x: tensor<64xf32>) -> tensor<64xf32> {
  %xb = bufferization.to_buffer %x read_only : tensor<64xf32> to memref<64xf32>
  %in = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  memref.copy %xb, %in : memref<64xf32> to memref<64xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %n = arith.constant 65471 : index
    scf.for %i = %c0 to %n step %one {
      %j = arith.remui %i, %c64 : index
      %v = memref.load %in[%j] : memref<64xf32>
      memref.store %v, %out[%j] : memref<64xf32>
    }
    scf.for %c = %c0 to %c64 step %one {
      %v = memref.load %out[%c] : memref<64xf32>
      %d = arith.addf %v, %v : f32
      memref.store %d, %out[%c] : memref<64xf32>
    }
    gpu.terminator
  }
  %r = bufferization.to_tensor %out restrict writable : memref<64xf32> to tensor<64xf32>
  return %r : tensor<64xf32>
}
