//===- VectorBuilder.cpp - vector building blocks of the CPU kernels ------===//
//
// Part of the pe-mlir project.
//
// The KernelBuilder helpers shared by every kernel: exp and exp2 of the
// softmax, lane folds, sin/cos in f64, scratch buffers, tasks and token
// blocks.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

Value KernelBuilder::softmaxExp(Value x) {
  auto iv = VectorType::get({lanes}, b.getI32Type());
  auto ci = [&](int32_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(iv, b.getI32IntegerAttr(v)));
  };
  // Below -87 the result would be denormal; callers flush x < kExpCutoff.
  // The clamp is a compare and select rather than maxnum, so that a NaN x
  // stays NaN (OLT is false for it) and the result is NaN.
  x = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, vsplat(-87.0)),
      vsplat(-87.0), x);
  Value k = math::RoundEvenOp::create(
      b, arith::MulFOp::create(b, x, vsplat(1.44269504088896341)));
  Value r = math::FmaOp::create(b, k, vsplat(-0.693359375), x);
  r = math::FmaOp::create(b, k, vsplat(2.12194440e-4), r);
  Value z = arith::MulFOp::create(b, r, r);
  Value y = vsplat(1.9875691500e-4);
  for (double c : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                   1.6666665459e-1, 5.0000001201e-1})
    y = math::FmaOp::create(b, y, r, vsplat(c));
  y = math::FmaOp::create(b, y, z, arith::AddFOp::create(b, r, vsplat(1.0)));
  // 2^k: (k + 127) << 23 as the bits of an f32. k + 127 + 1.5 * 2^23 holds
  // k + 127 in its low mantissa bits (k is an integer in [-126, 0]), so a
  // float add and a shift form it; fptosi would be poison for a NaN k.
  Value biased = arith::BitcastOp::create(
      b, iv, arith::AddFOp::create(b, k, vsplat(12582912.0 + 127.0)));
  Value bits = arith::ShLIOp::create(b, biased, ci(23));
  return arith::MulFOp::create(b, y, arith::BitcastOp::create(b, vf, bits));
}

Value KernelBuilder::softmaxExp2(Value x) {
  auto iv = VectorType::get({lanes}, b.getI32Type());
  // Below -126 the result would be denormal; callers flush x < expCutoff().
  // A compare and select, so that a NaN x stays NaN (as in softmaxExp).
  x = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, vsplat(-126.0)),
      vsplat(-126.0), x);
  Value k = math::RoundEvenOp::create(b, x);
  Value r = arith::SubFOp::create(b, x, k);
  // Cephes exp2f: 2^r = 1 + r P(r) on [-1/2, 1/2].
  Value y = vsplat(1.535336188319500e-4);
  for (double c :
       {1.339887440266574e-3, 9.618437357674640e-3, 5.550332471162809e-2,
        2.402264791363012e-1, 6.931472028550421e-1})
    y = math::FmaOp::create(b, y, r, vsplat(c));
  y = math::FmaOp::create(b, y, r, vsplat(1.0));
  // 2^k as in softmaxExp (k an integer in [-126, 0]).
  Value biased = arith::BitcastOp::create(
      b, iv, arith::AddFOp::create(b, k, vsplat(12582912.0 + 127.0)));
  Value bits = arith::ShLIOp::create(
      b, biased,
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(iv, b.getI32IntegerAttr(23))));
  return arith::MulFOp::create(b, y, arith::BitcastOp::create(b, vf, bits));
}

SmallVector<Value>
KernelBuilder::foldLaneHalves(ArrayRef<Value> a, int64_t downTo,
                              function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> cur(a.begin(), a.end());
  // Each vector of `cur` holds lanes / width keys of `width` lanes; a level
  // folds each key's lanes in half and joins two vectors' keys in order.
  for (int64_t width = lanes; width > downTo; width /= 2) {
    SmallVector<int64_t> lo, hi;
    for (int64_t src = 0; src < 2; ++src)
      for (int64_t key = 0; key < lanes / width; ++key)
        for (int64_t i = 0; i < width / 2; ++i) {
          lo.push_back(src * lanes + key * width + i);
          hi.push_back(src * lanes + key * width + width / 2 + i);
        }
    SmallVector<Value> next;
    for (size_t v = 0; v < cur.size(); v += 2)
      next.push_back(
          combine(vector::ShuffleOp::create(b, cur[v], cur[v + 1], lo),
                  vector::ShuffleOp::create(b, cur[v], cur[v + 1], hi)));
    cur = next;
  }
  return cur;
}

Value KernelBuilder::sumLanesOfEach(ArrayRef<Value> a) {
  return foldLaneHalves(a, 1,
                        [&](Value x, Value y) -> Value {
                          return arith::AddFOp::create(b, x, y);
                        })
      .front();
}

Value KernelBuilder::rowsOfLanes(ArrayRef<Value> a,
                                 function_ref<Value(Value, Value)> combine) {
  assert(a.size() == kRows && "one vector per row");
  // The levels of sumLanesOfEach down to rowLanes() lanes per row (two
  // levels: 4 vectors into 1; with 16 lanes a[0], a[1] -> 8 lanes each,
  // then 4 lanes per row).
  Value v = foldLaneHalves(a, rowLanes(), combine).front();
  // Within each row's group of lanes: swap pairs, then neighbours (16
  // lanes), so that all the group's lanes end with its reduction.
  for (int64_t d = rowLanes() / 2; d >= 1; d /= 2) {
    SmallVector<int64_t> m;
    for (int64_t i = 0; i < lanes; ++i)
      m.push_back(i ^ d);
    v = combine(v, vector::ShuffleOp::create(b, v, v, m));
  }
  return v;
}

std::pair<Value, Value> KernelBuilder::sinCos64(Value a, Value shift) {
  auto vt = cast<VectorType>(a.getType());
  auto it = VectorType::get(vt.getShape(), b.getI64Type());
  auto c = [&](double v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vt, b.getFloatAttr(f64, v)));
  };
  auto ci = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(it, b.getI64IntegerAttr(v)));
  };
  const double pio2Hi = 1.5707963267948966;
  const double pio2Lo = 6.123233995736766e-17;
  // r = a - k pi/2 with pi/2 in two parts (Cody and Waite), twice. The first
  // k = round(a 2/pi) is the nearest quadrant only while a 2/pi is exact to
  // well under 1/2, that is for |a| below about 2^50; beyond (positions up to
  // 2^63 times frequencies up to 1) its error of up to |a| 2^-53 leaves r
  // outside [-pi/4, pi/4], but r itself is still exact to about 1e-13, so a
  // second reduction of r brings it into range.
  auto reduce = [&](Value x) -> std::pair<Value, Value> {
    Value k = math::RoundEvenOp::create(
        b, arith::MulFOp::create(b, x, c(0.6366197723675814)));
    Value negK = arith::NegFOp::create(b, k);
    Value r = math::FmaOp::create(b, negK, c(pio2Hi), x);
    r = math::FmaOp::create(b, negK, c(pio2Lo), r);
    return {k, r};
  };
  auto [k, r1] = reduce(a);
  // The second step only where some lane needs it (|r1| > pi/4 after
  // rounding): positions of today's models never get there, so the common
  // path pays a compare and a branch instead of seven operations.
  Value outOfRange = vector::ReductionOp::create(
      b, vector::CombiningKind::OR,
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT,
                            math::AbsFOp::create(b, r1),
                            c(0.78539816339744831 * (1.0 + 0x1p-20))));
  auto second = scf::IfOp::create(b, TypeRange{vt, vt}, outOfRange,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&second.getThenRegion().front());
    auto [kk, rr] = reduce(r1);
    scf::YieldOp::create(b, ValueRange{kk, rr});
    b.setInsertionPointToStart(&second.getElseRegion().front());
    scf::YieldOp::create(b, ValueRange{c(0.0), r1});
  }
  Value k2 = second.getResult(0), r = second.getResult(1);
  Value z = arith::MulFOp::create(b, r, r);
  // fdlibm __kernel_sin / __kernel_cos on [-pi/4, pi/4].
  auto horner = [&](ArrayRef<double> coeffs) {
    Value acc = c(coeffs.back());
    for (int i = int(coeffs.size()) - 2; i >= 0; --i)
      acc = math::FmaOp::create(b, acc, z, c(coeffs[i]));
    return acc;
  };
  Value sinPoly =
      horner({-1.66666666666666324348e-01, 8.33333333332248946124e-03,
              -1.98412698298579493134e-04, 2.75573137070700676789e-06,
              -2.50507602534068634195e-08, 1.58969099521155010221e-10});
  Value sinR =
      math::FmaOp::create(b, arith::MulFOp::create(b, r, z), sinPoly, r);
  Value cosPoly =
      horner({4.16666666666666019037e-02, -1.38888888888741095749e-03,
              2.48015872894767294178e-05, -2.75573143513906633035e-07,
              2.08757232129817482790e-09, -1.13596475577881948265e-11});
  Value z2 = arith::MulFOp::create(b, z, z);
  Value cosR = math::FmaOp::create(b, z2, cosPoly,
                                   math::FmaOp::create(b, z, c(-0.5), c(1.0)));
  Value q = arith::AddIOp::create(b, arith::FPToSIOp::create(b, it, k),
                                  arith::FPToSIOp::create(b, it, k2));
  if (shift)
    q = arith::AddIOp::create(b, q, shift);
  auto pick = [&](Value quadrant) -> Value {
    Value m = arith::AndIOp::create(b, quadrant, ci(3));
    auto is = [&](int64_t v) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, m, ci(v));
    };
    Value odd = arith::OrIOp::create(b, is(1), is(3));
    Value neg = arith::OrIOp::create(b, is(2), is(3));
    Value v = arith::SelectOp::create(b, odd, cosR, sinR);
    return arith::SelectOp::create(b, neg, arith::NegFOp::create(b, v), v);
  };
  return {pick(q), pick(arith::AddIOp::create(b, q, ci(1)))};
}

Value KernelBuilder::scratch(Type et, ArrayRef<int64_t> shape,
                             ValueRange dynamicSizes) {
  int64_t bytes = et.getIntOrFloatBitWidth() / 8;
  for (int64_t size : shape) {
    // Sized at run time, or more than the whole budget (checked before
    // multiplying, so that no product of huge static sizes overflows).
    if (ShapedType::isDynamic(size) ||
        (size != 0 && bytes > stackScratchBytes / size)) {
      bytes = -1;
      break;
    }
    bytes *= size;
  }
  if (bytes < 0 || bytes > stackScratchBytes - stackScratchUsed)
    return allocOf(et, shape, dynamicSizes);
  stackScratchUsed += bytes;
  return memref::AllocaOp::create(b, MemRefType::get(shape, et), ValueRange{},
                                  b.getI64IntegerAttr(64));
}

void KernelBuilder::beginTask() {
  auto scope = memref::AllocaScopeOp::create(b, TypeRange{});
  afterTask = OpBuilder::InsertPoint(scope->getBlock(),
                                     std::next(scope->getIterator()));
  b.createBlock(&scope.getBodyRegion());
  stackScratchUsed = 0;
}

void KernelBuilder::endTask() {
  memref::AllocaScopeReturnOp::create(b, ValueRange{});
  b.restoreInsertionPoint(afterTask);
}

Value KernelBuilder::view3d(Value m) {
  auto mt = cast<MemRefType>(m.getType());
  int64_t rank = mt.getRank();
  if (rank == 3)
    return m;
  if (rank == 2)
    return memref::ExpandShapeOp::create(
        b, MemRefType::get({1, mt.getDimSize(0), mt.getDimSize(1)}, f32), m,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                               memref::getMixedSize(b, b.getLoc(), m, 0),
                               b.getIndexAttr(mt.getDimSize(1))});
  ReassociationIndices lead;
  for (int64_t i = 0; i < rank - 2; ++i)
    lead.push_back(i);
  return memref::CollapseShapeOp::create(
      b, m, ArrayRef<ReassociationIndices>{lead, {rank - 2}, {rank - 1}});
}

void KernelBuilder::forEachBlock(
    Value x3, int64_t rows,
    function_ref<void(Value n, Value t0, Value t1)> body) {
  Value tokens = dim(x3, 1);
  Value blocks =
      arith::DivUIOp::create(b, addi(tokens, idx(rows - 1)), idx(rows));
  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{dim(x3, 0), blocks},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        Value t0 = muli(ivs[1], idx(rows));
        Value t1 = arith::MinSIOp::create(b, addi(t0, idx(rows)), tokens);
        body(ivs[0], t0, t1);
        scf::ReduceOp::create(b);
      });
}
