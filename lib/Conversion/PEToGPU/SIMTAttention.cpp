//===- SIMTAttention.cpp - the one-row-per-thread attention kernel --------===//
//
// Part of the pe-mlir project.
//
// The SIMT attention kernel (docs/CodegenGPU.md), for every attention that
// has a GPU kernel and gets neither the tensor-core nor the decode one:
//
//   host          cos/sin of every query and key position ([T, R/2], f64
//                 angles rounded once to f32, or cache rows), the ALiBi
//                 slopes, and flat views of every operand.
//   grid          (ceil(G * Tq / BQ), Hkv, B); block: BQ threads. The rows
//                 of a block are (query head of the KV group, query token)
//                 pairs, so the query heads that share a KV head share its
//                 key/value tiles (GQA/MQA).
//   per thread    one query row: q (rotated, times the scale) and the output
//                 accumulator o in private memory, running max m and sum l in
//                 registers.
//   per key tile  (BK keys, up to the causal limit of the block's last row,
//                 from the window start of its first row) all threads load K
//                 (rotated as it is loaded) and V into workgroup memory;
//                 barrier; each thread scores its row against the tile
//                 (softcap, ALiBi and every mask from indices), rescales o
//                 once by exp(m_old - m_new) and accumulates P V; barrier.
//   epilogue      o / l (0 for a row without allowed keys), and the row's
//                 log-sum-exp m + log l when the op has an lse result.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PatternsInternal.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

namespace {

/// Builds the SIMT attention kernel of one op.
class SIMTAttentionBuilder : public KernelBuilder {
public:
  SIMTAttentionBuilder(PatternRewriter &rewriter, AttentionOp op,
                       const GPUKernelOptions &options)
      : KernelBuilder(rewriter, op, op.getRotation(), options), op(op) {}

  /// Replaces the op (and its lse result) by the kernel.
  void build();

private:
  /// What the kernel body knows of its thread.
  struct Thread {
    Value tq, tkAll, ks, vs, qp, acc, sp, tx, bIdx, kvh, active, i, h, tk;
    Value slope, qPos, limit, negInf;
  };
  /// The kernel body of `launch`.
  void emitKernel(const AttentionHost &host, gpu::LaunchOp launch);
  /// Stores this thread's query row, rotated and times the scale, into its
  /// private `qp`, and zeros its accumulator.
  void emitQueryRow(const AttentionHost &host, const Thread &t);
  /// One key tile: stages it, scores the row against it and updates the
  /// accumulator; returns the new (m, l).
  std::pair<Value, Value> emitKeyTile(const AttentionHost &host,
                                      const Thread &t, Value tile, Value mOld,
                                      Value lOld);
  /// O / l, 0 for a row without allowed keys; lse = m + log l.
  void emitEpilogue(const AttentionHost &host, const Thread &t, Value m,
                    Value l);

  /// f16/bf16 inputs: the rotated queries and keys rounded to the input
  /// type, as the composition's pe.rope rounds them (the op allows keeping
  /// them in f32, but a bf16 rounding step moves scores by up to 2^-9 of
  /// |q||k|, more than the other differences between the two forms).
  std::function<Value(Value)> roundTo(Type type) {
    return [this, type](Value v) { return roundThrough(type, v); };
  }

  AttentionOp op;
};

void SIMTAttentionBuilder::build() {
  AttentionHost host = prepareAttention(op);
  int64_t kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv;
  int64_t bq = options.blockRows, bk = options.keyTile;
  Value batch = host.batch, tq = host.tq;

  Value gridX = ceilDiv(muli(idx(group), tq), bq);
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto priv =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Private);
  Type ksType = MemRefType::get({bk, d}, f32, MemRefLayoutAttrInterface(), wg);
  Type vsType = MemRefType::get({bk, dv}, f32, MemRefLayoutAttrInterface(), wg);
  Type qpType = MemRefType::get({d}, f32, MemRefLayoutAttrInterface(), priv);
  Type opType = MemRefType::get({dv}, f32, MemRefLayoutAttrInterface(), priv);
  Type spType = MemRefType::get({bk}, f32, MemRefLayoutAttrInterface(), priv);
  [[maybe_unused]] int64_t tileBytes = staticBytes(TypeRange{ksType, vsType});
  assert(tileBytes == static_cast<int64_t>(simtWorkgroupBytes(d, dv)(bk)) &&
         tileBytes <= options.sharedMemoryBytes &&
         "the key tile's workgroup memory is not what fitKeyTile counted");
  scf::IfOp guard = guardLaunch(
      arith::AndIOp::create(b, cmpi(arith::CmpIPredicate::ugt, gridX, idx(0)),
                            cmpi(arith::CmpIPredicate::ugt, batch, idx(0))));
  auto launch = gpu::LaunchOp::create(
      b, gridX, idx(kvHeads), batch, idx(bq), idx(1), idx(1),
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{}, TypeRange{ksType, vsType},
      TypeRange{qpType, opType, spType});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    emitKernel(host, launch);
  }
  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

void SIMTAttentionBuilder::emitKernel(const AttentionHost &host,
                                      gpu::LaunchOp launch) {
  int64_t group = host.group, bq = options.blockRows, bk = options.keyTile;
  Thread t;
  // The host scalars, read back in the kernel.
  std::array<Value, 4> scalars = unpackAttentionScalars(host);
  t.tq = scalars[0];
  t.tkAll = scalars[1];
  Value causalOffset = scalars[2], alibiBase = scalars[3];
  Value tq = t.tq;
  Value rowsTotal = muli(idx(group), tq);
  t.ks = launch.getWorkgroupAttributions()[0];
  t.vs = launch.getWorkgroupAttributions()[1];
  t.qp = launch.getPrivateAttributions()[0];
  t.acc = launch.getPrivateAttributions()[1];
  t.sp = launch.getPrivateAttributions()[2];
  t.tx = launch.getThreadIds().x;
  t.bIdx = launch.getBlockIds().z;
  t.kvh = launch.getBlockIds().y;
  Value r0 = muli(launch.getBlockIds().x, idx(bq));
  Value r = addi(r0, t.tx);
  t.active = cmpi(arith::CmpIPredicate::ult, r, rowsTotal);
  // Inactive threads (past the last row) work on row 0 and store nothing:
  // they still load their share of every tile and reach every barrier.
  Value row = select(t.active, r, idx(0));
  t.i = remui(row, tq);
  t.h = addi(muli(t.kvh, idx(group)), divui(row, tq));
  // L[b] and the causal offset o[b].
  t.tk = validKeys(op, host, t.bIdx, t.tkAll);
  Value shift = causalShift(op, t.tk, tq, causalOffset);
  Value tileBegin, tileEnd;
  std::tie(tileBegin, tileEnd) =
      keyTileRange(op, r0, bq, rowsTotal, tq, t.tk, shift, bk);

  emitQueryRow(host, t);
  if (host.slopes)
    t.slope = loadF32(host.slopes, t.h);
  t.qPos = alibiBase ? indexToF32(addi(alibiBase, t.i)) : Value();
  t.limit = addi(t.i, shift);
  t.negInf = cf(-std::numeric_limits<double>::infinity());

  auto tiles = scf::ForOp::create(
      b, tileBegin, tileEnd, idx(1), ValueRange{t.negInf, cf(0.0)},
      [&](OpBuilder &ob, Location, Value tile, ValueRange state) {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        auto [mNew, lNew] = emitKeyTile(host, t, tile, state[0], state[1]);
        scf::YieldOp::create(b, ValueRange{mNew, lNew});
      });
  emitEpilogue(host, t, tiles.getResult(0), tiles.getResult(1));
  gpu::TerminatorOp::create(b);
}

void SIMTAttentionBuilder::emitQueryRow(const AttentionHost &host,
                                        const Thread &t) {
  Value qRow = rowStart(host, t.bIdx, t.h, t.i, host.heads, t.tq, host.d);
  auto loadQ = [&](Value c) { return loadF32(host.q, addi(qRow, c)); };
  Value scaleV = cf(op.getScaleOrDefault());
  auto storeQ = [&](Value c, Value x) {
    memref::StoreOp::create(b, mulf(x, scaleV), t.qp, ValueRange{c});
  };
  auto asInput = roundTo(op.getQuery().getType().getElementType());
  if (rotary) {
    forLoop(idx(0), idx(rotary / 2), idx(1), [&](Value p) {
      rotatePair(loadQ, ropeRow(host.qBatched, t.bIdx, t.i, t.tq), p, host.qCos,
                 host.qSin, [&](Value y0, Value y1) {
                   auto [c0, c1] = pairChannels(p);
                   storeQ(c0, asInput(y0));
                   storeQ(c1, asInput(y1));
                 });
    });
  }
  forLoop(idx(rotary), idx(host.d), idx(1),
          [&](Value c) { storeQ(c, loadQ(c)); });
  forLoop(idx(0), idx(host.dv), idx(1), [&](Value c) {
    memref::StoreOp::create(b, cf(0.0), t.acc, ValueRange{c});
  });
}

std::pair<Value, Value>
SIMTAttentionBuilder::emitKeyTile(const AttentionHost &host, const Thread &t,
                                  Value tile, Value mOld, Value lOld) {
  int64_t bk = options.keyTile, d = host.d, dv = host.dv;
  Value negInf = t.negInf;
  Value j0 = muli(tile, idx(bk));
  // Stage K (rotated as loaded, f16/bf16: rounded to the input type like the
  // queries) and V; keys past L[b] are zero. Keys (and values, exact in
  // their type already) in the key's type.
  stageKeyTile(op, host, t.ks, t.vs, t.bIdx, t.kvh, j0, t.tk, t.tkAll, t.tx,
               options.blockRows,
               roundTo(op.getKey().getType().getElementType()));
  gpu::BarrierOp::create(b);

  // Scores of this thread's row against the tile, and their max.
  auto scores = scf::ForOp::create(
      b, idx(0), idx(bk), idx(1), ValueRange{negInf},
      [&](OpBuilder &sb, Location, Value jj, ValueRange mx) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(sb.getInsertionBlock(), sb.getInsertionPoint());
        Value j = addi(j0, jj);
        auto dot = scf::ForOp::create(
            b, idx(0), idx(d), idx(1), ValueRange{cf(0.0)},
            [&](OpBuilder &db, Location, Value c, ValueRange sum) {
              OpBuilder::InsertionGuard g3(b);
              b.setInsertionPoint(db.getInsertionBlock(),
                                  db.getInsertionPoint());
              Value qc = memref::LoadOp::create(b, t.qp, ValueRange{c});
              Value kc = memref::LoadOp::create(b, t.ks, ValueRange{jj, c});
              scf::YieldOp::create(
                  b, ValueRange{math::FmaOp::create(b, qc, kc, sum[0])});
            });
        Value s = finalScore(op, host, dot.getResult(0), t.qPos, t.slope,
                             t.bIdx, t.h, t.i, j, t.tk, t.tq, t.tkAll, t.limit);
        memref::StoreOp::create(b, s, t.sp, ValueRange{jj});
        scf::YieldOp::create(
            b, ValueRange{arith::MaximumFOp::create(b, mx[0], s)});
      });
  // Online softmax: m_new, the rescale factor, then P V.
  Value mNew = arith::MaximumFOp::create(b, mOld, scores.getResult(0));
  // A row without an allowed key so far keeps m = -inf; exponents are taken
  // against 0 then, which gives exp(-inf) = 0, not NaN.
  Value safeM =
      select(arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf),
             cf(0.0), mNew);
  Value alpha = math::ExpOp::create(b, arith::SubFOp::create(b, mOld, safeM));
  forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
    Value o = memref::LoadOp::create(b, t.acc, ValueRange{c});
    memref::StoreOp::create(b, mulf(o, alpha), t.acc, ValueRange{c});
  });
  auto pv = scf::ForOp::create(
      b, idx(0), idx(bk), idx(1), ValueRange{mulf(lOld, alpha)},
      [&](OpBuilder &pb, Location, Value jj, ValueRange sum) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(pb.getInsertionBlock(), pb.getInsertionPoint());
        Value s = memref::LoadOp::create(b, t.sp, ValueRange{jj});
        Value p = math::ExpOp::create(b, arith::SubFOp::create(b, s, safeM));
        // A key the row does not see (score -inf) adds nothing, not 0 * v: a
        // NaN or infinity in its value row must not reach this row
        // (pe.attention's NaN semantics). UNE keeps NaN scores, which must
        // reach it.
        Value seen =
            arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, s, negInf);
        ifThen(seen, [&] {
          forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
            Value o = memref::LoadOp::create(b, t.acc, ValueRange{c});
            Value vc = memref::LoadOp::create(b, t.vs, ValueRange{jj, c});
            memref::StoreOp::create(b, math::FmaOp::create(b, p, vc, o), t.acc,
                                    ValueRange{c});
          });
        });
        scf::YieldOp::create(b, ValueRange{addf(sum[0], p)});
      });
  // Every thread is done with the tile before the next one is staged.
  gpu::BarrierOp::create(b);
  return {mNew, pv.getResult(0)};
}

void SIMTAttentionBuilder::emitEpilogue(const AttentionHost &host,
                                        const Thread &t, Value m, Value l) {
  int64_t heads = host.heads;
  ifThen(t.active, [&] {
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
    Value inv = select(empty, cf(0.0), arith::DivFOp::create(b, cf(1.0), l));
    Value oRow = rowStart(host, t.bIdx, t.h, t.i, heads, t.tq, host.dv);
    forLoop(idx(0), idx(host.dv), idx(1), [&](Value c) {
      Value o = memref::LoadOp::create(b, t.acc, ValueRange{c});
      storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
    });
    if (host.lse) {
      Value at = addi(muli(addi(muli(t.bIdx, idx(heads)), t.h), t.tq), t.i);
      memref::StoreOp::create(b, addf(m, math::LogOp::create(b, l)), host.lse,
                              ValueRange{at});
    }
  });
}

/// pe.attention -> the SIMT kernel: any attention with a GPU kernel (the
/// fallback of the tensor-core and decode patterns, which have a higher
/// benefit). Refuses, with the `attention-kernel` remark, an attention
/// without one.
struct SIMTAttentionPattern : public OpRewritePattern<AttentionOp> {
  SIMTAttentionPattern(MLIRContext *ctx, const GPUKernelOptions &options,
                       PatternBenefit benefit)
      : OpRewritePattern(ctx, benefit), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedReason(op, options);
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "attention-kernel",
                       "no GPU attention kernel (the reference lowering "
                       "runs on the host): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    // The key tile: the largest up to key-tile whose K/V tiles fit in
    // shared-memory-bytes (unsupportedReason leaves only ops with one).
    WorkgroupBytes bytes =
        simtWorkgroupBytes(op.getQuery().getType().getDimSize(3),
                           op.getValue().getType().getDimSize(3));
    GPUKernelOptions opOptions = options;
    opOptions.keyTile = fitKeyTile(options, 1, bytes);
    assert(opOptions.keyTile > 0 && "no key tile fits");
    emitKeyTileRemark(op, "the SIMT", opOptions.keyTile, bytes, options);
    SIMTAttentionBuilder(rewriter, op, opOptions).build();
    return success();
  }

  GPUKernelOptions options;
};

} // namespace

void gpu_kernels::populateSIMTAttentionPattern(RewritePatternSet &patterns,
                                               const GPUKernelOptions &options,
                                               PatternBenefit benefit) {
  patterns.add<SIMTAttentionPattern>(patterns.getContext(), options, benefit);
}
