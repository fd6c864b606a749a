// pe-run --emit-executable --pipeline=vulkan: a standalone executable whose
// RoPE + causal GQA attention kernel runs through pe's Vulkan runtime
// (linked in; lavapipe on a machine without a GPU), compared with the float64
// reference (pe_ref.py) and with pe-run's JIT of the same pipeline.
// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t/f16
// RUN: %python %S/Inputs/aot_attention.py %t float32 40
// RUN: pe-run %s -e attn --pipeline=vulkan --emit-executable=%t/attn \
// RUN:   | FileCheck %s --check-prefix=EMIT
// EMIT: pe-run: wrote '{{.*}}attn' (function 'attn', pipeline vulkan; needs libvulkan.so.1 and a Vulkan driver at run time
// RUN: %t/attn --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy \
// RUN:   --input=%t/f.npy --output=%t/out.npy
// f32, tolerance vs float64: rtol 1e-5, atol 1e-6 (pe-run's defaults;
// measured max_abs 8.3e-8).
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: pe-run %s -e attn --pipeline=vulkan --input=%t/q.npy --input=%t/k.npy \
// RUN:   --input=%t/v.npy --input=%t/f.npy --output=%t/jit.npy
// RUN: %npycmp %t/out.npy %t/jit.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS
//
// f16 inputs and result: tolerance vs float64 rtol 2e-3, atol 1e-3 (the f16
// result's rounding, 2^-11 relative, plus f16 RoPE products; measured
// max_abs 2.3e-4).
// RUN: %python %S/Inputs/aot_attention.py %t/f16 float16 40
// RUN: pe-run %s -e attn_f16 --pipeline=vulkan --emit-executable=%t/attn_f16 > /dev/null
// RUN: %t/attn_f16 --input=%t/f16/q.npy --input=%t/f16/k.npy --input=%t/f16/v.npy \
// RUN:   --input=%t/f16/f.npy --output=%t/f16/out.npy --repeat=2 \
// RUN:   | FileCheck %s --check-prefix=TIME
// TIME: pe-aot: time pipeline=vulkan runs=2 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}}
// RUN: %npycmp %t/f16/out.npy %t/f16/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
//
// The runtime's one-line error for a device that is not there, from the
// executable:
// RUN: env PE_VULKAN_DEVICE=no-such-device not %t/attn --random-inputs \
// RUN:   --output=%t/x.npy 2>&1 | FileCheck %s --check-prefix=NODEVICE
// NODEVICE: pe-vulkan-runtime: error: no Vulkan device matches PE_VULKAN_DEVICE='no-such-device'
//
// RUN: ldd %t/attn | FileCheck %s --check-prefix=LDD
// LDD: libvulkan.so.1
// LDD-NOT: {{libMLIR|libLLVM|libstdc\+\+|libc\+\+|libmlir}}

func.func @attn(%q: tensor<1x4x40x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x40x16xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init0 : tensor<1x4x40x16xf32>) {causal} : tensor<1x4x40x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32> -> tensor<1x4x40x16xf32>
  return %0 : tensor<1x4x40x16xf32>
}

func.func @attn_f16(%q: tensor<1x4x40x16xf16>, %k: tensor<1x2x40x16xf16>, %v: tensor<1x2x40x16xf16>, %f: tensor<8xf64>) -> tensor<1x4x40x16xf16> {
  %attn_init1 = tensor.empty() : tensor<1x4x40x16xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) outs(%attn_init1 : tensor<1x4x40x16xf16>) {causal} : tensor<1x4x40x16xf16>, tensor<1x2x40x16xf16>, tensor<1x2x40x16xf16> -> tensor<1x4x40x16xf16>
  return %0 : tensor<1x4x40x16xf16>
}
