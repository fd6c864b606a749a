//===- KernelBuilder.cpp - shared parts of the GPU kernels ----------------===//
//
// Part of the pe-mlir project.
//
// The RoPE tables, and the host part, scores, masks and K/V tile staging
// that the attention kernels share.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

std::pair<Value, Value> KernelBuilder::buildTables(Value rows, Value offset,
                                                   Value positions) {
  int64_t pairs = rotary / 2;
  Value n = muli(rows, idx(pairs));
  auto type = MemRefType::get(
      {getConstantIntValue(n).value_or(ShapedType::kDynamic)}, f32);
  Value cosT = allocLike(type, n);
  Value sinT = allocLike(type, n);
  Value invFreq, cosCache, sinCache, cacheRows;
  if (rot->invFreq) {
    invFreq = flatBuffer(rot->invFreq);
  } else {
    cacheRows = dimOf(rot->cosCache, 0);
    cosCache = flatBuffer(rot->cosCache);
    sinCache = flatBuffer(rot->sinCache);
  }
  forLoop(idx(0), rows, idx(1), [&](Value t) {
    Value pos =
        positions ? toIndex(memref::LoadOp::create(b, positions, ValueRange{t}))
                  : saturatingAdd(t, offset);
    forLoop(idx(0), idx(pairs), idx(1), [&](Value i) {
      Value c, s;
      if (invFreq) {
        Value f = memref::LoadOp::create(b, invFreq, ValueRange{i});
        if (f.getType() != f64)
          f = arith::ExtFOp::create(b, f64, f);
        Value p64 = arith::SIToFPOp::create(
            b, f64, arith::IndexCastOp::create(b, b.getI64Type(), pos));
        Value angle = arith::MulFOp::create(b, p64, f);
        c = arith::TruncFOp::create(b, f32, math::CosOp::create(b, angle));
        s = arith::TruncFOp::create(b, f32, math::SinOp::create(b, angle));
      } else {
        Value row = minsi(maxsi(pos, idx(0)), subi(cacheRows, idx(1)));
        Value at = addi(muli(row, idx(pairs)), i);
        c = loadF32(cosCache, at);
        s = loadF32(sinCache, at);
      }
      if (Value scaling = rot->attentionScaling) {
        c = mulf(c, scaling);
        s = mulf(s, scaling);
      }
      Value at = addi(muli(t, idx(pairs)), i);
      memref::StoreOp::create(b, c, cosT, ValueRange{at});
      memref::StoreOp::create(b, s, sinT, ValueRange{at});
    });
  });
  return {cosT, sinT};
}

void KernelBuilder::rotatePair(function_ref<Value(Value)> x, Value tableRow,
                               Value p, Value cosT, Value sinT,
                               function_ref<void(Value, Value)> emit) {
  Value at = addi(muli(tableRow, idx(rotary / 2)), p);
  Value c = memref::LoadOp::create(b, cosT, ValueRange{at});
  Value s = memref::LoadOp::create(b, sinT, ValueRange{at});
  auto [c0, c1] = pairChannels(p);
  Value x0 = x(c0), x1 = x(c1);
  // (x0, x1) -> (x0 c - x1 s, x1 c + x0 s).
  emit(arith::SubFOp::create(b, mulf(x0, c), mulf(x1, s)),
       math::FmaOp::create(b, x0, s, mulf(x1, c)));
}

Value KernelBuilder::modifyScore(AttentionOp op, Value s, Value qPos, Value j,
                                 Value slope) {
  Value jF = op.getAlibiAttr() ? indexToF32(j) : Value();
  return op.buildScoreModifiers(b, b.getLoc(), s, qPos, jF, slope);
}

KernelBuilder::AttentionHost KernelBuilder::prepareAttention(AttentionOp op) {
  auto qType = op.getQuery().getType();
  auto kType = op.getKey().getType();
  auto vType = op.getValue().getType();
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t hAx = op.getHeadsAxis(), sAx = op.getSequenceAxis();
  AttentionHost host;
  int64_t heads = host.heads = qType.getDimSize(hAx);
  host.kvHeads = kType.getDimSize(hAx);
  host.group = heads / host.kvHeads;
  host.d = qType.getDimSize(3);
  int64_t dv = host.dv = vType.getDimSize(3);
  host.bshd = op.getLayout() == AttentionLayout::BSHD;

  // Host: sizes, flat operand views, result buffers, tables and slopes.
  Value batch = host.batch = dimOf(op.getQuery(), 0);
  Value tq = host.tq = dimOf(op.getQuery(), sAx);
  Value tkAll = host.tkAll = dimOf(op.getKey(), sAx);
  host.q = kernelBuffer(op.getQuery());
  host.k = kernelBuffer(op.getKey());
  host.v = kernelBuffer(op.getValue());
  auto outType =
      MemRefType::get(resultType.getShape(), resultType.getElementType());
  SmallVector<Value> outDims = {batch, idx(heads), idx(heads), idx(dv)};
  outDims[hAx] = idx(heads);
  outDims[sAx] = tq;
  host.outBuffer = allocLike(outType, outDims);
  host.out = flatten(host.outBuffer);
  if (Value lseResult = op.getLse()) {
    auto type = cast<RankedTensorType>(lseResult.getType());
    host.lseBuffer = allocLike(MemRefType::get(type.getShape(), f32),
                               {batch, idx(heads), tq});
    host.lse = flatten(host.lseBuffer);
  }
  if (op.getKvLengths())
    host.lengths = kernelBuffer(op.getKvLengths());
  Value causalOffset =
      op.getCausalOffset() ? toIndex(op.getCausalOffset()) : idx(0);
  if (rotary) {
    // Positions tensors: one table row per (batch and) token.
    auto tables = [&](Value positions, Value tokens, PositionOffset offset,
                      bool &batched) {
      if (!positions)
        return buildTables(tokens, offsetValue(offset));
      batched = cast<RankedTensorType>(positions.getType()).getRank() == 2;
      Value flat = flatBuffer(positions);
      return buildTables(memref::DimOp::create(b, flat, 0), Value(), flat);
    };
    std::tie(host.qCos, host.qSin) = tables(
        op.getQueryPositions(), tq, op.getRopeQueryOffset(), host.qBatched);
    if (op.rotatesKey())
      std::tie(host.kCos, host.kSin) = tables(
          op.getKeyPositions(), tkAll, op.getRopeKeyOffset(), host.kBatched);
  }
  Value alibiBase;
  if (AlibiEncodingAttr alibi = op.getAlibiAttr()) {
    if (Value explicitSlopes = op.getAlibiSlopes()) {
      host.slopes = kernelBufferAs(explicitSlopes, f32);
    } else {
      SmallVector<float> values;
      for (double s :
           formula::alibiSlopes(heads, alibi.getMaxBias().convertToDouble()))
        values.push_back(float(s));
      auto type = RankedTensorType::get({heads}, f32);
      host.slopes = kernelBuffer(arith::ConstantOp::create(
          b, DenseElementsAttr::get(type, ArrayRef<float>(values))));
    }
    alibiBase = offsetValue(op.getAlibiQueryOffset());
  }
  // Bias and mask in a type every target reads (f32; i32 for the mask),
  // flat, in their own (broadcast) shapes.
  if (Value bias = op.getBias()) {
    host.bias = kernelBufferAs(bias, f32);
    host.biasShape.assign(
        cast<RankedTensorType>(bias.getType()).getShape().begin(),
        cast<RankedTensorType>(bias.getType()).getShape().end());
  }
  if (Value mask = op.getMask()) {
    host.mask = kernelBufferAs(mask, b.getI32Type());
    host.maskShape.assign(
        cast<RankedTensorType>(mask.getType()).getShape().begin(),
        cast<RankedTensorType>(mask.getType()).getShape().end());
  }
  host.params =
      packScalars({tq, tkAll, causalOffset, alibiBase ? alibiBase : idx(0)});
  return host;
}

Value KernelBuilder::finalScore(AttentionOp op, const AttentionHost &host,
                                Value s, Value qPos, Value slope, Value bIdx,
                                Value h, Value i, Value j, Value tk, Value tq,
                                Value tkAll, Value limit) {
  // The explicit bias sits where ALiBi would (they are exclusive): after a
  // before_bias softcap, before an after_bias one; modifyScore applies the
  // softcap. Keys past Tk read key Tk - 1 (masked below anyway).
  Value jSafe = minsi(j, subi(tkAll, idx(1)));
  Value bias;
  if (host.bias)
    bias = memref::LoadOp::create(
        b, host.bias,
        ValueRange{broadcastOffset(host.biasShape, {idx(host.heads), tq, tkAll},
                                   bIdx, h, i, jSafe)});
  bool biasFirst = op.getSoftcapOrder() == SoftcapOrder::AfterBias;
  if (bias && biasFirst)
    s = arith::AddFOp::create(b, s, bias);
  s = modifyScore(op, s, qPos, j, slope);
  if (bias && !biasFirst)
    s = arith::AddFOp::create(b, s, bias);
  Value allowed = keyAllowed(op, j, tk, limit);
  if (host.mask) {
    Value m = memref::LoadOp::create(
        b, host.mask,
        ValueRange{broadcastOffset(host.maskShape, {idx(host.heads), tq, tkAll},
                                   bIdx, h, i, jSafe)});
    allowed =
        arith::AndIOp::create(b, allowed,
                              cmpi(arith::CmpIPredicate::ne, m,
                                   arith::ConstantIntOp::create(b, 0, 32)));
  }
  return select(allowed, s, cf(-std::numeric_limits<double>::infinity()));
}

Value KernelBuilder::broadcastOffset(ArrayRef<int64_t> shape,
                                     ArrayRef<Value> sizesHTqTk, Value bIdx,
                                     Value hIdx, Value i, Value j) {
  // `shape` is aligned to the right of [B, H, Tq, Tk]; a static 1
  // broadcasts (index 0); a dynamic dimension is the target's own size
  // (H, Tq or Tk; the batch, outermost, never enters a stride).
  Value target[4] = {bIdx, hIdx, i, j};
  int64_t rank = shape.size();
  Value offset = idx(0);
  Value stride = idx(1);
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t t = 4 - rank + d;
    if (shape[d] != 1)
      offset = addi(offset, muli(target[t], stride));
    if (d > 0)
      stride = muli(stride, ShapedType::isDynamic(shape[d]) ? sizesHTqTk[t - 1]
                                                            : idx(shape[d]));
  }
  return offset;
}

void KernelBuilder::finishAttention(AttentionOp op, const AttentionHost &host) {
  auto toTensor = [&](Type type, Value buffer) -> Value {
    return bufferization::ToTensorOp::create(b, type, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  };
  SmallVector<Value, 2> results = {
      toTensor(op.getResult().getType(), host.outBuffer)};
  if (Value lseResult = op.getLse())
    results.push_back(toTensor(lseResult.getType(), host.lseBuffer));
  rewriter.replaceOp(op, results);
}

std::pair<Value, Value> KernelBuilder::keyTileRange(AttentionOp op, Value r0,
                                                    int64_t bq, Value rowsTotal,
                                                    Value tq, Value tk,
                                                    Value shift, int64_t bk) {
  // The block's first and last query token: its rows are (head, token)
  // pairs, so a block that spans two heads covers every token.
  Value rLast = subi(minsi(addi(r0, idx(bq)), rowsTotal), idx(1));
  Value sameHead =
      cmpi(arith::CmpIPredicate::eq, divui(r0, tq), divui(rLast, tq));
  Value firstTok = select(sameHead, remui(r0, tq), idx(0));
  Value lastTok = select(sameHead, remui(rLast, tq), subi(tq, idx(1)));
  return kernels::AttentionPlan(op).buildKeyTileRange(b, b.getLoc(), firstTok,
                                                      lastTok, shift, tk, bk);
}

Value KernelBuilder::keyAllowed(AttentionOp op, Value j, Value tk,
                                Value limit) {
  return kernels::AttentionPlan(op).buildKeyAllowedAtLimit(b, b.getLoc(), j,
                                                           limit, tk);
}

void KernelBuilder::stageTile(
    Value dst, int64_t rows, int64_t channels, int64_t rotated, Value src,
    Value cosT, Value sinT, Value tid, int64_t threads,
    function_ref<std::tuple<Value, Value, Value>(Value)> source,
    function_ref<Value(Value)> round) {
  Value zero = cf(0.0);
  if (rotated) {
    int64_t pairs = rotated / 2;
    forLoop(tid, idx(rows * pairs), idx(threads), [&](Value e) {
      Value rr = divui(e, idx(pairs)), p = remui(e, idx(pairs));
      Value valid, start, tableRow;
      std::tie(valid, start, tableRow) = source(rr);
      rotatePair([&](Value c) { return loadF32(src, addi(start, c)); },
                 tableRow, p, cosT, sinT,
                 [&](Value y0, Value y1) {
                   auto [c0, c1] = pairChannels(p);
                   memref::StoreOp::create(b, round(select(valid, y0, zero)),
                                           dst, ValueRange{rr, c0});
                   memref::StoreOp::create(b, round(select(valid, y1, zero)),
                                           dst, ValueRange{rr, c1});
                 });
    });
  }
  if (rotated < channels) {
    int64_t rest = channels - rotated;
    forLoop(tid, idx(rows * rest), idx(threads), [&](Value e) {
      Value rr = divui(e, idx(rest));
      Value c = addi(remui(e, idx(rest)), idx(rotated));
      Value valid, start;
      std::tie(valid, start, std::ignore) = source(rr);
      Value x = loadF32(src, addi(start, c));
      memref::StoreOp::create(b, round(select(valid, x, zero)), dst,
                              ValueRange{rr, c});
    });
  }
}
