// Attention spelled with linalg.softmax, and with f16 tensors whose scores
// are normalised in f32 (Hugging Face `softmax(..., dtype=float32)
// .to(query.dtype)`): both raise to pe.attention. Half-precision RoPE whose
// tables are computed in f32 and cast (`cos.to(x.dtype)`) raises to an f16
// pe.rope (which computes in f32 and rounds once).
// RUN: pe-opt --pe-raise %s | FileCheck %s

// The scale is the f32 constant 0.1, exactly 0.10000000149011612.
// CHECK-LABEL: func.func @softmax_op(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4x16xf32>, %[[K:[^:]*]]: tensor<1x2x4x16xf32>, %[[V:[^:]*]]: tensor<1x2x4x16xf32>)
// CHECK: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[V]] outs({{[^)]*}}) {scale = 0.10000000149011612 : f64} : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
// CHECK-NOT: linalg.softmax
// CHECK: return %[[O]]
func.func @softmax_op(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %e0 = tensor.empty() : tensor<1x2x16x4xf32>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x16xf32>) outs(%e0 : tensor<1x2x16x4xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x4xf32> into tensor<2x16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x4x16xf32>, tensor<2x16x4xf32>) outs(%acc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
  %c = arith.constant 0.1 : f32
  %e2 = tensor.empty() : tensor<1x2x4x4xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xf32>) outs(%e2 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %c, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%scaled : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %e4 = tensor.empty() : tensor<2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x4x4xf32>, tensor<2x4x16xf32>) outs(%acc2 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, 4, 16] : tensor<2x4x16xf32> into tensor<1x2x4x16xf32>
  return %o4 : tensor<1x2x4x16xf32>
}

// The softmax over dimension 2 (the queries) is a near miss.
// CHECK-LABEL: func.func @softmax_op_wrong_dim(
// CHECK-NOT: pe.attention
// CHECK: linalg.softmax dimension(2)
func.func @softmax_op_wrong_dim(%s4: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(2) ins(%s4 : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %e4 = tensor.empty() : tensor<2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x4x4xf32>, tensor<2x4x16xf32>) outs(%acc2 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, 4, 16] : tensor<2x4x16xf32> into tensor<1x2x4x16xf32>
  return %o4 : tensor<1x2x4x16xf32>
}

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#bc = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>

// f16 attention: scores in f16, softmax in f32, probabilities cast back.
// CHECK-LABEL: func.func @attention_f16(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4x16xf16>, %[[K:[^:]*]]: tensor<1x2x4x16xf16>, %[[V:[^:]*]]: tensor<1x2x4x16xf16>)
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] outs({{[^)]*}}) : tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf16>
func.func @attention_f16(%q: tensor<1x2x4x16xf16>, %k: tensor<1x2x4x16xf16>, %v: tensor<1x2x4x16xf16>) -> tensor<1x2x4x16xf16> {
  %e0 = tensor.empty() : tensor<1x2x16x4xf16>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x16xf16>) outs(%e0 : tensor<1x2x16x4xf16>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x16xf16> into tensor<2x4x16xf16>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x4xf16> into tensor<2x16x4xf16>
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<2x4x4xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e1 : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x4x16xf16>, tensor<2x16x4xf16>) outs(%acc : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf16> into tensor<1x2x4x4xf16>
  %e2 = tensor.empty() : tensor<1x2x4x4xf32>
  %sf = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xf16>) outs(%e2 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f16, %out: f32):
    %x = arith.extf %in : f16 to f32
    %c = arith.constant 0.25 : f32
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%sf : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e5 = tensor.empty() : tensor<1x2x4x4xf16>
  %ph = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%p : tensor<1x2x4x4xf32>) outs(%e5 : tensor<1x2x4x4xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x2x4x4xf16>
  %pc = tensor.collapse_shape %ph [[0, 1], [2], [3]] : tensor<1x2x4x4xf16> into tensor<2x4x4xf16>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x16xf16> into tensor<2x4x16xf16>
  %e4 = tensor.empty() : tensor<2x4x16xf16>
  %acc2 = linalg.fill ins(%zero : f16) outs(%e4 : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x4x4xf16>, tensor<2x4x16xf16>) outs(%acc2 : tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, 4, 16] : tensor<2x4x16xf16> into tensor<1x2x4x16xf16>
  return %o4 : tensor<1x2x4x16xf16>
}

// bf16 RoPE, tables computed in f32 at positions 0..3 and cast to bf16,
// products and sum in bf16.
// CHECK-LABEL: func.func @rope_bf16(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x2x4x16xbf16>)
// CHECK: %[[F:.*]], %{{.*}} = pe.rope_frequencies : tensor<8xf32>
// CHECK: %[[R:.*]] = pe.rope half %[[X]] inv_freq(%[[F]] : tensor<8xf32>) : tensor<1x2x4x16xbf16>
// CHECK: return %[[R]]
func.func @rope_bf16(%x: tensor<1x2x4x16xbf16>) -> tensor<1x2x4x16xbf16> {
  %inv = arith.constant dense<[1.0, 0.31622776, 0.1, 0.031622775, 0.01, 0.0031622776, 0.001, 0.00031622776]> : tensor<8xf32>
  %e0 = tensor.empty() : tensor<1x1x4x16xbf16>
  %cos = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x4x16xbf16>) {
  ^bb0(%f: f32, %out: bf16):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %f : f32
    %c = math.cos %a : f32
    %cb = arith.truncf %c : f32 to bf16
    linalg.yield %cb : bf16
  } -> tensor<1x1x4x16xbf16>
  %sin = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3 mod 8)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%inv : tensor<8xf32>) outs(%e0 : tensor<1x1x4x16xbf16>) {
  ^bb0(%f: f32, %out: bf16):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %f : f32
    %s = math.sin %a : f32
    %sb = arith.truncf %s : f32 to bf16
    linalg.yield %sb : bf16
  } -> tensor<1x1x4x16xbf16>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xbf16> to tensor<1x2x4x8xbf16>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xbf16> to tensor<1x2x4x8xbf16>
  %e1 = tensor.empty() : tensor<1x2x4x8xbf16>
  %n2 = linalg.negf ins(%x2 : tensor<1x2x4x8xbf16>) outs(%e1 : tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x16xbf16>
  %e2 = tensor.empty() : tensor<1x2x4x16xbf16>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #bc, #bc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %rot, %cos, %sin : tensor<1x2x4x16xbf16>, tensor<1x2x4x16xbf16>, tensor<1x1x4x16xbf16>, tensor<1x1x4x16xbf16>) outs(%e2 : tensor<1x2x4x16xbf16>) {
  ^bb0(%a: bf16, %r: bf16, %c: bf16, %s: bf16, %out: bf16):
    %ac = arith.mulf %c, %a : bf16
    %rs = arith.mulf %r, %s : bf16
    %sum = arith.addf %rs, %ac : bf16
    linalg.yield %sum : bf16
  } -> tensor<1x2x4x16xbf16>
  return %y : tensor<1x2x4x16xbf16>
}

// A causal mask added to the scores (select(j > i, finfo.min, 0)) is
// `causal`.
// CHECK-LABEL: func.func @mask_causal(
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs({{[^)]*}}) {causal} : tensor<1x2x4x16xf32>
func.func @mask_causal(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %e0 = tensor.empty() : tensor<1x2x16x4xf32>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x16xf32>) outs(%e0 : tensor<1x2x16x4xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x4xf32> into tensor<2x16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x4x16xf32>, tensor<2x16x4xf32>) outs(%acc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
  %e2 = tensor.empty() : tensor<1x2x4x4xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xf32>) outs(%e2 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sgt, %j, %i : index
    %min = arith.constant -3.40282347E+38 : f32
    %b = arith.select %hide, %min, %zero : f32
    %c = arith.constant 0.25 : f32
    %sc = arith.mulf %in, %c : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%masked : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %e4 = tensor.empty() : tensor<2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x4x4xf32>, tensor<2x4x16xf32>) outs(%acc2 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, 4, 16] : tensor<2x4x16xf32> into tensor<1x2x4x16xf32>
  return %o4 : tensor<1x2x4x16xf32>
}

// A mask that hides the diagonal too (j >= i): the first query sees no key,
// a row the original normalises uniformly over its finfo.min scores and
// pe.attention sets to 0, so it is not raised.
// CHECK-LABEL: func.func @mask_hides_diagonal(
// CHECK-NOT: pe.attention
// CHECK: linalg.softmax
func.func @mask_hides_diagonal(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %e0 = tensor.empty() : tensor<1x2x16x4xf32>
  %kt = linalg.transpose ins(%k : tensor<1x2x4x16xf32>) outs(%e0 : tensor<1x2x16x4xf32>) permutation = [0, 1, 3, 2]
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %kc = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x2x16x4xf32> into tensor<2x16x4xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = linalg.batch_matmul ins(%qc, %kc : tensor<2x4x16xf32>, tensor<2x16x4xf32>) outs(%acc : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf32> into tensor<1x2x4x4xf32>
  %e2 = tensor.empty() : tensor<1x2x4x4xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4 : tensor<1x2x4x4xf32>) outs(%e2 : tensor<1x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %hide = arith.cmpi sge, %j, %i : index
    %min = arith.constant -3.40282347E+38 : f32
    %b = arith.select %hide, %min, %zero : f32
    %c = arith.constant 0.25 : f32
    %sc = arith.mulf %in, %c : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%masked : tensor<1x2x4x4xf32>) outs(%e3 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %pc = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<1x2x4x4xf32> into tensor<2x4x4xf32>
  %vc = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<1x2x4x16xf32> into tensor<2x4x16xf32>
  %e4 = tensor.empty() : tensor<2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o = linalg.batch_matmul ins(%pc, %vc : tensor<2x4x4xf32>, tensor<2x4x16xf32>) outs(%acc2 : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 2, 4, 16] : tensor<2x4x16xf32> into tensor<1x2x4x16xf32>
  return %o4 : tensor<1x2x4x16xf32>
}
