// apply_rotary_pos_emb on its own, with cos/sin [1, T, D] as arguments
// (Inputs/rope_table_args.mlir). The pass cannot see that the two halves of
// such tables are equal (Hugging Face's cat(freqs, freqs)), so it raises
// only with assume-duplicated-tables, to pe.rope with the first halves as
// cache tables, and otherwise says why in a missed remark. The assumption is
// checked: before the pe.rope, the raised program compares the first and the
// second half of each table in every row and stops (cf.assert) when they
// differ (table-args-execution.test runs both cases).
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/rope_table_args.mlir 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: pe-opt --pe-raise=assume-duplicated-tables %S/Inputs/rope_table_args.mlir | FileCheck %s

// DEFAULT: remark: [Missed] rope-not-raised | Category:pe-raise | Reason="the two channels of a rotated pair read different entries of a cos/sin table the pass cannot see; assume-duplicated-tables raises it anyway"
// DEFAULT-NOT: pe.rope

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @rope_table_args(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xf32>, %[[COS:[^:]*]]: tensor<1x4x16xf32>, %[[SIN:[^:]*]]: tensor<1x4x16xf32>)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[C:.*]] = tensor.extract_slice %[[COS]][0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: %[[C2:.*]] = tensor.extract_slice %[[COS]][0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<i1>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[TRUE]] : i1) outs(%[[E]] : tensor<i1>)
// CHECK: %[[ALL:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[SCALAR]]], iterator_types = ["reduction", "reduction"]} ins(%[[C]], %[[C2]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: i1):
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK: %[[AND:.*]] = arith.andi %[[ACC]], %[[EQ]] : i1
// CHECK: linalg.yield %[[AND]] : i1
// CHECK: %[[OK:.*]] = tensor.extract %[[ALL]][] : tensor<i1>
// CHECK: cf.assert %[[OK]], "pe-raise assume-duplicated-tables: the cos table (argument #1 of @rope_table_args) of the rotary embedding at {{.*}}rope_table_args.mlir:27:10 holds different values for the two channels of a rotated pair (c and c + 8); the raised pe.rope would read only the first"
// CHECK: %[[S:.*]] = tensor.extract_slice %[[SIN]][0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[SIN]][0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x16xf32> to tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S]], %[[S2]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: cf.assert %{{.*}}, "pe-raise assume-duplicated-tables: the sin table (argument #2 of @rope_table_args)
// CHECK: %[[R:.*]] = pe.rope half %[[X]] cache(%[[C]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>) : tensor<1x2x4x16xf32>
// CHECK: return %[[R]]
