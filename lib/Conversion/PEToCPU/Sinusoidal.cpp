//===- Sinusoidal.cpp - the pe.add_sinusoidal kernel ----------------------===//
//
// Part of the pe-mlir project.
//
// The kernel of a pe.add_sinusoidal on f32, f16 or bf16: a parallel loop
// over token blocks that evaluates the encoding in f64 and adds it in f64
// (one rounding to the element type), rows following by angle addition
// where the angles allow (offset positions), or each row evaluated at its
// own position (an explicit positions tensor).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

/// What buildSinusoidal's loops read (planSinusoidal): the channel tables,
/// the buffers and how the channels pair up; and the stores every row makes.
struct KernelBuilder::SinusoidalPlan {
  explicit SinusoidalPlan(KernelBuilder &k) : k(k) {}

  KernelBuilder &k;
  int64_t channels = 0, half = 0, taskRows = 0;
  /// Layouts whose channels pair up as sin and cos of one angle in whole
  /// vectors: interleaved (2k, 2k+1), and concat (k, h + k) with h a
  /// multiple of the vector width.
  bool interleaved = false, paired = false;
  Type elementType;
  double inputScale = 1.0, maxFreq = 0.0;
  /// Per channel, padded to whole vectors: the frequency, a quarter-turn
  /// shift for cos channels, 0 for the padding column of an odd concat.
  Value freqM, phaseM, keepM;
  /// Per pair: the frequency, and its sin and cos (the recurrence's step).
  Value pairFreqM, stepSinM, stepCosM;
  Value x3, out3, base0;
  /// An explicit positions tensor ([T], or [B, T]: leading row n of x3 is of
  /// batch n / perBatch).
  Value positions, perBatch;
  /// The shuffle that zips a vector of sines with one of cosines into
  /// interleaved channels (sin_0, cos_0, sin_1, ...).
  SmallVector<int64_t> zip;

  /// The f64 vector type of a paired vector: 8 pairs (16 interleaved
  /// channels) or 16 (channels c and h + c of the concat halves).
  VectorType pairType() const {
    return VectorType::get({interleaved ? k.lanes / 2 : k.lanes}, k.f64);
  }
  /// x + PE in f64, rounded once (the op's semantics), at row t, channel c;
  /// with a `mask` (the row's last, partial vector), only its lanes.
  void addStore(Value n, Value t, Value pe, Value c, bool streaming,
                Value mask = {}) const {
    k.storeNarrowed(sum(n, t, pe, c, mask), out3, ValueRange{n, t, c},
                    streaming, mask);
  }
  /// x + PE in f64 at row t, channel c, rounded once to the element type.
  Value sum(Value n, Value t, Value pe, Value c, Value mask = {}) const {
    ImplicitLocOpBuilder &b = k.b;
    auto vf64 = VectorType::get({k.lanes}, k.f64);
    Value xv = arith::ExtFOp::create(b, vf64,
                                     k.loadF32(x3, ValueRange{n, t, c}, mask));
    if (inputScale != 1.0)
      xv = arith::MulFOp::create(
          b, xv,
          arith::ConstantOp::create(
              b,
              DenseElementsAttr::get(vf64, b.getFloatAttr(k.f64, inputScale))));
    return k.narrowFromF64(arith::AddFOp::create(b, xv, pe), elementType);
  }
  /// Whether streaming stores of a group of `vectors` adjacent vectors go
  /// two vectors at a time: an even group (starting at a multiple of its
  /// channels) in rows, and the cos half of a concat row, at multiples of a
  /// pair's bytes (KernelBuilder::streamsPairs).
  bool streamsPairs(int64_t vectors) const {
    return vectors % 2 == 0 && k.streamsPairs(out3, channels) &&
           (interleaved || k.streamsPairs(out3, half));
  }
  /// storePair for a group of adjacent paired vectors (channels cs[i]);
  /// streamed two vectors at a time where streamsPairs allows it: each two
  /// rounded vectors joined into one store of a whole register.
  void storePairs(Value n, Value t, ArrayRef<Value> cs, ArrayRef<Value> sn,
                  ArrayRef<Value> co, bool streaming) const {
    if (!streaming || !streamsPairs(cs.size())) {
      for (size_t i = 0; i < cs.size(); ++i)
        storePair(n, t, cs[i], sn[i], co[i], streaming);
      return;
    }
    ImplicitLocOpBuilder &b = k.b;
    auto store2 = [&](Value c, Value lo, Value hi) {
      k.storeStreamingPair(lo, hi, out3, ValueRange{n, t, c});
    };
    for (size_t i = 0; i < cs.size(); i += 2) {
      if (interleaved) {
        store2(
            cs[i],
            sum(n, t, vector::ShuffleOp::create(b, sn[i], co[i], zip), cs[i]),
            sum(n, t, vector::ShuffleOp::create(b, sn[i + 1], co[i + 1], zip),
                cs[i + 1]));
        continue;
      }
      store2(cs[i], sum(n, t, sn[i], cs[i]), sum(n, t, sn[i + 1], cs[i + 1]));
      Value c0 = k.addi(cs[i], k.idx(half)),
            c1 = k.addi(cs[i + 1], k.idx(half));
      store2(c0, sum(n, t, co[i], c0), sum(n, t, co[i + 1], c1));
    }
  }
  /// The position of row t of leading row n, as f64.
  Value position(Value n, Value t) const {
    ImplicitLocOpBuilder &b = k.b;
    if (positions) {
      SmallVector<Value> ix;
      if (perBatch)
        ix.push_back(arith::DivUIOp::create(b, n, perBatch));
      ix.push_back(t);
      Value p = memref::LoadOp::create(b, positions, ix);
      if (!p.getType().isInteger(64))
        p = arith::ExtSIOp::create(b, b.getI64Type(), p);
      return arith::SIToFPOp::create(b, k.f64, p);
    }
    return arith::SIToFPOp::create(
        b, k.f64,
        arith::IndexCastOp::create(b, b.getI64Type(), k.addi(base0, t)));
  }
  /// `fn(c, p)` for each paired vector of channels c whose pairs start at p.
  void forEachPairVector(function_ref<void(Value c, Value p)> fn) const {
    forEachPairGroup(
        1, [&](ArrayRef<Value> cs, ArrayRef<Value> ks) { fn(cs[0], ks[0]); });
  }
  /// `fn(cs, ks)` for each group of `group` adjacent paired vectors
  /// (channels cs[i], pairs from ks[i]); the channels that do not fill a
  /// whole group, one vector per call.
  void forEachPairGroup(
      int64_t group,
      function_ref<void(ArrayRef<Value> cs, ArrayRef<Value> ks)> fn) const {
    ImplicitLocOpBuilder &b = k.b;
    int64_t end = interleaved ? channels : half;
    int64_t step = group * k.lanes;
    auto loop = [&](int64_t from, int64_t to, int64_t vectors) {
      if (from >= to)
        return;
      scf::ForOp::create(
          b, k.idx(from), k.idx(to), k.idx(vectors * k.lanes), ValueRange{},
          [&](OpBuilder &cb, Location, Value c0, ValueRange) {
            Scope channel(b, cb);
            SmallVector<Value> cs, ks;
            for (int64_t i = 0; i < vectors; ++i) {
              Value c = i == 0 ? c0 : k.addi(c0, k.idx(i * k.lanes));
              cs.push_back(c);
              ks.push_back(interleaved
                               ? Value(arith::DivUIOp::create(b, c, k.idx(2)))
                               : c);
            }
            fn(cs, ks);
            scf::YieldOp::create(b);
          });
    };
    int64_t whole = end - end % step;
    loop(0, whole, group);
    loop(whole, end, 1);
  }
  /// Paired vectors per group: as many as make 128 bytes of each row (two
  /// 64-byte lines) per visit of the recurrence's rows: 2 with 512-bit f32
  /// vectors, 4 with 256-bit ones, 8 for f16/bf16 rows of 8 lanes. With one
  /// line per row and visit, the 8 rows' interleaved input and streaming
  /// output ran at a quarter of the memory's bandwidth on a Zen 3 (see
  /// bench/NOTES.md).
  int64_t lineGroup() const {
    return std::max<int64_t>(1, 128 / vectorBytes());
  }
  /// The bytes of one vector of the rows' element type.
  int64_t vectorBytes() const {
    return k.lanes * int64_t(elementType.getIntOrFloatBitWidth() / 8);
  }
  /// The encoding of a paired vector, stored: interleaved channels
  /// (2k, 2k+1) zip sin and cos; concat stores them at c and h + c.
  void storePair(Value n, Value t, Value c, Value sn, Value cs,
                 bool streaming) const {
    if (interleaved) {
      addStore(n, t, vector::ShuffleOp::create(k.b, sn, cs, zip), c, streaming);
      return;
    }
    addStore(n, t, sn, c, streaming);
    addStore(n, t, cs, k.addi(c, k.idx(half)), streaming);
  }
};

KernelBuilder::SinusoidalPlan KernelBuilder::planSinusoidal(AddSinusoidalOp op,
                                                            Value &out) {
  SinusoidalPlan p(*this);
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  p.channels = type.getDimSize(rank - 1);
  p.half = p.channels / 2;
  auto layout = op.getLayout() == SinusoidalLayout::Interleaved
                    ? formula::SinusoidalLayout::Interleaved
                    : formula::SinusoidalLayout::Concat;
  double base = op.getBase().convertToDouble();
  SmallVector<double> freq, keep;
  SmallVector<int64_t> phase;
  for (int64_t c = 0; c < p.channels; ++c) {
    freq.push_back(formula::sinusoidalFrequency(c, p.channels, base, layout));
    phase.push_back(formula::sinusoidalIsCos(c, p.channels, layout) ? 1 : 0);
    keep.push_back(formula::sinusoidalIsPad(c, p.channels, layout) ? 0.0 : 1.0);
  }
  // Padded to whole vectors (frequency 0, kept 0): a last, partial vector
  // of channels reads them whole and the row with a mask.
  for (int64_t c = p.channels; c % lanes != 0; ++c) {
    freq.push_back(0.0);
    phase.push_back(0);
    keep.push_back(0.0);
  }
  auto table = [&](Type elementType, DenseElementsAttr values) -> Value {
    Value t = arith::ConstantOp::create(b, values);
    return bufferization::ToBufferOp::create(
        b, MemRefType::get(values.getType().getShape(), elementType), t,
        /*readOnly=*/true);
  };
  auto f64Table = [&](ArrayRef<double> values) -> Value {
    return table(
        f64, DenseElementsAttr::get(
                 RankedTensorType::get({int64_t(values.size())}, f64), values));
  };
  p.freqM = f64Table(freq);
  p.phaseM =
      table(b.getI64Type(),
            DenseElementsAttr::get(
                RankedTensorType::get({int64_t(phase.size())}, b.getI64Type()),
                ArrayRef<int64_t>(phase)));
  p.keepM = f64Table(keep);
  p.interleaved = layout == formula::SinusoidalLayout::Interleaved;
  for (int64_t i = 0; i < lanes / 2; ++i) {
    p.zip.push_back(i);
    p.zip.push_back(i + lanes / 2);
  }
  p.paired =
      p.interleaved ? p.channels % lanes == 0 : p.channels % (2 * lanes) == 0;
  SmallVector<double> pairFreq;
  for (int64_t c = 0; c < p.half; ++c)
    pairFreq.push_back(p.interleaved ? freq[2 * c] : freq[c]);
  if (!pairFreq.empty())
    p.pairFreqM = f64Table(pairFreq);

  p.elementType = type.getElementType();
  auto memType = MemRefType::get(type.getShape(), p.elementType);
  Value x = bufferization::ToBufferOp::create(b, memType, op.getInput(),
                                              /*readOnly=*/true);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(dim(x, i));
  out = memref::AllocOp::create(b, memType, dynamicSizes,
                                b.getI64IntegerAttr(64));
  p.x3 = view3d(x);
  p.out3 = view3d(out);
  p.base0 =
      offsetValue({static_cast<int64_t>(op.getStaticOffset()), op.getOffset()});
  if (Value pos = op.getPositions()) {
    auto pType = cast<RankedTensorType>(pos.getType());
    p.positions = bufferization::ToBufferOp::create(
        b, MemRefType::get(pType.getShape(), pType.getElementType()), pos,
        /*readOnly=*/true);
    if (pType.getRank() == 2) {
      p.perBatch = idx(1);
      for (int64_t i = 1; i < rank - 2; ++i)
        p.perBatch = muli(p.perBatch, dim(x, i));
    }
  }
  p.inputScale = op.getScaleInput() ? std::sqrt(double(p.channels)) : 1.0;
  // The angle-addition step of the paired layouts: sin and cos of each
  // pair's frequency w (rounded once from libm's f64 values).
  SmallVector<double> stepSin, stepCos;
  for (double w : pairFreq) {
    stepSin.push_back(std::sin(w));
    stepCos.push_back(std::cos(w));
    p.maxFreq = std::max(p.maxFreq, std::abs(w));
  }
  if (p.paired) {
    p.stepSinM = f64Table(stepSin);
    p.stepCosM = f64Table(stepCos);
  }
  // Parallel tasks of kSinusoidalTaskRows tokens when the shape gives at
  // least kMinTasks of them (each task evaluates its first row directly and
  // the others by angle addition: longer tasks, fewer direct rows), else of
  // kBlock tokens.
  p.taskRows = kBlock;
  if (type.hasStaticShape() &&
      type.getNumElements() / p.channels >= kSinusoidalTaskRows * kMinTasks)
    p.taskRows = kSinusoidalTaskRows;
  return p;
}

Value KernelBuilder::buildSinusoidal(AddSinusoidalOp op) {
  Value out;
  SinusoidalPlan p = planSinusoidal(op, out);
  // Streaming stores need rows of whole vectors (aligned vector stores).
  Value large = p.channels % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  forEachBlock(p.x3, p.taskRows, [&](Value n, Value t0, Value t1) {
    withStreaming(large, [&](bool streaming) {
      sinusoidalBlock(p, n, t0, t1, streaming);
    });
  });
  return bufferization::ToTensorOp::create(b, op.getInput().getType(), out,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

void KernelBuilder::sinusoidalBlock(const SinusoidalPlan &p, Value n, Value t0,
                                    Value t1, bool streaming) {
  auto directRows = [&](Value from) {
    scf::ForOp::create(b, from, t1, idx(1), ValueRange{},
                       [&](OpBuilder &ib, Location, Value t, ValueRange) {
                         Scope inner(b, ib);
                         sinusoidalRow(p, n, t, streaming);
                         scf::YieldOp::create(b);
                       });
  };
  // Explicit positions: each row at its own position (no recurrence).
  if (!p.paired || p.positions) {
    directRows(t0);
    return;
  }
  // Paired layouts with small angles: rows by recurrence (sinusoidalRecurrence)
  // while every |p w| <= kRecurrenceMaxAngle, else directly.
  Value pos0 = p.position(n, t0);
  Value reach = arith::MulFOp::create(
      b,
      arith::AddFOp::create(b, math::AbsFOp::create(b, pos0),
                            arith::ConstantOp::create(
                                b, b.getFloatAttr(f64, double(p.taskRows)))),
      arith::ConstantOp::create(b, b.getFloatAttr(f64, p.maxFreq)));
  Value small = arith::CmpFOp::create(
      b, arith::CmpFPredicate::OLE, reach,
      arith::ConstantOp::create(b, b.getFloatAttr(f64, kRecurrenceMaxAngle)));
  auto ifSmall = scf::IfOp::create(b, small, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifSmall.getThenRegion().front());
  sinusoidalRecurrence(p, n, t0, t1, pos0, streaming);
  b.setInsertionPointToStart(&ifSmall.getElseRegion().front());
  directRows(t0);
}

/// One row evaluated directly: sin and cos of the f64 angle p w.
void KernelBuilder::sinusoidalRow(const SinusoidalPlan &p, Value n, Value t,
                                  bool streaming) {
  Value pos = p.position(n, t);
  if (p.paired) {
    Value posV = vector::BroadcastOp::create(b, p.pairType(), pos);
    p.forEachPairVector([&](Value c, Value k) {
      Value w =
          vector::LoadOp::create(b, p.pairType(), p.pairFreqM, ValueRange{k});
      auto [sn, cs] = sinCos64(arith::MulFOp::create(b, posV, w), Value());
      p.storePair(n, t, c, sn, cs, streaming);
    });
    return;
  }
  // General case (odd concat with its pad column, or channels that do not
  // pair up in whole vectors): one sine per channel, cos channels shifted by
  // a quarter turn; whole vectors, then a masked last one.
  auto vf64 = VectorType::get({lanes}, f64);
  Value posV = vector::BroadcastOp::create(b, vf64, pos);
  auto channelVector = [&](Value c, Value mask) {
    Value w = vector::LoadOp::create(b, vf64, p.freqM, ValueRange{c});
    Value a = arith::MulFOp::create(b, posV, w);
    Value shift = vector::LoadOp::create(
        b, VectorType::get({lanes}, b.getI64Type()), p.phaseM, ValueRange{c});
    Value pe = arith::MulFOp::create(
        b, sinCos64(a, shift).first,
        vector::LoadOp::create(b, vf64, p.keepM, ValueRange{c}));
    p.addStore(n, t, pe, c, streaming, mask);
  };
  int64_t whole = p.channels - p.channels % lanes;
  scf::ForOp::create(b, idx(0), idx(whole), idx(lanes), ValueRange{},
                     [&](OpBuilder &cb, Location, Value c, ValueRange) {
                       Scope channel(b, cb);
                       channelVector(c, Value());
                       scf::YieldOp::create(b);
                     });
  if (whole != p.channels)
    channelVector(idx(whole), rowMask(whole, p.channels));
}

/// The rows [t0, t1) of a paired layout with small angles (pos0: t0's
/// position): the first row
/// directly, each next row from the previous one by the angle-addition
/// formulas (sin(a + w) = s cos w + c sin w, cos(a + w) = c cos w - s sin w):
/// four f64 operations per pair instead of a reduction and two polynomials.
/// The rows differ from the direct evaluation by a few f64 ulps per step and
/// by the rounding of the f64 angle fl(p w), below 1e-10 while every
/// |p w| <= kRecurrenceMaxAngle.
void KernelBuilder::sinusoidalRecurrence(const SinusoidalPlan &p, Value n,
                                         Value t0, Value t1, Value pos0,
                                         bool streaming) {
  VectorType vPair = p.pairType();
  auto stateType = MemRefType::get({p.half}, f64);
  Value sState = memref::AllocOp::create(b, stateType, ValueRange{},
                                         b.getI64IntegerAttr(64));
  Value cState = memref::AllocOp::create(b, stateType, ValueRange{},
                                         b.getI64IntegerAttr(64));
  Value posV = vector::BroadcastOp::create(b, vPair, pos0);
  p.forEachPairVector([&](Value c, Value k) {
    Value w = vector::LoadOp::create(b, vPair, p.pairFreqM, ValueRange{k});
    auto [sn, cs] = sinCos64(arith::MulFOp::create(b, posV, w), Value());
    vector::StoreOp::create(b, sn, sState, ValueRange{k});
    vector::StoreOp::create(b, cs, cState, ValueRange{k});
    p.storePair(n, t0, c, sn, cs, streaming);
  });
  // `rows` consecutive rows from t per pass over the channels: the state and
  // step vectors are loaded and the state stored once per pass (a row's
  // state is 2 x 8 bytes per pair, twice the row's own f32 data, so one row
  // per pass moved three times the row's bytes through the L1 besides the
  // row itself).
  //
  // Streaming whole passes also prefetch, into the L2, the input lines of
  // the next pass at the same channels (rows t + rows + r, clamped to the
  // block's last row): the pass's 16 or so instructions per 64-byte line
  // otherwise leave too few of its loads in flight for the memory's
  // bandwidth (see docs/CodegenCPU.md, W5).
  auto rowsFrom = [&](Value t, int64_t rows) {
    SmallVector<Value> nextRows;
    if (streaming && rows > 1) {
      Value last = arith::SubIOp::create(b, t1, idx(1));
      for (int64_t r = 0; r < rows; ++r)
        nextRows.push_back(
            arith::MinSIOp::create(b, addi(t, idx(rows + r)), last));
    }
    int64_t group = p.lineGroup();
    p.forEachPairGroup(group, [&](ArrayRef<Value> cs, ArrayRef<Value> ks) {
      size_t vectors = cs.size();
      auto ld = [&](Value m, Value k) -> Value {
        return vector::LoadOp::create(b, vPair, m, ValueRange{k});
      };
      // A prefetch per 64-byte line of the group (per vector when a vector
      // is a line or more).
      int64_t perLine = std::max<int64_t>(1, 64 / p.vectorBytes());
      for (Value row : nextRows)
        for (size_t i = 0; i < vectors; i += perLine) {
          prefetchToL2(p.x3, ValueRange{n, row, cs[i]});
          if (!p.interleaved)
            prefetchToL2(p.x3, ValueRange{n, row, addi(cs[i], idx(p.half))});
        }
      SmallVector<Value> s, co, sw, cw;
      for (size_t i = 0; i < vectors; ++i) {
        s.push_back(ld(sState, ks[i]));
        co.push_back(ld(cState, ks[i]));
        sw.push_back(ld(p.stepSinM, ks[i]));
        cw.push_back(ld(p.stepCosM, ks[i]));
      }
      for (int64_t r = 0; r < rows; ++r) {
        Value row = r == 0 ? t : addi(t, idx(r));
        for (size_t i = 0; i < vectors; ++i) {
          Value sn = math::FmaOp::create(b, co[i], sw[i],
                                         arith::MulFOp::create(b, s[i], cw[i]));
          Value cn =
              math::FmaOp::create(b, arith::NegFOp::create(b, s[i]), sw[i],
                                  arith::MulFOp::create(b, co[i], cw[i]));
          s[i] = sn;
          co[i] = cn;
        }
        p.storePairs(n, row, cs, s, co, streaming);
      }
      for (size_t i = 0; i < vectors; ++i) {
        vector::StoreOp::create(b, s[i], sState, ValueRange{ks[i]});
        vector::StoreOp::create(b, co[i], cState, ValueRange{ks[i]});
      }
    });
  };
  // Whole passes of kRecurrenceRows rows, then the block's last rows one by
  // one.
  Value first = addi(t0, idx(1));
  Value count = arith::SubIOp::create(b, t1, first);
  Value wholeEnd =
      addi(first, muli(arith::DivUIOp::create(b, count, idx(kRecurrenceRows)),
                       idx(kRecurrenceRows)));
  scf::ForOp::create(b, first, wholeEnd, idx(kRecurrenceRows), ValueRange{},
                     [&](OpBuilder &ib, Location, Value t, ValueRange) {
                       Scope inner(b, ib);
                       rowsFrom(t, kRecurrenceRows);
                       scf::YieldOp::create(b);
                     });
  scf::ForOp::create(b, wholeEnd, t1, idx(1), ValueRange{},
                     [&](OpBuilder &ib, Location, Value t, ValueRange) {
                       Scope inner(b, ib);
                       rowsFrom(t, 1);
                       scf::YieldOp::create(b);
                     });
}

namespace {

/// Replaces a pe.add_sinusoidal on f32, f16 or bf16 by the sinusoidal
/// kernel; refuses others (f64) with a missed remark naming the reason.
struct SinusoidalPattern : OpRewritePattern<AddSinusoidalOp> {
  SinusoidalPattern(MLIRContext *context, const PEToVectorOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(AddSinusoidalOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getInput().getType();
    std::string reason;
    Type et = type.getElementType();
    if (!et.isF32() && !et.isF16() && !et.isBF16())
      reason = "element type is not f32, f16 or bf16";
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "sinusoidal-kernel",
                       "no generated sinusoidal kernel (the reference "
                       "lowering is used): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    rewriter.setInsertionPoint(op);
    KernelBuilder kernel(op, rewriter, options.target.f32Lanes());
    rewriter.replaceOp(op, kernel.buildSinusoidal(op));
    return success();
  }

  PEToVectorOptions options;
};

} // namespace

void cpu::populateSinusoidalPattern(RewritePatternSet &patterns,
                                    const PEToVectorOptions &options) {
  patterns.add<SinusoidalPattern>(patterns.getContext(), options);
}
