// PTX of the kernels with RoPE positions tensors (the tables get a row per
// position; [B, T] positions are read at row b T + t): the SIMT prefill
// attention kernel ([T] i32 query and key positions), the decode kernel
// ([B, 1] query and [B, Tk] key positions), the tensor-core kernel ([B, T]
// i64) and the standalone RoPE kernel ([B, T] i32), for sm_80. Every kernel assembles with ptxas, without spills. Semantics:
// the execution tests under --param pe_pipeline=vulkan (and
// test/Integration/GPU/tc_rope_positions_gqa_d64.mlir).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: pe-opt %s --pe-gpu-pipeline="target=nvvm chip=sm_80 fuse=false" -o %t/sm80.mlir
// RUN: %extract_gpu_objects %t/sm80.mlir %t/sm80 | FileCheck %s --check-prefix=FILES
// RUN: for f in %t/sm80/*.ptx; do %ptxas -arch=sm_80 -O3 -v $f -o %t/k.cubin || exit 1; done 2>&1 | FileCheck %s --check-prefix=PTXAS

// FILES-DAG: decode_positions_kernel.ptx
// FILES-DAG: prefill_positions_kernel.ptx
// FILES-DAG: rope_positions_kernel.ptx
// FILES-DAG: tc_positions_kernel.ptx

// PTXAS: Compiling entry function 'decode_positions_kernel' for 'sm_80'
// PTXAS-NEXT: Function properties for decode_positions_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'prefill_positions_kernel' for 'sm_80'
// PTXAS-NEXT: Function properties for prefill_positions_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'rope_positions_kernel' for 'sm_80'
// PTXAS-NEXT: Function properties for rope_positions_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'tc_positions_kernel' for 'sm_80'
// PTXAS-NEXT: Function properties for tc_positions_kernel
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @prefill_positions(%q: tensor<1x8x24x64xf32>, %k: tensor<1x2x24x64xf32>, %v: tensor<1x2x24x64xf32>, %f: tensor<32xf64>, %pq: tensor<24xi32>, %pk: tensor<24xi32>) -> tensor<1x8x24x64xf32> {
  %init = tensor.empty() : tensor<1x8x24x64xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<24xi32>) key_positions(%pk : tensor<24xi32>) outs(%init : tensor<1x8x24x64xf32>) {causal} : tensor<1x8x24x64xf32>, tensor<1x2x24x64xf32>, tensor<1x2x24x64xf32> -> tensor<1x8x24x64xf32>
  return %0 : tensor<1x8x24x64xf32>
}

func.func @decode_positions(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x41x64xf32>, %v: tensor<2x2x41x64xf32>, %f: tensor<32xf32>, %pq: tensor<2x1xi64>, %pk: tensor<2x41xi32>) -> tensor<2x8x1x64xf32> {
  %init = tensor.empty() : tensor<2x8x1x64xf32>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf32>) query_positions(%pq : tensor<2x1xi64>) key_positions(%pk : tensor<2x41xi32>) outs(%init : tensor<2x8x1x64xf32>) {causal} : tensor<2x8x1x64xf32>, tensor<2x2x41x64xf32>, tensor<2x2x41x64xf32> -> tensor<2x8x1x64xf32>
  return %0 : tensor<2x8x1x64xf32>
}

func.func @tc_positions(%q: tensor<2x4x40x64xf16>, %k: tensor<2x2x70x64xf16>, %v: tensor<2x2x70x64xf16>, %f: tensor<32xf64>, %pq: tensor<2x40xi64>, %pk: tensor<2x70xi64>) -> tensor<2x4x40x64xf16> {
  %init = tensor.empty() : tensor<2x4x40x64xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<32xf64>) query_positions(%pq : tensor<2x40xi64>) key_positions(%pk : tensor<2x70xi64>) outs(%init : tensor<2x4x40x64xf16>) {causal} : tensor<2x4x40x64xf16>, tensor<2x2x70x64xf16>, tensor<2x2x70x64xf16> -> tensor<2x4x40x64xf16>
  return %0 : tensor<2x4x40x64xf16>
}

func.func @rope_positions(%x: tensor<2x4x8x64xf32>, %f: tensor<32xf32>, %p: tensor<2x8xi32>) -> tensor<2x4x8x64xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<32xf32>) positions(%p : tensor<2x8xi32>) : tensor<2x4x8x64xf32>
  return %0 : tensor<2x4x8x64xf32>
}
