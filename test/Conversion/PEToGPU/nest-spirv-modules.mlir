// RUN: pe-opt %s --split-input-file --pe-nest-spirv-modules --verify-diagnostics | FileCheck %s

// The spirv.module that convert-gpu-to-spirv made from gpu.module @k moves
// into it; a spirv.module of another name stays where it is.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: spirv.module @other Logical GLSL450
// CHECK: gpu.module @k {
// CHECK-NEXT: spirv.module @__spv__k Logical GLSL450
// CHECK: gpu.func @k
module attributes {gpu.container_module} {
  spirv.module @__spv__k Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  }
  spirv.module @other Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  }
  gpu.module @k {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error@+1 {{no gpu.module named 'missing'}}
  spirv.module @__spv__missing Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  }
}
