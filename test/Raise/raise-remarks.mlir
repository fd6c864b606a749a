// The missed remarks of pe-raise (category pe-raise) for IR that comes
// close to a pe op but differs in something the user can see.
// RUN: pe-opt %s --pe-raise --remarks-filter=pe-raise --verify-diagnostics -o /dev/null
// Without a filter nothing is reported.
// RUN: pe-opt %s --pe-raise -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark: [Missed]

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
#red = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#redq = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>

// A 16-entry angle table whose two halves differ: channel c and c + 8 of a
// split-half pair rotate by different angles.
func.func @pair_angles_differ(%x: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %f = arith.constant dense<[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.00390625]> : tensor<16xf32>
  %e0 = tensor.empty() : tensor<1x1x4x16xf32>
  %cos = linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f : tensor<16xf32>) outs(%e0 : tensor<1x1x4x16xf32>) {
  ^bb0(%w: f32, %out: f32):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %w : f32
    %c = math.cos %a : f32
    linalg.yield %c : f32
  } -> tensor<1x1x4x16xf32>
  %sin = linalg.generic {indexing_maps = [#ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f : tensor<16xf32>) outs(%e0 : tensor<1x1x4x16xf32>) {
  ^bb0(%w: f32, %out: f32):
    %t = linalg.index 2 : index
    %ti = arith.index_cast %t : index to i64
    %p = arith.sitofp %ti : i64 to f32
    %a = arith.mulf %p, %w : f32
    %s = math.sin %a : f32
    linalg.yield %s : f32
  } -> tensor<1x1x4x16xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 8] [1, 2, 4, 8] [1, 1, 1, 1] : tensor<1x2x4x16xf32> to tensor<1x2x4x8xf32>
  %e1 = tensor.empty() : tensor<1x2x4x8xf32>
  %n2 = linalg.negf ins(%x2 : tensor<1x2x4x8xf32>) outs(%e1 : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %rot = tensor.concat dim(3) %n2, %x1 : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x16xf32>
  %e2 = tensor.empty() : tensor<1x2x4x16xf32>
  // expected-remark@+1 {{[Missed] rope-not-raised | Category:pe-raise | Reason="the two channels of a rotated pair have different angles"}}
  %y = linalg.generic {indexing_maps = [#id4, #id4, #bc, #bc, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %rot, %cos, %sin : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) outs(%e2 : tensor<1x2x4x16xf32>) {
  ^bb0(%a: f32, %r: f32, %c: f32, %s: f32, %out: f32):
    %ac = arith.mulf %a, %c : f32
    %rs = arith.mulf %r, %s : f32
    %sum = arith.addf %ac, %rs : f32
    linalg.yield %sum : f32
  } -> tensor<1x2x4x16xf32>
  return %y : tensor<1x2x4x16xf32>
}

// softmax(S) V over keys j, with the maximum subtracted taken over the
// queries (dimension 2): not a per-row shift, so not a softmax.
func.func @max_over_queries(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<1x2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%acc : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e1 = tensor.empty() : tensor<1x2x1x4xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x2x1x4xf32>) -> tensor<1x2x1x4xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #redq], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%s : tensor<1x2x4x4xf32>) outs(%mi : tensor<1x2x1x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x1x4xf32>
  %ex = linalg.generic {indexing_maps = [#id4, #redq, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mx : tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>) outs(%e0 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e2 = tensor.empty() : tensor<1x2x4x1xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
  %z = linalg.generic {indexing_maps = [#id4, #red], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex : tensor<1x2x4x4xf32>) outs(%zi : tensor<1x2x4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #red, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) outs(%e0 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  // expected-remark@+1 {{[Missed] attention-not-raised | Category:pe-raise | Reason="the softmax's maximum is not over the keys that the product with V sums over"}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>) outs(%acc2 : tensor<1x2x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// f32 queries and keys with f16 values widened inside the product with V:
// pe.attention takes Q, K, V and the result in one element type.
func.func @mixed_types(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf16>) -> tensor<1x2x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x2x4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) outs(%acc : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x4xf32>
  %p = linalg.softmax dimension(3) ins(%s : tensor<1x2x4x4xf32>) outs(%e0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e3 = tensor.empty() : tensor<1x2x4x16xf32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  // expected-remark@+1 {{[Missed] attention-not-raised | Category:pe-raise | Reason="query, key, value and the result differ in element type"}}
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, i, e, j) -> (b, h, i, j)>, affine_map<(b, h, i, e, j) -> (b, h, j, e)>, affine_map<(b, h, i, e, j) -> (b, h, i, e)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf16>) outs(%acc2 : tensor<1x2x4x16xf32>) {
  ^bb0(%a: f32, %b: f16, %o: f32):
    %bw = arith.extf %b : f16 to f32
    %m = arith.mulf %a, %bw : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// One [H, T, D] value tensor shared by both batch entries (the contraction
// reads it at [h, j, e] for every b): a rank-4 attention of batch 2 needs a
// value read at [b, h / g, j, e], so nothing is raised and the remark names
// the value.
#q5 = affine_map<(b, h, i, j, d) -> (b, h, i, d)>
#k5 = affine_map<(b, h, i, j, d) -> (b, h, j, d)>
#s5 = affine_map<(b, h, i, j, d) -> (b, h, i, j)>
#p5 = affine_map<(b, h, i, e, j) -> (b, h, i, j)>
#v5 = affine_map<(b, h, i, e, j) -> (h, j, e)>
#o5 = affine_map<(b, h, i, e, j) -> (b, h, i, e)>
#r5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @value_shared_across_batch(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x2x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.40282347E+38 : f32
  %es = tensor.empty() : tensor<2x2x4x4xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %s = linalg.generic {indexing_maps = [#q5, #k5, #s5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) outs(%fs : tensor<2x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x4xf32>
  %er = tensor.empty() : tensor<2x2x4xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%er : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %mx = linalg.reduce ins(%s : tensor<2x2x4x4xf32>) outs(%fm : tensor<2x2x4xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %ex = linalg.generic {indexing_maps = [#id4, #r5, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mx : tensor<2x2x4x4xf32>, tensor<2x2x4xf32>) outs(%es : tensor<2x2x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x2x4x4xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %sum = linalg.reduce ins(%ex : tensor<2x2x4x4xf32>) outs(%fz : tensor<2x2x4xf32>) dimensions = [3]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id4, #r5, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %sum : tensor<2x2x4x4xf32>, tensor<2x2x4xf32>) outs(%es : tensor<2x2x4x4xf32>) {
  ^bb0(%a: f32, %z: f32, %out: f32):
    %r = arith.divf %a, %z : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x4xf32>
  %eo = tensor.empty() : tensor<2x2x4x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
  // expected-remark@+1 {{attention-not-raised | Category:pe-raise | Reason="no factor of the product summed over the keys is a value tensor read at [b, h / g, j, e] (or [h / g, j, e] for one batch), through transposes and reshapes"}}
  %o = linalg.generic {indexing_maps = [#p5, #v5, #o5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<2x2x4x4xf32>, tensor<2x4x8xf32>) outs(%fo : tensor<2x2x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// A SwiGLU down-projection, sum_j silu(g)[j] * u[j] * w[j, e]: an
// exponential lies in the product's cone (silu(g) = g / (1 + exp(-g))), but
// no factor is a softmax, so it is no near miss and reports nothing.
#g3 = affine_map<(b, i, e, j) -> (b, i, j)>
#w3 = affine_map<(b, i, e, j) -> (j, e)>
#o3 = affine_map<(b, i, e, j) -> (b, i, e)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @swiglu_down_projection(%g: tensor<1x4x16xf32>, %u: tensor<1x4x16xf32>, %w: tensor<16x8xf32>) -> tensor<1x4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eh = tensor.empty() : tensor<1x4x16xf32>
  %h = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g, %u : tensor<1x4x16xf32>, tensor<1x4x16xf32>) outs(%eh : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %a, %d : f32
    %r = arith.mulf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x4x16xf32>
  %eo = tensor.empty() : tensor<1x4x8xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %o = linalg.generic {indexing_maps = [#g3, #w3, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%h, %w : tensor<1x4x16xf32>, tensor<16x8xf32>) outs(%fo : tensor<1x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x4x8xf32>
  return %o : tensor<1x4x8xf32>
}
