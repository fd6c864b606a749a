// Softmax spellings frontends emit (Inputs/softmax_forms.mlir, written by
// Inputs/gen_softmax_forms.py): torch-mlir's two-result max/argmax
// reduction of which only the maximum is used, exp(log_softmax(s)) and
// exp(s - logsumexp(s)) are raised to pe.attention; a softmax with 1 added
// to its sum and a mask that is not causal are not, with a missed remark
// each naming what broke the match.
// RUN: pe-opt --pe-raise %S/Inputs/softmax_forms.mlir | FileCheck %s
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/softmax_forms.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @softmax_maxdim(
// CHECK: pe.attention {{.*}}{causal}
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @softmax_log(
// CHECK: pe.attention {{.*}}{causal}
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @softmax_lse(
// CHECK: pe.attention {{.*}}{causal}
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @softmax_plus_one(
// CHECK-NOT: pe.attention
// CHECK: math.exp
// CHECK-LABEL: func.func @mask_not_causal(
// CHECK-NOT: pe.attention
// CHECK: math.exp

// REMARK-NOT: remark
// REMARK: remark: [Missed] attention-not-raised | Category:pe-raise | Reason="the factor multiplying V is not a softmax of a recognised form
// REMARK-NOT: remark
// REMARK: remark: [Missed] attention-not-raised | Category:pe-raise | Reason="the scores are masked by a select whose condition is not a causal comparison
// REMARK-NOT: remark
