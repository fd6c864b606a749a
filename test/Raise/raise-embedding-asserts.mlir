// torch-mlir's embedding lookups check their i64 ids with cf.assert inside
// the gather's payload (Inputs/torch_embed_asserts.mlir, the spelling of
// TorchToLinalg's ConvertAtenEmbeddingOp). The tracer skips ops without
// results, so the checks do not stop the match: wte[ids] + wpe[arange(T)]
// raises to pe.add_learned. The checks stay: the token lookup (the
// encoding's input) keeps both, and the position lookup the raising no longer
// reads keeps its gather and both checks too (cf.assert has effects, so the
// generic is not dead), so an id out of range still stops the program
// (embedding-asserts-execution.test).
// RUN: pe-opt --pe-raise --remarks-filter=pe-raise %S/Inputs/torch_embed_asserts.mlir 2>&1 | FileCheck %s

// CHECK-NOT: remark
// CHECK-LABEL: func.func @torch_embed_asserts(
// CHECK-SAME: %[[IDS:[^:]*]]: tensor<1x8xi64>, %[[WTE:[^:]*]]: tensor<50x32xf32>, %[[WPE:[^:]*]]: tensor<16x32xf32>)
// CHECK: %[[TOK:.*]] = linalg.generic {{.*}} ins(%[[IDS]] : tensor<1x8xi64>)
// CHECK: cf.assert %{{.*}}, "index must be smaller than dim size"
// CHECK: cf.assert %{{.*}}, "index must be larger or equal to 0"
// CHECK: tensor.extract %[[WTE]]
// CHECK: linalg.generic
// CHECK: cf.assert %{{.*}}, "index must be smaller than dim size"
// CHECK: cf.assert %{{.*}}, "index must be larger or equal to 0"
// CHECK: tensor.extract %[[WPE]]
// CHECK: %[[R:.*]] = pe.add_learned %[[TOK]], %[[WPE]] : tensor<1x8x32xf32>, tensor<16x32xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: remark
