// Raise then fuse, without CSE in between (issue 31): pe-raise builds one
// frequency op (or one slice of the cos/sin tables) per rotated tensor, so the
// query's and the key's pe.rope take distinct but equal values; the RoPE
// fusion compares them by value and fires. On the Llama-3.1 block of the
// raising corpus (causal, positions arange(T)):
// - the documented flow `pe-opt --pe-raise | pe-opt --pe-cpu-pipeline` (the
//   IR after the pipeline's fusion pass shows the fused attention, and no
//   missed remark says otherwise),
// - the fusion pass straight after pe-raise, with no folding or CSE (which
//   used to report "the query's and the key's pe.rope differ in ...
//   frequencies"),
// - and the same through pe-gpu-pipeline.
// The C++ populate path: unittests/Transforms/RaiseThenFuseTest.cpp.
// RUN: pe-opt --pe-raise %S/../Raise/Inputs/llama3_block_arange.mlir | pe-opt --pe-cpu-pipeline --mlir-print-ir-after=pe-fuse-encodings-into-attention --remarks-filter='pe-fuse.*' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: pe-opt --pe-raise %S/../Raise/Inputs/llama3_block_arange.mlir | pe-opt --pe-fuse-encodings-into-attention --remarks-filter='pe-fuse.*' 2>&1 | FileCheck %s --check-prefix=FUSE
// RUN: pe-opt --pe-raise %S/../Raise/Inputs/llama3_block_arange.mlir | pe-opt --pe-gpu-pipeline=target=spirv --mlir-print-ir-after=pe-fuse-encodings-into-attention --remarks-filter='pe-fuse.*' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU

// CPU-NOT: remark
// CPU: IR Dump After FuseEncodingsIntoAttention
// CPU-NOT: pe.rope
// CPU: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<32xf64>) outs({{[^)]*}}) {causal} : tensor<1x4x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32> -> tensor<1x4x8x64xf32>
// CPU-NOT: pe.rope
// CPU-NOT: remark

// FUSE-NOT: remark
// FUSE-LABEL: func.func @llama3_block_arange
// FUSE: %[[F:.*]], %{{.*}} = pe.llama3_scale
// FUSE-NOT: pe.llama3_scale
// FUSE-NOT: pe.rope
// FUSE: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%[[F]] : tensor<32xf32>) outs({{[^)]*}}) {causal}
// FUSE-NOT: pe.rope
// FUSE-NOT: remark
