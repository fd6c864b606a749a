// Execution test of the tensor-core attention kernel with one K/V stage on
// the Vulkan target (pe-gpu-pipeline{target=spirv tensor-cores=emulate},
// lavapipe): with a 12 KiB workgroup memory budget two stages of 16 keys
// (15360 bytes with the emulation buffers) do not fit, so the kernel stages
// each tile into its one stage after a barrier (remark tensor-core-stages),
// in tiles of 16 keys. The case of tc_stages_rope_causal_d64.mlir
// (interleaved RoPE, causal, GQA 2/1, Tk = 200: 13 tiles, the last one 8
// keys), compared with the float64 numpy reference
// (test/Integration/lib/cases.py, pe_ref.py).
// Tolerance: rtol 2e-3, atol 1e-3 (the f16 execution tests' tolerance).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/cases.py tc_stages_rope_causal_d64 %t
// RUN: pe-run %s -e tc_single_stage --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy --pipeline=vulkan --gpu-tensor-cores=emulate --gpu-shared-memory-bytes=12288 --remarks=convert-pe-to-gpu 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK: remark: [Missed] tensor-core-stages | Category:convert-pe-to-gpu | Reason="the tensor-core attention kernel stages K/V tiles in one workgroup-memory stage (the copies of a tile do not overlap the mma.sync of the one before): two stages of 16 keys take 15360 bytes, above shared-memory-bytes=12288"
// REMARK: Reason="the tensor-core attention kernel stages K/V tiles of 16 keys (11264 bytes of workgroup memory), not key-tile=32 (15360 bytes): shared-memory-bytes=12288"
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-3 --atol 1e-3 | FileCheck %s
// CHECK: npycmp: PASS

func.func @tc_single_stage(%q: tensor<2x2x130x64xf16>, %k: tensor<2x1x200x64xf16>, %v: tensor<2x1x200x64xf16>, %f: tensor<32xf64>) -> tensor<2x2x130x64xf16> {
  %init = tensor.empty() : tensor<2x2x130x64xf16>
  %0 = pe.attention %q, %k, %v rope <interleaved> inv_freq(%f : tensor<32xf64>) outs(%init : tensor<2x2x130x64xf16>) {causal} : tensor<2x2x130x64xf16>, tensor<2x1x200x64xf16>, tensor<2x1x200x64xf16> -> tensor<2x2x130x64xf16>
  return %0 : tensor<2x2x130x64xf16>
}
