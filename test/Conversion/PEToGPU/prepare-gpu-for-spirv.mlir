// RUN: pe-opt %s --split-input-file --pe-prepare-gpu-for-spirv --verify-diagnostics | FileCheck %s

// Attributions become allocations in the SPIR-V storage classes, and the
// known block size becomes the entry point's workgroup size.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @k(%[[ARG:.*]]: memref<16xf32>) kernel attributes {{{.*}}spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>}
// CHECK-NOT: workgroup(
// CHECK-NOT: private(
// CHECK: %[[WG:.*]] = memref.alloc() : memref<16xf32, #spirv.storage_class<Workgroup>>
// CHECK: %[[PR:.*]] = memref.alloca() : memref<4xf32, #spirv.storage_class<Function>>
// CHECK: memref.load %[[ARG]]
// CHECK: memref.store %{{.*}}, %[[WG]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[PR]]
// A function that is not a kernel is left alone.
// CHECK: gpu.func @helper
// CHECK-SAME: workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: spirv.entry_point_abi
gpu.module @kernels {
  gpu.func @k(%a: memref<16xf32>)
      workgroup(%w: memref<16xf32, #gpu.address_space<workgroup>>)
      private(%p: memref<4xf32, #gpu.address_space<private>>)
      kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<16xf32>
    memref.store %x, %w[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %x, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    gpu.return
  }
  gpu.func @helper() workgroup(%w: memref<4xf32, #gpu.address_space<workgroup>>) {
    gpu.return
  }
}

// -----

// An existing entry point ABI is kept.
// CHECK-LABEL: gpu.module @kept
// CHECK: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>
gpu.module @kept {
  gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>,
      spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @unknown {
  // expected-error@+1 {{kernel has no known block size: a SPIR-V entry point needs a static workgroup size}}
  gpu.func @k() kernel {
    gpu.return
  }
}
