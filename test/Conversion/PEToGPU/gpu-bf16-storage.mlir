// RUN: pe-opt %s --split-input-file --pe-gpu-bf16-storage --verify-diagnostics | FileCheck %s

// A kernel's bf16 buffers become i16 buffers with bitcasts at their loads and
// stores; its launch passes them through unrealized casts. Inside the kernel,
// extf bf16 -> f64 goes through f32 and truncf f64 -> bf16 rounds to odd into
// f32 first. extf bf16 -> f32 and the f32 buffer stay as they are.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[X:.*]]: memref<8xbf16>, %[[Y:.*]]: memref<8xbf16>, %[[Z:.*]]: memref<8xf32>)
// CHECK-DAG: %[[XI:.*]] = builtin.unrealized_conversion_cast %[[X]] : memref<8xbf16> to memref<8xi16>
// CHECK-DAG: %[[YI:.*]] = builtin.unrealized_conversion_cast %[[Y]] : memref<8xbf16> to memref<8xi16>
// CHECK: gpu.launch_func @k::@k {{.*}} args(%[[XI]] : memref<8xi16>, %[[YI]] : memref<8xi16>, %[[Z]] : memref<8xf32>)
// CHECK: gpu.func @k(%[[A:.*]]: memref<8xi16>, %[[B:.*]]: memref<8xi16>, %[[C:.*]]: memref<8xf32>) kernel
// CHECK: %[[BITS:.*]] = memref.load %[[A]][%{{.*}}] : memref<8xi16>
// CHECK: %[[V:.*]] = arith.bitcast %[[BITS]] : i16 to bf16
// CHECK: %[[F:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK: memref.store %[[F]], %[[C]]
// CHECK: %[[F32:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK: %[[D:.*]] = arith.extf %[[F32]] : f32 to f64
// CHECK: %[[S:.*]] = arith.mulf %[[D]], %[[D]] : f64
// CHECK: %[[R:.*]] = arith.truncf %[[S]] : f64 to f32
// CHECK: %[[BACK:.*]] = arith.extf %[[R]] : f32 to f64
// CHECK: %[[INEXACT:.*]] = arith.cmpf one, %[[BACK]], %[[S]] : f64
// CHECK: %[[RB:.*]] = arith.bitcast %[[R]] : f32 to i32
// CHECK: %[[DOWN:.*]] = arith.subi %[[RB]], %{{.*}} : i32
// CHECK: %[[TZ:.*]] = arith.select %{{.*}}, %[[DOWN]], %[[RB]] : i32
// CHECK: %[[ODD:.*]] = arith.ori %[[TZ]], %{{.*}} : i32
// CHECK: %[[RO:.*]] = arith.select %[[INEXACT]], %[[ODD]], %[[RB]] : i32
// CHECK: %[[RF:.*]] = arith.bitcast %[[RO]] : i32 to f32
// CHECK: %[[OUT:.*]] = arith.truncf %[[RF]] : f32 to bf16
// CHECK: %[[OUTBITS:.*]] = arith.bitcast %[[OUT]] : bf16 to i16
// CHECK: memref.store %[[OUTBITS]], %[[B]][%{{.*}}] : memref<8xi16>
// CHECK-NOT: f64 to bf16
module attributes {gpu.container_module} {
  func.func @host(%x: memref<8xbf16>, %y: memref<8xbf16>, %z: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%x : memref<8xbf16>, %y : memref<8xbf16>, %z : memref<8xf32>)
    return
  }
  gpu.module @k {
    gpu.func @k(%a: memref<8xbf16>, %b: memref<8xbf16>, %c: memref<8xf32>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<8xbf16>
      %f = arith.extf %v : bf16 to f32
      memref.store %f, %c[%t] : memref<8xf32>
      %d = arith.extf %v : bf16 to f64
      %s = arith.mulf %d, %d : f64
      %r = arith.truncf %s : f64 to bf16
      memref.store %r, %b[%t] : memref<8xbf16>
      gpu.return
    }
  }
}

// -----

// Must not fire: f16 buffers and f32 <-> bf16 conversions on values that do
// not come from a kernel buffer, and host functions.
// CHECK-LABEL: func.func @host_f16
// CHECK-NOT: unrealized_conversion_cast
// CHECK: gpu.launch_func @k16::@k16 {{.*}} args(%{{.*}} : memref<8xf16>)
// CHECK: gpu.func @k16(%{{.*}}: memref<8xf16>) kernel
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: arith.bitcast
// CHECK: func.func @not_a_kernel(%{{.*}}: memref<8xbf16>) -> f64
// CHECK: arith.extf %{{.*}} : bf16 to f64
module attributes {gpu.container_module} {
  func.func @host_f16(%x: memref<8xf16>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k16::@k16 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<8xf16>)
    return
  }
  gpu.module @k16 {
    gpu.func @k16(%a: memref<8xf16>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %a[%t] : memref<8xf16>
      %f = arith.extf %v : f16 to f32
      %b = arith.truncf %f : f32 to bf16
      %g = arith.extf %b : bf16 to f32
      %h = arith.truncf %g : f32 to f16
      memref.store %h, %a[%t] : memref<8xf16>
      gpu.return
    }
  }
  func.func @not_a_kernel(%x: memref<8xbf16>) -> f64 {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<8xbf16>
    %d = arith.extf %v : bf16 to f64
    return %d : f64
  }
}

// -----

// The kernel's own bf16 buffers (workgroup and private, as
// pe-prepare-gpu-for-spirv leaves them) become i16 buffers too.
// CHECK-LABEL: gpu.func @tiles
// CHECK: %[[W:.*]] = memref.alloc() : memref<16xi16, #spirv.storage_class<Workgroup>>
// CHECK: %[[P:.*]] = memref.alloca() : memref<4xi16, #spirv.storage_class<Function>>
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK: memref.store %[[BITS]], %[[W]]
// CHECK: %[[L:.*]] = memref.load %[[W]]{{.*}} : memref<16xi16, #spirv.storage_class<Workgroup>>
// CHECK: %[[V:.*]] = arith.bitcast %[[L]] : i16 to bf16
// CHECK: memref.store %{{.*}}, %[[P]]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @tiles(%a: memref<16xf32>) kernel {
      %w = memref.alloc() : memref<16xbf16, #spirv.storage_class<Workgroup>>
      %p = memref.alloca() : memref<4xbf16, #spirv.storage_class<Function>>
      %t = gpu.thread_id x
      %x = memref.load %a[%t] : memref<16xf32>
      %h = arith.truncf %x : f32 to bf16
      memref.store %h, %w[%t] : memref<16xbf16, #spirv.storage_class<Workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %y = memref.load %w[%c0] : memref<16xbf16, #spirv.storage_class<Workgroup>>
      memref.store %y, %p[%c0] : memref<4xbf16, #spirv.storage_class<Function>>
      gpu.return
    }
  }
}

// -----

// A bf16 kernel buffer used by anything but a load or a store.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<8xbf16>) kernel {
      // expected-error @below {{pe-gpu-bf16-storage: a bf16 kernel buffer is used by 'memref.subview'; only memref.load and memref.store are rewritten}}
      %s = memref.subview %a[0] [4] [1] : memref<8xbf16> to memref<4xbf16, strided<[1]>>
      gpu.return
    }
  }
}
