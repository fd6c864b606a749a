//===- SequenceKernels.cpp - the RoPE and sinusoidal kernels --------------===//
//
// Part of the pe-mlir project.
//
// pe.rope and pe.add_sinusoidal as one-thread-per-element kernels: the
// encodings of every position are computed on the host (f64, as the
// reference lowering), the kernel applies them to each row.
//
//   rope          cos/sin tables [T, R/2] of the positions (f64 angles
//                 rounded once to f32, or cache rows); one thread per rotated
//                 pair or copied channel of every row.
//   sinusoidal    PE[t][c] in f64 from the frequency, cos/sin and padding
//                 tables of the channels; one thread per element adds it to
//                 x (times sqrt(C) with scale_input), rounded once.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PatternsInternal.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

namespace {

/// Builds the RoPE kernel of one op.
class RopeBuilder : public KernelBuilder {
public:
  RopeBuilder(PatternRewriter &rewriter, RopeOp op,
              const GPUKernelOptions &options)
      : KernelBuilder(rewriter, op, op.getRotation(), options) {}
  /// Replaces `op` by the kernel.
  void build(RopeOp op);
};

/// Builds the sinusoidal-encoding kernel of one op.
class SinusoidalBuilder : public KernelBuilder {
public:
  SinusoidalBuilder(PatternRewriter &rewriter, AddSinusoidalOp op,
                    const GPUKernelOptions &options)
      : KernelBuilder(rewriter, op, std::nullopt, options) {}
  /// Replaces `op` by the kernel.
  void build(AddSinusoidalOp op);
};

void RopeBuilder::build(RopeOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  int64_t d = type.getDimSize(rank - 1);
  int64_t pairs = rotary / 2, perRow = pairs + (d - rotary);
  SmallVector<Value> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(dimOf(op.getInput(), i));
  Value tokens = dims[rank - 2];
  Value rows = idx(1);
  for (int64_t i = 0; i < rank - 1; ++i)
    rows = muli(rows, dims[i]);
  Value x = kernelBuffer(op.getInput());
  Value outBuffer =
      allocLike(MemRefType::get(type.getShape(), type.getElementType()), dims);
  Value out = flatten(outBuffer);
  Value cosT, sinT;
  // A positions tensor: a table row per entry ([B, T] flattened; row t of
  // batch b at b T + t, b = row / (rows / B)).
  Value positions = op.getPositions();
  bool batched =
      positions && cast<RankedTensorType>(positions.getType()).getRank() == 2;
  if (positions) {
    Value flat = flatBuffer(positions);
    std::tie(cosT, sinT) =
        buildTables(memref::DimOp::create(b, flat, 0), Value(), flat);
  } else {
    std::tie(cosT, sinT) = buildTables(
        tokens, offsetValue({static_cast<int64_t>(op.getStaticOffset()),
                             op.getOffset()}));
  }
  Value rowsPerBatch =
      batched ? divui(rows, maxsi(dims[0], idx(1))) : Value(idx(1));
  // One thread per rotated pair or copied channel of every row.
  Value hostItems = muli(rows, idx(perRow));
  Value params = packScalars({hostItems, tokens, rowsPerBatch});
  int64_t block = options.ropeBlock;
  scf::IfOp guard =
      guardLaunch(cmpi(arith::CmpIPredicate::ugt, hostItems, idx(0)));
  auto launch = gpu::LaunchOp::create(b, ceilDiv(hostItems, block), idx(1),
                                      idx(1), idx(block), idx(1), idx(1));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value items = unpackScalar(params, 0), tokens = unpackScalar(params, 1);
    Value e =
        addi(muli(launch.getBlockIds().x, idx(block)), launch.getThreadIds().x);
    ifThen(cmpi(arith::CmpIPredicate::ult, e, items), [&] {
      Value row = divui(e, idx(perRow)), item = remui(e, idx(perRow));
      Value t = remui(row, tokens);
      Value tableRow =
          batched ? addi(muli(divui(row, unpackScalar(params, 2)), tokens), t)
                  : t;
      Value base = muli(row, idx(d));
      auto isPair = scf::IfOp::create(
          b, cmpi(arith::CmpIPredicate::ult, item, idx(pairs)),
          /*withElse=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&isPair.getThenRegion().front());
      rotatePair([&](Value c) { return loadF32(x, addi(base, c)); }, tableRow,
                 item, cosT, sinT,
                 [&](Value y0, Value y1) {
                   auto [c0, c1] = pairChannels(item);
                   storeFromF32(y0, out, addi(base, c0));
                   storeFromF32(y1, out, addi(base, c1));
                 });
      b.setInsertionPointToStart(&isPair.getElseRegion().front());
      Value c = addi(base, addi(subi(item, idx(pairs)), idx(rotary)));
      storeFromF32(loadF32(x, c), out, c);
    });
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPointAfter(guard);
  Value result = bufferization::ToTensorOp::create(
      b, type, outBuffer, /*restrict=*/true, /*writable=*/true);
  rewriter.replaceOp(op, result);
}

void SinusoidalBuilder::build(AddSinusoidalOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  int64_t channels = type.getDimSize(rank - 1);
  auto layout = op.getLayout() == SinusoidalLayout::Interleaved
                    ? formula::SinusoidalLayout::Interleaved
                    : formula::SinusoidalLayout::Concat;
  double base = op.getBase().convertToDouble();
  // Per channel, from the formulas: the frequency, whether it is a cos
  // channel, and 0 for the padding column of an odd concat layout.
  SmallVector<double> freq, isCos, keep;
  for (int64_t c = 0; c < channels; ++c) {
    freq.push_back(formula::sinusoidalFrequency(c, channels, base, layout));
    isCos.push_back(formula::sinusoidalIsCos(c, channels, layout) ? 1.0 : 0.0);
    keep.push_back(formula::sinusoidalIsPad(c, channels, layout) ? 0.0 : 1.0);
  }
  auto table = [&](ArrayRef<double> values) {
    auto t = RankedTensorType::get({channels}, f64);
    return flatBuffer(
        arith::ConstantOp::create(b, DenseElementsAttr::get(t, values)));
  };
  Value freqM = table(freq), cosM = table(isCos), keepM = table(keep);
  SmallVector<Value> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(dimOf(op.getInput(), i));
  Value tokens = dims[rank - 2];
  Value rows = idx(1);
  for (int64_t i = 0; i < rank - 1; ++i)
    rows = muli(rows, dims[i]);
  // Host: the encoding of every (position, channel) in f64,
  // PE[t][c] = sin or cos of (offset + t) * freq[c].
  Value n = muli(tokens, idx(channels));
  Value pe = allocLike(
      MemRefType::get({getConstantIntValue(n).value_or(ShapedType::kDynamic)},
                      f64),
      n);
  Value offset =
      offsetValue({static_cast<int64_t>(op.getStaticOffset()), op.getOffset()});
  forLoop(idx(0), tokens, idx(1), [&](Value t) {
    Value pos = arith::SIToFPOp::create(
        b, f64,
        arith::IndexCastOp::create(b, b.getI64Type(),
                                   saturatingAdd(t, offset)));
    forLoop(idx(0), idx(channels), idx(1), [&](Value c) {
      Value angle = mulf(pos, memref::LoadOp::create(b, freqM, ValueRange{c}));
      Value cosChannel = arith::CmpFOp::create(
          b, arith::CmpFPredicate::ONE,
          memref::LoadOp::create(b, cosM, ValueRange{c}),
          arith::ConstantOp::create(b, b.getFloatAttr(f64, 0.0)));
      Value v = select(cosChannel, math::CosOp::create(b, angle),
                       math::SinOp::create(b, angle));
      v = mulf(v, memref::LoadOp::create(b, keepM, ValueRange{c}));
      memref::StoreOp::create(b, v, pe,
                              ValueRange{addi(muli(t, idx(channels)), c)});
    });
  });
  Value x = kernelBuffer(op.getInput());
  Value outBuffer =
      allocLike(MemRefType::get(type.getShape(), type.getElementType()), dims);
  Value out = flatten(outBuffer);
  double inputScale = op.getScaleInput() ? std::sqrt(double(channels)) : 1.0;
  // One thread per element: x (times the input scale) + PE in f64, rounded
  // once to the element type.
  Value hostItems = muli(rows, idx(channels));
  Value params = packScalars({hostItems, tokens});
  int64_t block = options.ropeBlock;
  scf::IfOp guard =
      guardLaunch(cmpi(arith::CmpIPredicate::ugt, hostItems, idx(0)));
  auto launch = gpu::LaunchOp::create(b, ceilDiv(hostItems, block), idx(1),
                                      idx(1), idx(block), idx(1), idx(1));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value items = unpackScalar(params, 0), tokens = unpackScalar(params, 1);
    Value e =
        addi(muli(launch.getBlockIds().x, idx(block)), launch.getThreadIds().x);
    ifThen(cmpi(arith::CmpIPredicate::ult, e, items), [&] {
      Value row = divui(e, idx(channels)), c = remui(e, idx(channels));
      Value t = remui(row, tokens);
      Value xv = memref::LoadOp::create(b, x, ValueRange{e});
      Value x64 = arith::ExtFOp::create(b, f64, xv);
      if (inputScale != 1.0)
        x64 = mulf(
            x64, arith::ConstantOp::create(b, b.getFloatAttr(f64, inputScale)));
      Value sum =
          addf(x64, memref::LoadOp::create(
                        b, pe, ValueRange{addi(muli(t, idx(channels)), c)}));
      memref::StoreOp::create(
          b, arith::TruncFOp::create(b, type.getElementType(), sum), out,
          ValueRange{e});
    });
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPointAfter(guard);
  Value result = bufferization::ToTensorOp::create(
      b, type, outBuffer, /*restrict=*/true, /*writable=*/true);
  rewriter.replaceOp(op, result);
}

/// pe.rope -> the RoPE kernel; refuses, with the `rope-kernel` remark, a
/// rope without one.
struct RopePattern : public OpRewritePattern<RopeOp> {
  RopePattern(MLIRContext *ctx, const GPUKernelOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedRopeReason(op, options);
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "rope-kernel",
                       "no GPU RoPE kernel (the reference lowering runs on "
                       "the host): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    RopeBuilder(rewriter, op, options).build(op);
    return success();
  }

  GPUKernelOptions options;
};

/// pe.add_sinusoidal -> the sinusoidal kernel; refuses, with the
/// `sinusoidal-kernel` remark, an op without one.
struct SinusoidalPattern : public OpRewritePattern<AddSinusoidalOp> {
  SinusoidalPattern(MLIRContext *ctx, const GPUKernelOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(AddSinusoidalOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedSinusoidalReason(op, options);
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "sinusoidal-kernel",
                       "no GPU sinusoidal kernel (the reference lowering "
                       "runs on the host): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    SinusoidalBuilder(rewriter, op, options).build(op);
    return success();
  }

  GPUKernelOptions options;
};

} // namespace

void gpu_kernels::populateSequenceKernelPatterns(
    RewritePatternSet &patterns, const GPUKernelOptions &options) {
  patterns.add<RopePattern, SinusoidalPattern>(patterns.getContext(), options);
}
