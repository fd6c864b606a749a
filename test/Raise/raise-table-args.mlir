// apply_rotary_pos_emb on its own, with cos/sin [1, T, D] as arguments
// (Inputs/rope_table_args.mlir). The pass cannot see that the two halves of
// such tables are equal (Hugging Face's cat(freqs, freqs)), so it raises
// only with assume-duplicated-tables, to pe.rope with the first halves as
// cache tables, and otherwise says why in a missed remark.
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/rope_table_args.mlir 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: pe-opt --pe-raise=assume-duplicated-tables %S/Inputs/rope_table_args.mlir | FileCheck %s

// DEFAULT: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the two channels of a rotated pair read different entries of a cos/sin table the pass cannot see; assume-duplicated-tables raises it anyway"
// DEFAULT-NOT: pe.rope

// CHECK-LABEL: func.func @rope_table_args(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xf32>, %[[COS:[^:]*]]: tensor<1x4x16xf32>, %[[SIN:[^:]*]]: tensor<1x4x16xf32>)
// CHECK: %[[C:.*]] = tensor.extract_slice %[[COS]][0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[SIN]][0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: %[[R:.*]] = pe.rope half %[[X]] cache(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) : tensor<1x2x4x16xf32>
// CHECK: return %[[R]]
