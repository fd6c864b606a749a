//===- RopeTables.cpp - RoPE tables and rotation of the CPU kernels -------===//
//
// Part of the pe-mlir project.
//
// The cos/sin tables of RoPE positions and the rotation of one row by a
// table row, shared by the attention kernels and the pe.rope kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

/// What buildTables' loops share: the rows and their positions, the two
/// tables, and the vector of pairs the tables are computed in.
struct KernelBuilder::RopeTablePlan {
  explicit RopeTablePlan(KernelBuilder &k) : k(k) {}

  KernelBuilder &k;
  Value rows, offset, positions, first, cacheBatch;
  Value cosT, sinT, scaling;
  int64_t pairs = 0;
  /// The widest vector of pairs that divides them (the tables are computed
  /// in whole vectors of this width), in f32 and f64.
  int64_t width = 0;
  VectorType vw, vw64;

  /// Rounds f64 cos/sin once to f32, times the attention scaling, into
  /// row t at pair i.
  void storeRow(Value t, Value i, Value c, Value s) const {
    ImplicitLocOpBuilder &b = k.b;
    if (cast<VectorType>(c.getType()).getElementType().isF64()) {
      c = arith::TruncFOp::create(b, vw, c);
      s = arith::TruncFOp::create(b, vw, s);
    }
    if (scaling) {
      Value m = vector::BroadcastOp::create(b, vw, scaling);
      c = arith::MulFOp::create(b, c, m);
      s = arith::MulFOp::create(b, s, m);
    }
    vector::StoreOp::create(b, c, cosT, ValueRange{t, i});
    vector::StoreOp::create(b, s, sinT, ValueRange{t, i});
  }
  void forRows(function_ref<void(Value t)> body) const {
    ImplicitLocOpBuilder &b = k.b;
    scf::ForOp::create(b, k.idx(0), rows, k.idx(1), ValueRange{},
                       [&](OpBuilder &ob, Location, Value t, ValueRange) {
                         Scope scope(b, ob);
                         body(t);
                         scf::YieldOp::create(b);
                       });
  }
  void forPairs(function_ref<void(Value i)> body) const {
    ImplicitLocOpBuilder &b = k.b;
    scf::ForOp::create(b, k.idx(0), k.idx(pairs), k.idx(width), ValueRange{},
                       [&](OpBuilder &ib, Location, Value i, ValueRange) {
                         Scope scope(b, ib);
                         body(i);
                         scf::YieldOp::create(b);
                       });
  }
  /// The position of table row t, as an index.
  Value position(Value t) const {
    ImplicitLocOpBuilder &b = k.b;
    if (!positions)
      return k.saturatingAdd(t, offset);
    Value p = memref::LoadOp::create(b, positions,
                                     ValueRange{first ? k.addi(first, t) : t});
    return arith::IndexCastOp::create(b, b.getIndexType(), p);
  }
  Value positionF64(Value t) const {
    ImplicitLocOpBuilder &b = k.b;
    return arith::SIToFPOp::create(
        b, k.f64, arith::IndexCastOp::create(b, b.getI64Type(), position(t)));
  }
};

/// Computes the cos and sin of every position `offset + t`, or
/// `positions[first + t]` with a positions buffer, t < rows, for each rotated
/// pair, into two [rows, R/2] buffers (times the attention scaling). Returns
/// the sin table and sets `cosT`.
Value KernelBuilder::buildTables(Value rows, Value offset, Value &cosT,
                                 Value positions, Value first,
                                 Value cacheBatch) {
  RopeTablePlan p(*this);
  p.rows = rows;
  p.offset = offset;
  p.positions = positions;
  p.first = first;
  p.cacheBatch = cacheBatch;
  p.pairs = rotary / 2;
  p.cosT = alloc({ShapedType::kDynamic, p.pairs}, rows);
  p.sinT = alloc({ShapedType::kDynamic, p.pairs}, rows);
  p.scaling = rot->attentionScaling;
  p.width = lanes;
  while (p.pairs % p.width != 0)
    p.width /= 2;
  p.vw = VectorType::get({p.width}, f32);
  p.vw64 = VectorType::get({p.width}, f64);
  cosT = p.cosT;
  if (rot->cosCache) {
    gatherTables(p);
    return p.sinT;
  }
  auto type = cast<RankedTensorType>(rot->invFreq.getType());
  Value invFreq = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), type.getElementType()), rot->invFreq,
      /*readOnly=*/true);
  p.forPairs([&](Value i) { evaluateTableColumn(p, invFreq, i); });
  return p.sinT;
}

/// Rows gathered from the caches (positions clamped to the last row);
/// per-token caches [B, T, R/2] at batch `cacheBatch`. f16 and bf16 rows are
/// widened to f32, f64 ones rounded once (storeRow).
void KernelBuilder::gatherTables(const RopeTablePlan &p) {
  auto type = cast<RankedTensorType>(rot->cosCache.getType());
  Type cacheType = type.getElementType();
  auto mtype = MemRefType::get(type.getShape(), cacheType);
  Value cosCache = bufferization::ToBufferOp::create(b, mtype, rot->cosCache,
                                                     /*readOnly=*/true);
  Value sinCache = bufferization::ToBufferOp::create(b, mtype, rot->sinCache,
                                                     /*readOnly=*/true);
  bool perToken = type.getRank() == 3;
  Value last =
      arith::SubIOp::create(b, dim(cosCache, perToken ? 1 : 0), idx(1));
  auto loadCache = [&](Value cache, Value row, Value i) -> Value {
    SmallVector<Value> ix;
    if (perToken)
      ix.push_back(p.cacheBatch);
    ix.append({row, i});
    Value v = vector::LoadOp::create(b, VectorType::get({p.width}, cacheType),
                                     cache, ix);
    if (cacheType.isF16() || cacheType.isBF16())
      v = arith::ExtFOp::create(b, p.vw, v);
    return v;
  };
  p.forRows([&](Value t) {
    Value row = arith::MinSIOp::create(
        b, arith::MaxSIOp::create(b, p.position(t), idx(0)), last);
    p.forPairs([&](Value i) {
      p.storeRow(t, i, loadCache(cosCache, row, i),
                 loadCache(sinCache, row, i));
    });
  });
}

/// Per vector of pairs, column by column: angle = p * f in f64 and its
/// cos/sin (sinCos64), rounded once to f32. When every angle of the column
/// is at most 2^20, only row 0 is evaluated so and each next row follows
/// from the previous one by the angle-addition formulas (four f64
/// operations instead of a reduction and two polynomials; the difference
/// from the direct evaluation is the rounding of fl(p f), at most 2^20
/// 2^-53, and a few f64 ulps per step, far below the f32 rounding).
void KernelBuilder::evaluateTableColumn(const RopeTablePlan &p, Value invFreq,
                                        Value i) {
  Value f = vector::LoadOp::create(
      b,
      VectorType::get({p.width},
                      cast<MemRefType>(invFreq.getType()).getElementType()),
      invFreq, ValueRange{i});
  if (!cast<VectorType>(f.getType()).getElementType().isF64())
    f = arith::ExtFOp::create(b, p.vw64, f);
  // Each row at its own position: the angle and its cos/sin per row.
  auto direct = [&] {
    p.forRows([&](Value t) {
      Value angle = arith::MulFOp::create(
          b, vector::BroadcastOp::create(b, p.vw64, p.positionF64(t)), f);
      auto [sin64, cos64] = sinCos64(angle, Value());
      p.storeRow(t, i, cos64, sin64);
    });
  };
  if (p.positions) {
    direct();
    return;
  }
  Value p0 = p.positionF64(idx(0));
  Value rowsF = arith::SIToFPOp::create(
      b, f64, arith::IndexCastOp::create(b, b.getI64Type(), p.rows));
  Value reach = arith::MulFOp::create(
      b,
      vector::BroadcastOp::create(
          b, p.vw64,
          arith::AddFOp::create(b, math::AbsFOp::create(b, p0), rowsF)),
      math::AbsFOp::create(b, f));
  Value maxAngle = arith::ConstantOp::create(
      b,
      DenseElementsAttr::get(p.vw64, b.getFloatAttr(f64, kRecurrenceMaxAngle)));
  Value small = vector::ReductionOp::create(
      b, vector::CombiningKind::AND,
      arith::CmpFOp::create(b, arith::CmpFPredicate::OLE, reach, maxAngle));
  auto ifSmall = scf::IfOp::create(b, small, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifSmall.getThenRegion().front());
  auto [s0, c0] = sinCos64(
      arith::MulFOp::create(b, vector::BroadcastOp::create(b, p.vw64, p0), f),
      Value());
  // Plain values: a lambda may not capture structured bindings in C++17.
  std::pair<Value, Value> step = sinCos64(f, Value());
  Value sw = step.first, cw = step.second;
  scf::ForOp::create(
      b, idx(0), p.rows, idx(1), ValueRange{s0, c0},
      [&](OpBuilder &ob, Location, Value t, ValueRange sc) {
        Scope scope(b, ob);
        Value s = sc[0], c = sc[1];
        p.storeRow(t, i, c, s);
        Value sn =
            math::FmaOp::create(b, c, sw, arith::MulFOp::create(b, s, cw));
        Value cs = math::FmaOp::create(b, arith::NegFOp::create(b, s), sw,
                                       arith::MulFOp::create(b, c, cw));
        scf::YieldOp::create(b, ValueRange{sn, cs});
      });
  b.setInsertionPointToStart(&ifSmall.getElseRegion().front());
  direct();
}

/// Loads table row `pos` of cosT / sinT as rotateRow applies it: for the
/// half layout one cos and one sin vector per 16 pairs; for interleaved
/// pairs, per 16 channels, cos expanded to [c0 c0 c1 c1 ...] and sin to
/// [-s0 s0 -s1 s1 ...].
KernelBuilder::RopeRow KernelBuilder::loadRopeRow(Value pos, Value cosT,
                                                  Value sinT) {
  RopeRow row;
  if (!rotary)
    return row;
  // A last, partial vector of pairs reads zeros past the table row.
  if (rot->layout == RopeLayout::Half) {
    for (int64_t i = 0; i < rotary / 2; i += lanes) {
      Value mask = rowMask(i, rotary / 2);
      row.cos.push_back(loadF32(cosT, ValueRange{pos, idx(i)}, mask));
      row.sin.push_back(loadF32(sinT, ValueRange{pos, idx(i)}, mask));
    }
    return row;
  }
  auto half = VectorType::get({lanes / 2}, f32);
  SmallVector<int64_t> dup;
  for (int64_t i = 0; i < lanes; ++i)
    dup.push_back(i / 2);
  SmallVector<float> signs;
  for (int64_t i = 0; i < lanes; ++i)
    signs.push_back(i % 2 ? 1.0f : -1.0f);
  Value sign = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vf, ArrayRef<float>(signs)));
  auto loadHalf = [&](Value table, int64_t ch) -> Value {
    return loadVector(half, table, ValueRange{pos, idx(ch / 2)},
                      tailMask((rotary - ch) / 2, lanes / 2));
  };
  for (int64_t ch = 0; ch < rotary; ch += lanes) {
    Value c8 = loadHalf(cosT, ch);
    Value s8 = loadHalf(sinT, ch);
    row.cos.push_back(vector::ShuffleOp::create(b, c8, c8, dup));
    row.sin.push_back(arith::MulFOp::create(
        b, vector::ShuffleOp::create(b, s8, s8, dup), sign));
  }
  return row;
}

/// Rotates one row of `src` (prefix indices + channel) by the table row
/// `row`, multiplies it by `mul`, and stores it into `dst` (prefix +
/// channel). Channels beyond the rotary dimension are copied (times `mul`).
/// `streaming`: non-temporal stores (see storeVector). A pair count or a
/// head dimension that is not a whole number of vectors ends each of its
/// runs of channels with a masked vector: only the row's own channels are
/// read and written (the padding of a scratch row is left as it was).
bool KernelBuilder::streamsPairs(Value mem, int64_t rowElements) const {
  int64_t bytes = cast<MemRefType>(mem.getType()).getElementTypeBitWidth() / 8;
  int64_t pairBytes = 2 * lanes * bytes;
  return bytes < 4 && pairBytes <= 64 && (rowElements * bytes) % pairBytes == 0;
}

void KernelBuilder::storeStreamingPair(Value lo, Value hi, Value mem,
                                       ValueRange indices) {
  SmallVector<int64_t> both;
  for (int64_t i = 0; i < 2 * lanes; ++i)
    both.push_back(i);
  Value joined = vector::ShuffleOp::create(b, lo, hi, both);
  Type et = cast<MemRefType>(mem.getType()).getElementType();
  if (getElementTypeOrSelf(joined.getType()) != et)
    joined =
        arith::TruncFOp::create(b, VectorType::get({2 * lanes}, et), joined);
  vector::StoreOp::create(
      b, joined, mem, indices, /*nontemporal=*/true,
      llvm::MaybeAlign(2 * lanes * int64_t(et.getIntOrFloatBitWidth() / 8)));
}

void KernelBuilder::PairedStreamingStores::add(Value v, int64_t c) {
  auto at = [&](int64_t ch) {
    SmallVector<Value> ix(prefix);
    ix.push_back(k.idx(ch));
    return ix;
  };
  if (!pairs) {
    k.storeNarrowed(v, mem, at(c), /*streaming=*/true);
    return;
  }
  int64_t partner = (c / k.lanes) % 2 == 0 ? c + k.lanes : c - k.lanes;
  auto it =
      llvm::find_if(pending, [&](const auto &p) { return p.first == partner; });
  if (it == pending.end()) {
    pending.push_back({c, v});
    return;
  }
  Value lo = partner < c ? it->second : v, hi = partner < c ? v : it->second;
  int64_t c0 = std::min(c, partner);
  pending.erase(it);
  k.storeStreamingPair(lo, hi, mem, at(c0));
}

void KernelBuilder::PairedStreamingStores::flush() {
  for (auto [c, v] : pending) {
    SmallVector<Value> ix(prefix);
    ix.push_back(k.idx(c));
    k.storeNarrowed(v, mem, ix, /*streaming=*/true);
  }
  pending.clear();
}

void KernelBuilder::rotateRow(Value src, ValueRange srcPrefix, Value dst,
                              ValueRange dstPrefix, const RopeRow &row,
                              double mul, bool streaming) {
  auto at = [&](ValueRange prefix, int64_t c) {
    SmallVector<Value> ix(prefix.begin(), prefix.end());
    ix.push_back(idx(c));
    return ix;
  };
  Value factor = mul == 1.0 ? Value() : vsplat(mul);
  auto load = [&](int64_t c, Value mask) -> Value {
    return loadF32(src, at(srcPrefix, c), mask);
  };
  bool narrow = cast<MemRefType>(dst.getType()).getElementType() != f32;
  std::optional<PairedStreamingStores> paired;
  if (streaming && narrow)
    paired.emplace(*this, dst, dstPrefix, headDim);
  auto store = [&](Value v, int64_t c, Value mask) {
    if (factor)
      v = arith::MulFOp::create(b, v, factor);
    if (paired && !mask)
      paired->add(v, c);
    else
      storeNarrowed(v, dst, at(dstPrefix, c), streaming, mask);
  };
  int64_t pairs = rotary / 2;
  if (rotary) {
    if (rot->layout == RopeLayout::Half) {
      // (x[i], x[i + R/2]) -> (x_lo c - x_hi s, x_hi c + x_lo s).
      for (int64_t i = 0; i < pairs; i += lanes) {
        Value c = row.cos[i / lanes], s = row.sin[i / lanes];
        Value mask = rowMask(i, pairs);
        Value lo = load(i, mask), hi = load(i + pairs, mask);
        Value newLo = arith::SubFOp::create(b, arith::MulFOp::create(b, lo, c),
                                            arith::MulFOp::create(b, hi, s));
        Value newHi =
            math::FmaOp::create(b, lo, s, arith::MulFOp::create(b, hi, c));
        store(newLo, i, mask);
        store(newHi, i + pairs, mask);
      }
    } else {
      // (x[2i], x[2i+1]): per 16 channels, 8 pairs; swap neighbours of x.
      SmallVector<int64_t> swap;
      for (int64_t i = 0; i < lanes; ++i)
        swap.push_back(i ^ 1);
      for (int64_t ch = 0; ch < rotary; ch += lanes) {
        Value c = row.cos[ch / lanes], s = row.sin[ch / lanes];
        Value mask = rowMask(ch, rotary);
        Value x = load(ch, mask);
        Value xs = vector::ShuffleOp::create(b, x, x, swap);
        Value y = math::FmaOp::create(b, xs, s, arith::MulFOp::create(b, x, c));
        store(y, ch, mask);
      }
    }
  }
  for (int64_t ch = rotary; ch < headDim; ch += lanes) {
    Value mask = rowMask(ch, headDim);
    store(load(ch, mask), ch, mask);
  }
  if (paired)
    paired->flush();
}
