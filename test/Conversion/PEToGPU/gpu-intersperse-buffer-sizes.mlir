// RUN: pe-opt %s --split-input-file --pe-gpu-intersperse-buffer-sizes --verify-diagnostics | FileCheck %s

// Each buffer is followed by its size in bytes, for static and dynamic
// shapes; scalars are left as they are.
// CHECK-LABEL: func.func @sizes
// CHECK-SAME: (%[[A:.*]]: memref<?x4xf16>, %[[B:.*]]: memref<8xi64>, %[[N:.*]]: index)
// f16: 2 bytes x dim 0 x 4.
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[D0:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[M0:.*]] = arith.muli %[[C2]], %[[D0]] : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[M1:.*]] = arith.muli %[[M0]], %[[C4]] : index
// CHECK: %[[BYTES_A:.*]] = arith.index_cast %[[M1]] : index to i64
// i64: 8 bytes x 8.
// CHECK: %[[E:.*]] = arith.constant 8 : index
// CHECK: %[[N8:.*]] = arith.constant 8 : index
// CHECK: %[[M2:.*]] = arith.muli %[[E]], %[[N8]] : index
// CHECK: %[[BYTES_B:.*]] = arith.index_cast %[[M2]] : index to i64
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%[[A]] : memref<?x4xf16>, %[[BYTES_A]] : i64, %[[B]] : memref<8xi64>, %[[BYTES_B]] : i64, %[[N]] : index)
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>, "">]
  func.func @sizes(%a: memref<?x4xf16>, %b: memref<8xi64>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?x4xf16>, %b : memref<8xi64>, %n : index)
    return
  }
}

// -----

// The kernel must already be serialized (its signature would no longer match).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @not_serialized(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{pe-gpu-intersperse-buffer-sizes: the kernel is not serialized yet (run gpu-module-to-binary first)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>, "">]
  func.func @strided(%a: memref<4xf32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{pe-gpu-intersperse-buffer-sizes: buffer 'memref<4xf32, strided<[2]>>' is not contiguous with whole-byte elements}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32, strided<[2]>>)
    return
  }
}
