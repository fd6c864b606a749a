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

Value KernelBuilder::buildSinusoidal(AddSinusoidalOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  int64_t channels = type.getDimSize(rank - 1);
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
  auto table = [&](Type elementType, DenseElementsAttr values) -> Value {
    Value t = arith::ConstantOp::create(b, values);
    return bufferization::ToBufferOp::create(
        b, MemRefType::get(values.getType().getShape(), elementType), t,
        /*readOnly=*/true);
  };
  auto f64Type = RankedTensorType::get({padded}, f64);
  auto i64Type = RankedTensorType::get({padded}, b.getI64Type());
  Value freqM =
      table(f64, DenseElementsAttr::get(f64Type, ArrayRef<double>(freq)));
  Value phaseM =
      table(b.getI64Type(),
            DenseElementsAttr::get(i64Type, ArrayRef<int64_t>(phase)));
  Value keepM =
      table(f64, DenseElementsAttr::get(f64Type, ArrayRef<double>(keep)));
  // Layouts whose channels pair up as sin and cos of one angle in whole
  // vectors: interleaved (2k, 2k+1), and concat (k, h + k) with h a multiple
  // of 16.
  bool interleaved = layout == formula::SinusoidalLayout::Interleaved;
  bool paired =
      interleaved ? channels % lanes == 0 : channels % (2 * lanes) == 0;
  SmallVector<double> pairFreq;
  for (int64_t k = 0; k < channels / 2; ++k)
    pairFreq.push_back(interleaved ? freq[2 * k] : freq[k]);
  Value pairFreqM =
      pairFreq.empty()
          ? Value()
          : table(f64,
                  DenseElementsAttr::get(
                      RankedTensorType::get({int64_t(pairFreq.size())}, f64),
                      ArrayRef<double>(pairFreq)));

  Value x = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), f32), op.getInput(),
      /*readOnly=*/true);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(dim(x, i));
  Value out = memref::AllocOp::create(b, MemRefType::get(type.getShape(), f32),
                                      dynamicSizes, b.getI64IntegerAttr(64));
  Value x3 = view3d(x), out3 = view3d(out);
  Value base0 =
      offsetValue({static_cast<int64_t>(op.getStaticOffset()), op.getOffset()});
  double inputScale = op.getScaleInput() ? std::sqrt(double(channels)) : 1.0;
  auto vf64 = VectorType::get({lanes}, f64);
  auto c64 = [&](double v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vf64, b.getFloatAttr(f64, v)));
  };
  // The angle-addition step of the paired layouts: sin and cos of each
  // pair's frequency w (rounded once from libm's f64 values).
  SmallVector<double> stepSin, stepCos;
  double maxFreq = 0.0;
  for (double w : pairFreq) {
    stepSin.push_back(std::sin(w));
    stepCos.push_back(std::cos(w));
    maxFreq = std::max(maxFreq, std::abs(w));
  }
  auto pairTable = [&](ArrayRef<double> values) -> Value {
    return table(
        f64, DenseElementsAttr::get(
                 RankedTensorType::get({int64_t(values.size())}, f64), values));
  };
  Value stepSinM = paired ? pairTable(stepSin) : Value();
  Value stepCosM = paired ? pairTable(stepCos) : Value();
  // Streaming stores need rows of whole vectors (aligned vector stores).
  Value large = channels % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  // Parallel tasks of kSinusoidalTaskRows tokens when the shape gives at
  // least kMinTasks of them (each task evaluates its first row directly and
  // the others by angle addition: longer tasks, fewer direct rows), else of
  // kBlock tokens.
  int64_t taskRows = kBlock;
  if (type.hasStaticShape() &&
      type.getNumElements() / channels >= kSinusoidalTaskRows * kMinTasks)
    taskRows = kSinusoidalTaskRows;
  forEachBlock(x3, taskRows, [&](Value n, Value t0, Value t1) {
    withStreaming(large, [&](bool streaming) {
      // x + PE in f64, rounded once (the op's semantics).
      // With a `mask` (the row's last, partial vector), only its lanes.
      auto addStore = [&](Value t, Value pe, Value c, Value mask = {}) {
        Value xv = arith::ExtFOp::create(
            b, vf64, loadF32(x3, ValueRange{n, t, c}, mask));
        if (inputScale != 1.0)
          xv = arith::MulFOp::create(b, xv, c64(inputScale));
        Value y =
            arith::TruncFOp::create(b, vf, arith::AddFOp::create(b, xv, pe));
        storeVector(y, out3, ValueRange{n, t, c}, streaming, mask);
      };
      auto positionOf = [&](Value t) -> Value {
        return arith::SIToFPOp::create(
            b, f64,
            arith::IndexCastOp::create(b, b.getI64Type(), addi(base0, t)));
      };
      // Paired layouts: `pairs(c, k, w)` for each vector of channels c
      // whose pairs start at k: 8 pairs (16 interleaved channels) or 16
      // (channels c and h + c of the concat halves); `w` is its f64 width.
      int64_t half = channels / 2;
      int64_t pairWidth = interleaved ? lanes / 2 : lanes;
      auto vPair = VectorType::get({pairWidth}, f64);
      SmallVector<int64_t> zip;
      for (int64_t i = 0; i < lanes / 2; ++i) {
        zip.push_back(i);
        zip.push_back(i + lanes / 2);
      }
      auto forEachPairVector = [&](function_ref<void(Value c, Value k)> fn) {
        scf::ForOp::create(
            b, idx(0), idx(interleaved ? channels : half), idx(lanes),
            ValueRange{}, [&](OpBuilder &cb, Location l3, Value c, ValueRange) {
              Scope channel(b, cb);
              fn(c,
                 interleaved ? Value(arith::DivUIOp::create(b, c, idx(2))) : c);
              scf::YieldOp::create(b);
            });
      };
      // The encoding of a paired vector, stored: interleaved channels
      // (2k, 2k+1) zip sin and cos; concat stores them at c and h + c.
      auto storePair = [&](Value t, Value c, Value sn, Value cs) {
        if (interleaved) {
          addStore(t, vector::ShuffleOp::create(b, sn, cs, zip), c);
        } else {
          addStore(t, sn, c);
          addStore(t, cs, addi(c, idx(half)));
        }
      };
      // One row evaluated directly: sin and cos of the f64 angle p w.
      auto directRow = [&](Value t) {
        Value pos = positionOf(t);
        if (paired) {
          Value posV = vector::BroadcastOp::create(b, vPair, pos);
          forEachPairVector([&](Value c, Value k) {
            Value w =
                vector::LoadOp::create(b, vPair, pairFreqM, ValueRange{k});
            auto [sn, cs] =
                sinCos64(arith::MulFOp::create(b, posV, w), Value());
            storePair(t, c, sn, cs);
          });
          return;
        }
        // General case (odd concat with its pad column, or channels that
        // do not pair up in whole vectors): one sine per channel, cos
        // channels shifted by a quarter turn; whole vectors, then a masked
        // last one.
        Value posV = vector::BroadcastOp::create(b, vf64, pos);
        auto channelVector = [&](Value c, Value mask) {
          Value w = vector::LoadOp::create(b, vf64, freqM, ValueRange{c});
          Value a = arith::MulFOp::create(b, posV, w);
          Value shift = vector::LoadOp::create(
              b, VectorType::get({lanes}, b.getI64Type()), phaseM,
              ValueRange{c});
          Value pe = arith::MulFOp::create(
              b, sinCos64(a, shift).first,
              vector::LoadOp::create(b, vf64, keepM, ValueRange{c}));
          addStore(t, pe, c, mask);
        };
        int64_t whole = channels - channels % lanes;
        scf::ForOp::create(
            b, idx(0), idx(whole), idx(lanes), ValueRange{},
            [&](OpBuilder &cb, Location l3, Value c, ValueRange) {
              Scope channel(b, cb);
              channelVector(c, Value());
              scf::YieldOp::create(b);
            });
        if (whole != channels)
          channelVector(idx(whole), rowMask(whole, channels));
      };
      auto directRows = [&](Value from) {
        scf::ForOp::create(
            b, from, t1, idx(1), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
              Scope inner(b, ib);
              directRow(t);
              scf::YieldOp::create(b);
            });
      };
      if (!paired) {
        directRows(t0);
        return;
      }
      // Paired layouts with small angles: the block's first row directly,
      // each next row from the previous one by the angle-addition formulas
      // (sin(a + w) = s cos w + c sin w, cos(a + w) = c cos w - s sin w):
      // four f64 operations per pair instead of a reduction and two
      // polynomials. The rows differ from the direct evaluation by a few
      // f64 ulps per step and by the rounding of the f64 angle fl(p w),
      // below 1e-10 while every |p w| <= kRecurrenceMaxAngle.
      Value pos0 = positionOf(t0);
      Value reach = arith::MulFOp::create(
          b,
          arith::AddFOp::create(b, math::AbsFOp::create(b, pos0),
                                arith::ConstantOp::create(
                                    b, b.getFloatAttr(f64, double(taskRows)))),
          arith::ConstantOp::create(b, b.getFloatAttr(f64, maxFreq)));
      Value small = arith::CmpFOp::create(
          b, arith::CmpFPredicate::OLE, reach,
          arith::ConstantOp::create(b,
                                    b.getFloatAttr(f64, kRecurrenceMaxAngle)));
      auto ifSmall = scf::IfOp::create(b, small, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifSmall.getThenRegion().front());
      {
        auto stateType = MemRefType::get({half}, f64);
        Value sState = memref::AllocOp::create(b, stateType, ValueRange{},
                                               b.getI64IntegerAttr(64));
        Value cState = memref::AllocOp::create(b, stateType, ValueRange{},
                                               b.getI64IntegerAttr(64));
        Value posV = vector::BroadcastOp::create(b, vPair, pos0);
        forEachPairVector([&](Value c, Value k) {
          Value w = vector::LoadOp::create(b, vPair, pairFreqM, ValueRange{k});
          auto [sn, cs] = sinCos64(arith::MulFOp::create(b, posV, w), Value());
          vector::StoreOp::create(b, sn, sState, ValueRange{k});
          vector::StoreOp::create(b, cs, cState, ValueRange{k});
          storePair(t0, c, sn, cs);
        });
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
        auto rowsFrom = [&](Value t, int64_t rows) {
          SmallVector<Value> nextRows;
          if (streaming && rows > 1) {
            Value last = arith::SubIOp::create(b, t1, idx(1));
            for (int64_t r = 0; r < rows; ++r)
              nextRows.push_back(
                  arith::MinSIOp::create(b, addi(t, idx(rows + r)), last));
          }
          forEachPairVector([&](Value c, Value k) {
            auto ld = [&](Value m) -> Value {
              return vector::LoadOp::create(b, vPair, m, ValueRange{k});
            };
            for (Value row : nextRows) {
              prefetchToL2(x3, ValueRange{n, row, c});
              if (!interleaved)
                prefetchToL2(x3, ValueRange{n, row, addi(c, idx(half))});
            }
            Value s = ld(sState), co = ld(cState);
            Value sw = ld(stepSinM), cw = ld(stepCosM);
            for (int64_t r = 0; r < rows; ++r) {
              Value sn = math::FmaOp::create(b, co, sw,
                                             arith::MulFOp::create(b, s, cw));
              Value cs = math::FmaOp::create(b, arith::NegFOp::create(b, s), sw,
                                             arith::MulFOp::create(b, co, cw));
              storePair(r == 0 ? t : addi(t, idx(r)), c, sn, cs);
              s = sn;
              co = cs;
            }
            vector::StoreOp::create(b, s, sState, ValueRange{k});
            vector::StoreOp::create(b, co, cState, ValueRange{k});
          });
        };
        // Whole passes of kRecurrenceRows rows, then the block's last rows
        // one by one.
        Value first = addi(t0, idx(1));
        Value count = arith::SubIOp::create(b, t1, first);
        Value wholeEnd = addi(
            first, muli(arith::DivUIOp::create(b, count, idx(kRecurrenceRows)),
                        idx(kRecurrenceRows)));
        scf::ForOp::create(
            b, first, wholeEnd, idx(kRecurrenceRows), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
              Scope inner(b, ib);
              rowsFrom(t, kRecurrenceRows);
              scf::YieldOp::create(b);
            });
        scf::ForOp::create(
            b, wholeEnd, t1, idx(1), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value t, ValueRange) {
              Scope inner(b, ib);
              rowsFrom(t, 1);
              scf::YieldOp::create(b);
            });
      }
      b.setInsertionPointToStart(&ifSmall.getElseRegion().front());
      directRows(t0);
    });
  });
  return bufferization::ToTensorOp::create(b, type, out, /*restrict=*/true,
                                           /*writable=*/true);
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
