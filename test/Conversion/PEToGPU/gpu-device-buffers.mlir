// RUN: pe-opt %s --split-input-file --pe-gpu-device-buffers --verify-diagnostics | FileCheck %s

// Both buffers go to the device on one stream, waited for before the launch;
// only the one the kernel stores to comes back; both are freed.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[IN:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<16xf32>, %[[N:.*]]: index)
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[DIM:.*]] = memref.dim %[[IN]], %c0
// CHECK: %[[DIN:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%[[DIM]]) : memref<?xf32>
// CHECK: %[[T2:.*]] = gpu.memcpy async [%[[T1]]] %[[DIN]], %[[IN]]
// CHECK: %[[DOUT:.*]], %[[T3:.*]] = gpu.alloc async [%[[T2]]] () : memref<16xf32>
// CHECK: %[[T4:.*]] = gpu.memcpy async [%[[T3]]] %[[DOUT]], %[[OUT]]
// CHECK: gpu.wait [%[[T4]]]
// CHECK: gpu.launch_func @kernels::@k {{.*}} args(%[[DIN]] : memref<?xf32>, %[[DOUT]] : memref<16xf32>, %[[N]] : index)
// CHECK: %[[U0:.*]] = gpu.wait async
// CHECK-NOT: gpu.memcpy {{.*}} %[[IN]], %[[DIN]]
// CHECK: %[[U1:.*]] = gpu.memcpy async [%[[U0]]] %[[OUT]], %[[DOUT]]
// CHECK: %[[U2:.*]] = gpu.dealloc async [%[[U1]]] %[[DIN]]
// CHECK: %[[U3:.*]] = gpu.dealloc async [%[[U2]]] %[[DOUT]]
// CHECK: gpu.wait [%[[U3]]]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<?xf32>, %out: memref<16xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<?xf32>
      memref.store %x, %out[%n] : memref<16xf32>
      gpu.return
    }
  }
  func.func @host(%in: memref<?xf32>, %out: memref<16xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%in : memref<?xf32>, %out : memref<16xf32>, %n : index)
    return
  }
}

// -----

// A buffer the kernel only reads through an op with declared memory effects
// (an asynchronous copy into workgroup memory) is not copied back; one it
// views (memref.subview, no effects of its own) may be written through the
// view and is.
// CHECK-LABEL: func.func @async_copy
// CHECK-SAME: (%[[SRC:.*]]: memref<64xf16>, %[[VIEWED:.*]]: memref<64xf16>, %[[OUT:.*]]: memref<64xf16>)
// CHECK: gpu.launch_func @kernels::@k
// CHECK: gpu.wait async
// CHECK-NOT: gpu.memcpy {{.*}} %[[SRC]],
// CHECK: gpu.memcpy async [%{{.*}}] %[[VIEWED]], %{{.*}}
// CHECK-NEXT: gpu.memcpy async [%{{.*}}] %[[OUT]], %{{.*}}
// CHECK-NEXT: gpu.dealloc
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%src: memref<64xf16>, %viewed: memref<64xf16>, %out: memref<64xf16>) workgroup(%s : memref<64xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %t = nvgpu.device_async_copy %src[%c0], %s[%c0], 8 {bypassL1} : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
      %view = memref.subview %viewed[0] [8] [1] : memref<64xf16> to memref<8xf16, strided<[1]>>
      %x = memref.load %s[%c0] : memref<64xf16, #gpu.address_space<workgroup>>
      %y = memref.load %view[%c0] : memref<8xf16, strided<[1]>>
      %z = arith.addf %x, %y : f16
      memref.store %z, %out[%c0] : memref<64xf16>
      gpu.return
    }
  }
  func.func @async_copy(%src: memref<64xf16>, %viewed: memref<64xf16>, %out: memref<64xf16>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%src : memref<64xf16>, %viewed : memref<64xf16>, %out : memref<64xf16>)
    return
  }
}

// -----

// A kernel whose body is not visible (a binary) may write every buffer.
// CHECK-LABEL: func.func @binary
// CHECK: gpu.launch_func
// CHECK: gpu.memcpy async [%{{.*}}] %[[A:.*]], %{{.*}} : memref<4xf32>, memref<4xf32>
// CHECK: gpu.dealloc async
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  func.func @binary(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @async(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error@+1 {{pe-gpu-device-buffers expects synchronous launches (no async tokens)}}
    %u = gpu.launch_func async [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.wait [%u]
    return
  }
}
