//===- Sinusoidal.cpp - the pe.add_sinusoidal kernel ----------------------===//
//
// Part of the pe-mlir project.
//
// The kernel of a pe.add_sinusoidal on f32 with offset positions: a
// parallel loop over token blocks that evaluates the encoding in f64 and
// adds it in f64 (one rounding), rows following by angle addition where
// the angles allow.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

/// What the sinusoidal kernel of one op is built from: its channel layout,
/// the per-channel f64 tables, the operand views, and (set per token block
/// by buildSinusoidal) the block and whether its stores stream.
struct KernelBuilder::SinusoidalPlan {
  int64_t channels = 0, half = 0, taskRows = kBlock;
  bool interleaved = false, paired = false;
  double inputScale = 1.0, maxFreq = 0.0;
  Value freqM, phaseM, keepM; // per channel: frequency, quarter turns, kept
  Value pairFreqM;            // per pair: frequency (null without pairs)
  Value stepSinM, stepCosM;   // per pair: sin w, cos w (paired layouts)
  Value x3, out3, base0;      // [N, T, C] input and result, first position
  Value n, t0, t1;            // the token block [t0, t1) of row n
  bool streaming = false;
};

Value KernelBuilder::buildSinusoidal(AddSinusoidalOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  SinusoidalPlan p;
  SmallVector<double> pairFreq = sinusoidalTables(op, p);
  Value x = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), f32), op.getInput(),
      /*readOnly=*/true);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(dim(x, i));
  Value out = memref::AllocOp::create(b, MemRefType::get(type.getShape(), f32),
                                      dynamicSizes, b.getI64IntegerAttr(64));
  p.x3 = view3d(x);
  p.out3 = view3d(out);
  p.base0 =
      offsetValue({static_cast<int64_t>(op.getStaticOffset()), op.getOffset()});
  p.inputScale = op.getScaleInput() ? std::sqrt(double(p.channels)) : 1.0;
  // The angle-addition step of the paired layouts: sin and cos of each
  // pair's frequency w (rounded once from libm's f64 values).
  SmallVector<double> stepSin, stepCos;
  for (double w : pairFreq) {
    stepSin.push_back(std::sin(w));
    stepCos.push_back(std::cos(w));
    p.maxFreq = std::max(p.maxFreq, std::abs(w));
  }
  p.stepSinM = p.paired ? f64Table(stepSin) : Value();
  p.stepCosM = p.paired ? f64Table(stepCos) : Value();
  // Streaming stores need rows of whole vectors (aligned vector stores).
  Value large = p.channels % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  // Parallel tasks of kSinusoidalTaskRows tokens when the shape gives at
  // least kMinTasks of them (each task evaluates its first row directly and
  // the others by angle addition: longer tasks, fewer direct rows), else of
  // kBlock tokens.
  if (type.hasStaticShape() &&
      type.getNumElements() / p.channels >= kSinusoidalTaskRows * kMinTasks)
    p.taskRows = kSinusoidalTaskRows;
  forEachBlock(p.x3, p.taskRows, [&](Value n, Value t0, Value t1) {
    withStreaming(large, [&](bool streaming) {
      SinusoidalPlan block = p;
      block.n = n;
      block.t0 = t0;
      block.t1 = t1;
      block.streaming = streaming;
      sinusoidalBlock(block);
    });
  });
  return bufferization::ToTensorOp::create(b, type, out, /*restrict=*/true,
                                           /*writable=*/true);
}

Value KernelBuilder::constBuffer(Type elementType, DenseElementsAttr values) {
  Value t = arith::ConstantOp::create(b, values);
  return bufferization::ToBufferOp::create(
      b, MemRefType::get(values.getType().getShape(), elementType), t,
      /*readOnly=*/true);
}

Value KernelBuilder::f64Table(ArrayRef<double> values) {
  return constBuffer(
      f64, DenseElementsAttr::get(
               RankedTensorType::get({int64_t(values.size())}, f64), values));
}

SmallVector<double> KernelBuilder::sinusoidalTables(AddSinusoidalOp op,
                                                    SinusoidalPlan &p) {
  auto type = op.getInput().getType();
  int64_t channels = type.getDimSize(type.getRank() - 1);
  auto layout = op.getLayout() == SinusoidalLayout::Interleaved
                    ? formula::SinusoidalLayout::Interleaved
                    : formula::SinusoidalLayout::Concat;
  double base = op.getBase().convertToDouble();
  // Per channel: the frequency, a quarter-turn shift (cos a = sin(a +
  // pi/2), applied exactly as a quadrant offset) and 0 for the padding column
  // of an odd concat layout.
  SmallVector<double> freq, keep;
  SmallVector<int64_t> phase;
  for (int64_t c = 0; c < channels; ++c) {
    freq.push_back(formula::sinusoidalFrequency(c, channels, base, layout));
    phase.push_back(formula::sinusoidalIsCos(c, channels, layout) ? 1 : 0);
    keep.push_back(formula::sinusoidalIsPad(c, channels, layout) ? 0.0 : 1.0);
  }
  // The per-channel tables padded to whole vectors (frequency 0, kept 0):
  // a last, partial vector of channels reads them whole and the row with a
  // mask (tails below).
  for (int64_t c = channels; c % lanes != 0; ++c) {
    freq.push_back(0.0);
    phase.push_back(0);
    keep.push_back(0.0);
  }
  int64_t padded = static_cast<int64_t>(freq.size());
  auto f64Type = RankedTensorType::get({padded}, f64);
  auto i64Type = RankedTensorType::get({padded}, b.getI64Type());
  p.freqM =
      constBuffer(f64, DenseElementsAttr::get(f64Type, ArrayRef<double>(freq)));
  p.phaseM =
      constBuffer(b.getI64Type(),
                  DenseElementsAttr::get(i64Type, ArrayRef<int64_t>(phase)));
  p.keepM =
      constBuffer(f64, DenseElementsAttr::get(f64Type, ArrayRef<double>(keep)));
  // Layouts whose channels pair up as sin and cos of one angle in whole
  // vectors: interleaved (2k, 2k+1), and concat (k, h + k) with h a multiple
  // of 16.
  p.channels = channels;
  p.half = channels / 2;
  p.interleaved = layout == formula::SinusoidalLayout::Interleaved;
  p.paired =
      p.interleaved ? channels % lanes == 0 : channels % (2 * lanes) == 0;
  SmallVector<double> pairFreq;
  for (int64_t k = 0; k < channels / 2; ++k)
    pairFreq.push_back(p.interleaved ? freq[2 * k] : freq[k]);
  p.pairFreqM = pairFreq.empty() ? Value() : f64Table(pairFreq);
  return pairFreq;
}

void KernelBuilder::sinusoidalAddStore(const SinusoidalPlan &p, Value t,
                                       Value pe, Value c, Value mask) {
  auto vf64 = VectorType::get({lanes}, f64);
  Value xv = arith::ExtFOp::create(b, vf64,
                                   loadF32(p.x3, ValueRange{p.n, t, c}, mask));
  if (p.inputScale != 1.0)
    xv = arith::MulFOp::create(
        b, xv,
        arith::ConstantOp::create(
            b,
            DenseElementsAttr::get(vf64, b.getFloatAttr(f64, p.inputScale))));
  Value y = arith::TruncFOp::create(b, vf, arith::AddFOp::create(b, xv, pe));
  storeVector(y, p.out3, ValueRange{p.n, t, c}, p.streaming, mask);
}

Value KernelBuilder::sinusoidalPosition(const SinusoidalPlan &p, Value t) {
  return arith::SIToFPOp::create(
      b, f64, arith::IndexCastOp::create(b, b.getI64Type(), addi(p.base0, t)));
}

VectorType KernelBuilder::sinusoidalPairType(const SinusoidalPlan &p) const {
  return VectorType::get({p.interleaved ? lanes / 2 : lanes}, f64);
}

void KernelBuilder::forEachPairVector(const SinusoidalPlan &p,
                                      function_ref<void(Value c, Value k)> fn) {
  scf::ForOp::create(
      b, idx(0), idx(p.interleaved ? p.channels : p.half), idx(lanes),
      ValueRange{}, [&](OpBuilder &cb, Location l3, Value c, ValueRange) {
        Scope channel(b, cb);
        fn(c, p.interleaved ? Value(arith::DivUIOp::create(b, c, idx(2))) : c);
        scf::YieldOp::create(b);
      });
}

void KernelBuilder::storeSinCosPair(const SinusoidalPlan &p, Value t, Value c,
                                    Value sn, Value cs) {
  if (p.interleaved) {
    SmallVector<int64_t> zip;
    for (int64_t i = 0; i < lanes / 2; ++i) {
      zip.push_back(i);
      zip.push_back(i + lanes / 2);
    }
    sinusoidalAddStore(p, t, vector::ShuffleOp::create(b, sn, cs, zip), c);
  } else {
    sinusoidalAddStore(p, t, sn, c);
    sinusoidalAddStore(p, t, cs, addi(c, idx(p.half)));
  }
}

void KernelBuilder::sinusoidalDirectRow(const SinusoidalPlan &p, Value t) {
  Value pos = sinusoidalPosition(p, t);
  if (p.paired) {
    VectorType vPair = sinusoidalPairType(p);
    Value posV = vector::BroadcastOp::create(b, vPair, pos);
    forEachPairVector(p, [&](Value c, Value k) {
      Value w = vector::LoadOp::create(b, vPair, p.pairFreqM, ValueRange{k});
      auto [sn, cs] = sinCos64(arith::MulFOp::create(b, posV, w), Value());
      storeSinCosPair(p, t, c, sn, cs);
    });
    return;
  }
  // General case (odd concat with its pad column, or channels that
  // do not pair up in whole vectors): one sine per channel, cos
  // channels shifted by a quarter turn; whole vectors, then a masked
  // last one.
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
    sinusoidalAddStore(p, t, pe, c, mask);
  };
  int64_t whole = p.channels - p.channels % lanes;
  scf::ForOp::create(b, idx(0), idx(whole), idx(lanes), ValueRange{},
                     [&](OpBuilder &cb, Location l3, Value c, ValueRange) {
                       Scope channel(b, cb);
                       channelVector(c, Value());
                       scf::YieldOp::create(b);
                     });
  if (whole != p.channels)
    channelVector(idx(whole), rowMask(whole, p.channels));
}

void KernelBuilder::sinusoidalDirectRows(const SinusoidalPlan &p, Value from) {
  scf::ForOp::create(b, from, p.t1, idx(1), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
                       Scope inner(b, ib);
                       sinusoidalDirectRow(p, t);
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::sinusoidalBlock(const SinusoidalPlan &p) {
  if (!p.paired) {
    sinusoidalDirectRows(p, p.t0);
    return;
  }
  // Paired layouts with small angles: the block's first row directly,
  // each next row from the previous one by the angle-addition formulas
  // (sin(a + w) = s cos w + c sin w, cos(a + w) = c cos w - s sin w):
  // four f64 operations per pair instead of a reduction and two
  // polynomials. The rows differ from the direct evaluation by a few
  // f64 ulps per step and by the rounding of the f64 angle fl(p w),
  // below 1e-10 while every |p w| <= kRecurrenceMaxAngle.
  Value pos0 = sinusoidalPosition(p, p.t0);
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
  sinusoidalRecurrence(p, pos0);
  b.setInsertionPointToStart(&ifSmall.getElseRegion().front());
  sinusoidalDirectRows(p, p.t0);
}

void KernelBuilder::sinusoidalRecurrence(const SinusoidalPlan &p, Value pos0) {
  VectorType vPair = sinusoidalPairType(p);
  auto stateType = MemRefType::get({p.half}, f64);
  Value sState = memref::AllocOp::create(b, stateType, ValueRange{},
                                         b.getI64IntegerAttr(64));
  Value cState = memref::AllocOp::create(b, stateType, ValueRange{},
                                         b.getI64IntegerAttr(64));
  Value posV = vector::BroadcastOp::create(b, vPair, pos0);
  forEachPairVector(p, [&](Value c, Value k) {
    Value w = vector::LoadOp::create(b, vPair, p.pairFreqM, ValueRange{k});
    auto [sn, cs] = sinCos64(arith::MulFOp::create(b, posV, w), Value());
    vector::StoreOp::create(b, sn, sState, ValueRange{k});
    vector::StoreOp::create(b, cs, cState, ValueRange{k});
    storeSinCosPair(p, p.t0, c, sn, cs);
  });
  // Whole passes of kRecurrenceRows rows, then the block's last rows
  // one by one.
  Value first = addi(p.t0, idx(1));
  Value count = arith::SubIOp::create(b, p.t1, first);
  Value wholeEnd =
      addi(first, muli(arith::DivUIOp::create(b, count, idx(kRecurrenceRows)),
                       idx(kRecurrenceRows)));
  scf::ForOp::create(b, first, wholeEnd, idx(kRecurrenceRows), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
                       Scope inner(b, ib);
                       sinusoidalRecurrenceRows(p, sState, cState, t,
                                                kRecurrenceRows);
                       scf::YieldOp::create(b);
                     });
  scf::ForOp::create(b, wholeEnd, p.t1, idx(1), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
                       Scope inner(b, ib);
                       sinusoidalRecurrenceRows(p, sState, cState, t, 1);
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::sinusoidalRecurrenceRows(const SinusoidalPlan &p,
                                             Value sState, Value cState,
                                             Value t, int64_t rows) {
  // `rows` consecutive rows from t per pass over the channels: the
  // state and step vectors are loaded and the state stored once per
  // pass (a row's state is 2 x 8 bytes per pair, twice the row's own
  // f32 data, so one row per pass moved three times the row's bytes
  // through the L1 besides the row itself).
  //
  // Streaming whole passes also prefetch, into the L2, the input lines
  // of the next pass at the same channels (rows t + rows + r, clamped
  // to the block's last row): the pass's 16 or so instructions per
  // 64-byte line otherwise leave too few of its loads in flight for
  // the memory's bandwidth (see docs/CodegenCPU.md, W5).
  VectorType vPair = sinusoidalPairType(p);
  SmallVector<Value> nextRows;
  if (p.streaming && rows > 1) {
    Value last = arith::SubIOp::create(b, p.t1, idx(1));
    for (int64_t r = 0; r < rows; ++r)
      nextRows.push_back(
          arith::MinSIOp::create(b, addi(t, idx(rows + r)), last));
  }
  forEachPairVector(p, [&](Value c, Value k) {
    auto ld = [&](Value m) -> Value {
      return vector::LoadOp::create(b, vPair, m, ValueRange{k});
    };
    for (Value row : nextRows) {
      prefetchToL2(p.x3, ValueRange{p.n, row, c});
      if (!p.interleaved)
        prefetchToL2(p.x3, ValueRange{p.n, row, addi(c, idx(p.half))});
    }
    Value s = ld(sState), co = ld(cState);
    Value sw = ld(p.stepSinM), cw = ld(p.stepCosM);
    for (int64_t r = 0; r < rows; ++r) {
      Value sn =
          math::FmaOp::create(b, co, sw, arith::MulFOp::create(b, s, cw));
      Value cs = math::FmaOp::create(b, arith::NegFOp::create(b, s), sw,
                                     arith::MulFOp::create(b, co, cw));
      storeSinCosPair(p, r == 0 ? t : addi(t, idx(r)), c, sn, cs);
      s = sn;
      co = cs;
    }
    vector::StoreOp::create(b, s, sState, ValueRange{k});
    vector::StoreOp::create(b, co, cState, ValueRange{k});
  });
}

namespace {

/// Replaces a pe.add_sinusoidal on f32 with offset positions by the
/// sinusoidal kernel; refuses others with a missed remark naming the reason.
struct SinusoidalPattern : OpRewritePattern<AddSinusoidalOp> {
  SinusoidalPattern(MLIRContext *context, const PEToVectorOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(AddSinusoidalOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getInput().getType();
    std::string reason;
    if (!type.getElementType().isF32())
      reason = "element type is not f32";
    else if (op.getPositions())
      reason = "explicit positions tensor";
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
