// Near misses pe-raise must leave alone (Inputs/rope_near_misses.mlir and
// Inputs/attention_softmax_dim.mlir, written by Inputs/gen_corpus.py): a
// rotate_half with the negation on the wrong half, with its halves swapped,
// cos and sin of different frequencies, and a softmax over the queries
// instead of the keys. The correct rotation in the same file is raised.
// RUN: pe-opt --pe-raise %S/Inputs/rope_near_misses.mlir | FileCheck %s
// RUN: pe-opt --pe-raise %S/Inputs/attention_softmax_dim.mlir | FileCheck %s --check-prefix=SOFTMAX

// CHECK-LABEL: func.func @rope_ok(
// CHECK: pe.rope half
// CHECK-LABEL: func.func @rope_sign(
// CHECK-NOT: pe.rope
// CHECK: tensor.concat
// CHECK-LABEL: func.func @rope_swap(
// CHECK-NOT: pe.rope
// CHECK: tensor.concat
// CHECK-LABEL: func.func @rope_sin_freq(
// CHECK-NOT: pe.rope
// CHECK: math.sin
// CHECK-NOT: pe.rope
// CHECK: return

// SOFTMAX-LABEL: func.func @softmax_wrong_dim(
// SOFTMAX: pe.rope half
// SOFTMAX: pe.rope half
// SOFTMAX-NOT: pe.attention
// SOFTMAX: linalg.batch_matmul
// SOFTMAX-NOT: pe.attention
// SOFTMAX: return

// Where the IR came close, a missed remark says why (one for each near miss,
// none for the raised rotation).
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/rope_near_misses.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REMARK-COUNT-2: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the products pair no channel c with c +- R/2 (split-half) or c +- 1 (interleaved) with the signs of a rotation (x[c] cos - x[c'] sin for the first channel of a pair, x[c] cos + x[c'] sin for the second)"
// REMARK: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the cosine and the sine of a channel are not of the same angle (position times frequency)"
// REMARK-NOT: remark:
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/attention_softmax_dim.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=SOFTMAX-REMARK
// SOFTMAX-REMARK: remark: [Missed] attention-not-raised | Category:pe-raise | Reason="the softmax's sum does not run over the keys that the product with V sums over"
