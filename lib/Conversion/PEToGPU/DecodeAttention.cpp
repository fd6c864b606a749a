//===- DecodeAttention.cpp - the decode attention kernel ------------------===//
//
// Part of the pe-mlir project.
//
// The decode attention kernel (one query token; docs/CodegenGPU.md): blocks
// (key split, KV head, batch); the threads of a block spread over the
// (query head, key) pairs of a key tile for the scores and over the value
// channels for P V, so that the query heads of a GQA group share each K/V
// tile. With more than one split (split-KV, decode-split-keys), each split
// writes its partial (O, m, l) and a second kernel merges them.
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

/// Builds the decode kernel (and the split combine) of one op.
class DecodeAttentionBuilder : public KernelBuilder {
public:
  DecodeAttentionBuilder(PatternRewriter &rewriter, AttentionOp op,
                         const GPUKernelOptions &options, int64_t keyTile)
      : KernelBuilder(rewriter, op, op.getRotation(), options), op(op),
        bk(keyTile) {}

  /// Replaces the op (and its lse result) by the kernel(s).
  void build();

private:
  /// The per-row values of the row state buffer: m (running max), l
  /// (running sum), the tile's rescale factor alpha, and the tile's
  /// exponent base.
  enum RowValue { kMax, kSum, kAlpha, kBase };
  /// What the kernel body knows of its block and thread.
  struct Block {
    Value tq, tkAll, qs, ks, vs, ps, rowState, acc, tx, split, kvh, bIdx, tk;
    Value qPos, limit, negInf;
  };
  /// The split count and tiles per split with key tiles of `bk` keys
  /// (decode-split-keys, at most kMaxKeySplits splits): constants for a
  /// static key length, host values otherwise.
  std::pair<Value, Value> keySplits(const AttentionHost &host);
  /// The kernel body of `launch`; `splitParams` holds (tiles per split,
  /// splits, rows), the partials are null when `direct`.
  void emitKernel(const AttentionHost &host, gpu::LaunchOp launch,
                  Value splitParams, bool direct, Value oPart, Value mPart,
                  Value lPart);
  /// One key tile of the block's split.
  void emitKeyTile(const AttentionHost &host, const Block &blk, Value tile);
  /// The result of a single split: O / l and lse by the owners.
  void emitResult(const AttentionHost &host, const Block &blk);
  /// The split's partial result for the combine kernel.
  void emitPartials(const AttentionHost &host, const Block &blk,
                    Value splitParams, Value oPart, Value mPart, Value lPart);
  /// The second kernel of a split-KV attention: one thread per (batch,
  /// head, token) row merges the splits' partial (O, m, l) into the result
  /// (and lse).
  void buildSplitCombine(const AttentionHost &host, Value splitParams,
                         Value oPart, Value mPart, Value lPart);

  /// Channels of each row's accumulator per thread: c = tx + k * threads.
  int64_t channelsPerThread(const AttentionHost &host) const {
    return (host.dv + options.blockRows - 1) / options.blockRows;
  }
  SmallVector<Value, 2> rowAt(int64_t what, Value gRow) {
    return {idx(what), gRow};
  }
  /// `body(k, c)` for each channel c = tx + k * threads < Dv this thread
  /// owns.
  void forOwnChannels(const AttentionHost &host, Value tx,
                      function_ref<void(Value k, Value c)> body);
  std::function<Value(Value)> roundTo(Type type) {
    return [this, type](Value v) { return roundThrough(type, v); };
  }

  AttentionOp op;
  int64_t bk;
};

std::pair<Value, Value>
DecodeAttentionBuilder::keySplits(const AttentionHost &host) {
  // decode-split-keys=0: one split of every tile.
  if (options.decodeSplitKeys == 0)
    return {idx(1), idx(std::numeric_limits<int32_t>::max())};
  int64_t splitTiles = std::max<int64_t>(1, options.decodeSplitKeys / bk);
  if (std::optional<int64_t> tk = getConstantIntValue(host.tkAll)) {
    int64_t tiles = (*tk + bk - 1) / bk;
    int64_t perSplit =
        std::max(splitTiles, (tiles + kMaxKeySplits - 1) / kMaxKeySplits);
    int64_t count = std::max<int64_t>(1, (tiles + perSplit - 1) / perSplit);
    return {idx(count), idx(perSplit)};
  }
  Value tiles = ceilDiv(host.tkAll, bk);
  Value perSplit = maxsi(idx(splitTiles), ceilDiv(tiles, kMaxKeySplits));
  Value count =
      maxsi(idx(1), divui(addi(tiles, subi(perSplit, idx(1))), perSplit));
  return {count, perSplit};
}

void DecodeAttentionBuilder::forOwnChannels(
    const AttentionHost &host, Value tx,
    function_ref<void(Value k, Value c)> body) {
  int64_t threads = options.blockRows;
  forLoop(idx(0), idx(channelsPerThread(host)), idx(1), [&](Value k) {
    Value c = addi(tx, muli(k, idx(threads)));
    if (host.dv % threads == 0)
      body(k, c);
    else
      ifThen(cmpi(arith::CmpIPredicate::ult, c, idx(host.dv)),
             [&] { body(k, c); });
  });
}

void DecodeAttentionBuilder::build() {
  AttentionHost host = prepareAttention(op);
  int64_t heads = host.heads, kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv;
  int64_t threads = options.blockRows;
  int64_t cpt = channelsPerThread(host);
  Value batch = host.batch, tq = host.tq;

  // Split-KV: blocks (split, KV head, batch); partial (O, m, l) per split,
  // merged by buildSplitCombine.
  // One split known at compile time: the kernel writes the result itself.
  auto [splits, tilesPerSplit] = keySplits(host);
  bool direct = getConstantIntValue(splits) == 1;
  Value rowsAll = muli(muli(batch, idx(heads)), tq);
  Value oPart, mPart, lPart;
  if (!direct) {
    Value slots = muli(splits, rowsAll);
    auto flatType = [&](Value n) {
      std::optional<int64_t> c = getConstantIntValue(n);
      return MemRefType::get({c ? *c : ShapedType::kDynamic}, f32);
    };
    Value oSize = muli(slots, idx(dv));
    oPart = allocLike(flatType(oSize), oSize);
    mPart = allocLike(flatType(slots), slots);
    lPart = allocLike(flatType(slots), slots);
  }
  Value splitParams = packScalars({tilesPerSplit, splits, rowsAll});

  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto priv =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Private);
  auto shared = [&](ArrayRef<int64_t> shape) -> Type {
    return MemRefType::get(shape, f32, MemRefLayoutAttrInterface(), wg);
  };
  Type qsType = shared({group, d}), ksType = shared({bk, d + 1}),
       vsType = shared({bk, dv}), psType = shared({group, bk}),
       rowType = shared({4, group});
  Type oType =
      MemRefType::get({group * cpt}, f32, MemRefLayoutAttrInterface(), priv);
  assert(staticBytes(TypeRange{qsType, ksType, vsType, psType, rowType}) ==
             static_cast<int64_t>(decodeWorkgroupBytes(group, d, dv)(bk)) &&
         "decodeWorkgroupBytes does not count the decode kernel's buffers");
  scf::IfOp guard = guardLaunch(cmpi(arith::CmpIPredicate::ugt, batch, idx(0)));
  auto launch = gpu::LaunchOp::create(
      b, splits, idx(kvHeads), batch, idx(threads), idx(1), idx(1),
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{},
      TypeRange{qsType, ksType, vsType, psType, rowType}, TypeRange{oType});
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    emitKernel(host, launch, splitParams, direct, oPart, mPart, lPart);
  }
  if (!direct)
    buildSplitCombine(host, splitParams, oPart, mPart, lPart);
  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

void DecodeAttentionBuilder::emitKernel(const AttentionHost &host,
                                        gpu::LaunchOp launch, Value splitParams,
                                        bool direct, Value oPart, Value mPart,
                                        Value lPart) {
  int64_t heads = host.heads, group = host.group, d = host.d;
  int64_t threads = options.blockRows, cpt = channelsPerThread(host);
  Block blk;
  std::array<Value, 4> scalars = unpackAttentionScalars(host);
  Value tq = blk.tq = scalars[0];
  blk.tkAll = scalars[1];
  Value causalOffset = scalars[2], alibiBase = scalars[3];
  blk.qs = launch.getWorkgroupAttributions()[0];
  blk.ks = launch.getWorkgroupAttributions()[1];
  blk.vs = launch.getWorkgroupAttributions()[2];
  blk.ps = launch.getWorkgroupAttributions()[3];
  blk.rowState = launch.getWorkgroupAttributions()[4];
  blk.acc = launch.getPrivateAttributions()[0];
  Value tx = blk.tx = launch.getThreadIds().x;
  blk.split = launch.getBlockIds().x;
  blk.kvh = launch.getBlockIds().y;
  blk.bIdx = launch.getBlockIds().z;
  Value kvh = blk.kvh, bIdx = blk.bIdx;
  blk.tk = validKeys(op, host, bIdx, blk.tkAll);
  Value shift = causalShift(op, blk.tk, tq, causalOffset);
  Value tileBegin, tileEnd;
  std::tie(tileBegin, tileEnd) =
      keyTileRange(op, idx(0), group, idx(group), tq, blk.tk, shift, bk);
  Value perSplit = unpackScalar(splitParams, 0);
  Value first = muli(blk.split, perSplit);
  tileBegin = maxsi(tileBegin, first);
  tileEnd = minsi(tileEnd, addi(first, perSplit));

  // f16/bf16: the rotated queries rounded to the input type, as in the
  // one-row-per-thread kernel.
  auto asInput = roundTo(op.getQuery().getType().getElementType());
  Value scaleV = cf(op.getScaleOrDefault());
  // The group's query rows (token 0), rotated and times the scale.
  stageTile(
      blk.qs, group, d, rotary, host.q, host.qCos, host.qSin, tx, threads,
      [&](Value g) {
        Value h = addi(muli(kvh, idx(group)), g);
        return std::make_tuple(Value(arith::ConstantIntOp::create(b, 1, 1)),
                               rowStart(host, bIdx, h, idx(0), heads, tq, d),
                               ropeRow(host.qBatched, bIdx, idx(0), tq));
      },
      [&](Value v) { return mulf(asInput(v), scaleV); });
  Value negInf = blk.negInf = cf(-std::numeric_limits<double>::infinity());
  forLoop(tx, idx(group), idx(threads), [&](Value g) {
    memref::StoreOp::create(b, negInf, blk.rowState, rowAt(kMax, g));
    memref::StoreOp::create(b, cf(0.0), blk.rowState, rowAt(kSum, g));
  });
  forLoop(idx(0), idx(group * cpt), idx(1), [&](Value e) {
    memref::StoreOp::create(b, cf(0.0), blk.acc, ValueRange{e});
  });
  blk.qPos = alibiBase ? indexToF32(alibiBase) : Value();
  blk.limit = shift; // token 0: i + o[b]

  forLoop(tileBegin, tileEnd, idx(1),
          [&](Value tile) { emitKeyTile(host, blk, tile); });
  if (direct) {
    emitResult(host, blk);
  } else {
    emitPartials(host, blk, splitParams, oPart, mPart, lPart);
  }
  gpu::TerminatorOp::create(b);
}

void DecodeAttentionBuilder::emitKeyTile(const AttentionHost &host,
                                         const Block &blk, Value tile) {
  int64_t group = host.group, d = host.d, threads = options.blockRows;
  int64_t cpt = channelsPerThread(host);
  Value tx = blk.tx, ps = blk.ps, rowState = blk.rowState, acc = blk.acc;
  Value negInf = blk.negInf;
  Value j0 = muli(tile, idx(bk));
  stageKeyTile(op, host, blk.ks, blk.vs, blk.bIdx, blk.kvh, j0, blk.tk,
               blk.tkAll, tx, threads,
               roundTo(op.getKey().getType().getElementType()));
  gpu::BarrierOp::create(b);
  // Scores: the threads take (row, key) pairs, each a dot product of a
  // query row and a key row in workgroup memory.
  forLoop(tx, idx(group * bk), idx(threads), [&](Value e) {
    Value g = divui(e, idx(bk)), jj = remui(e, idx(bk));
    Value dot = foldLoop(idx(0), idx(d), cf(0.0), [&](Value c, Value sum) {
      Value qc = memref::LoadOp::create(b, blk.qs, ValueRange{g, c});
      Value kc = memref::LoadOp::create(b, blk.ks, ValueRange{jj, c});
      return Value(math::FmaOp::create(b, qc, kc, sum));
    });
    Value h = addi(muli(blk.kvh, idx(group)), g);
    Value slope = host.slopes ? loadF32(host.slopes, h) : Value();
    Value s = finalScore(op, host, dot, blk.qPos, slope, blk.bIdx, h, idx(0),
                         addi(j0, jj), blk.tk, blk.tq, blk.tkAll, blk.limit);
    memref::StoreOp::create(b, s, ps, ValueRange{g, jj});
  });
  gpu::BarrierOp::create(b);
  // Per row: the new max, the rescale factor and the exponent base.
  forLoop(tx, idx(group), idx(threads), [&](Value g) {
    Value tileMax = foldLoop(idx(0), idx(bk), negInf, [&](Value jj, Value mx) {
      Value sc = memref::LoadOp::create(b, ps, ValueRange{g, jj});
      return Value(arith::MaximumFOp::create(b, mx, sc));
    });
    Value mOld = memref::LoadOp::create(b, rowState, rowAt(kMax, g));
    Value mNew = arith::MaximumFOp::create(b, mOld, tileMax);
    // A row without an allowed key so far keeps m = -inf; exponents are
    // taken against 0 then (exp(-inf) = 0, not NaN).
    Value base = select(
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf),
        cf(0.0), mNew);
    memref::StoreOp::create(b, mNew, rowState, rowAt(kMax, g));
    memref::StoreOp::create(
        b, math::ExpOp::create(b, arith::SubFOp::create(b, mOld, base)),
        rowState, rowAt(kAlpha, g));
    memref::StoreOp::create(b, base, rowState, rowAt(kBase, g));
  });
  gpu::BarrierOp::create(b);
  // The weights P, in parallel; a key the row does not see (score -inf)
  // gets -1, so that P V skips it (a NaN or infinity in its value row must
  // not reach the row); NaN scores stay NaN and reach it.
  forLoop(tx, idx(group * bk), idx(threads), [&](Value e) {
    Value g = divui(e, idx(bk)), jj = remui(e, idx(bk));
    Value sc = memref::LoadOp::create(b, ps, ValueRange{g, jj});
    Value base = memref::LoadOp::create(b, rowState, rowAt(kBase, g));
    Value p = math::ExpOp::create(b, arith::SubFOp::create(b, sc, base));
    Value seen =
        arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, sc, negInf);
    memref::StoreOp::create(b, select(seen, p, cf(-1.0)), ps,
                            ValueRange{g, jj});
  });
  gpu::BarrierOp::create(b);
  // O = alpha O + P V on the thread's channels (consecutive threads,
  // consecutive channels of a value row); the row's own thread also updates
  // l = alpha l + sum P.
  forLoop(idx(0), idx(group), idx(1), [&](Value g) {
    Value alpha = memref::LoadOp::create(b, rowState, rowAt(kAlpha, g));
    auto seenAt = [&](Value p) {
      return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, p, cf(-1.0));
    };
    forOwnChannels(host, tx, [&](Value k, Value c) {
      Value at = addi(muli(g, idx(cpt)), k);
      Value o0 = mulf(memref::LoadOp::create(b, acc, ValueRange{at}), alpha);
      Value pv = foldLoop(idx(0), idx(bk), o0, [&](Value jj, Value o) {
        Value p = memref::LoadOp::create(b, ps, ValueRange{g, jj});
        Value vc = memref::LoadOp::create(b, blk.vs, ValueRange{jj, c});
        return select(seenAt(p), math::FmaOp::create(b, p, vc, o), o);
      });
      memref::StoreOp::create(b, pv, acc, ValueRange{at});
    });
    ifThen(cmpi(arith::CmpIPredicate::eq, remui(g, idx(threads)), tx), [&] {
      Value sum = foldLoop(idx(0), idx(bk), cf(0.0), [&](Value jj, Value l) {
        Value p = memref::LoadOp::create(b, ps, ValueRange{g, jj});
        return select(seenAt(p), addf(l, p), l);
      });
      Value lOld = memref::LoadOp::create(b, rowState, rowAt(kSum, g));
      memref::StoreOp::create(b, math::FmaOp::create(b, lOld, alpha, sum),
                              rowState, rowAt(kSum, g));
    });
  });
  // Every thread is done with the tile before the next one is staged.
  gpu::BarrierOp::create(b);
}

void DecodeAttentionBuilder::emitResult(const AttentionHost &host,
                                        const Block &blk) {
  int64_t heads = host.heads, group = host.group, dv = host.dv;
  int64_t threads = options.blockRows, cpt = channelsPerThread(host);
  Value kvh = blk.kvh, bIdx = blk.bIdx, rowState = blk.rowState;
  // The result: O / l by the channel owners (0 for a row without allowed
  // keys), lse = m + log l by the row's thread.
  gpu::BarrierOp::create(b);
  forLoop(idx(0), idx(group), idx(1), [&](Value g) {
    Value h = addi(muli(kvh, idx(group)), g);
    Value l = memref::LoadOp::create(b, rowState, rowAt(kSum, g));
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
    Value inv = select(empty, cf(0.0), arith::DivFOp::create(b, cf(1.0), l));
    Value oRow = rowStart(host, bIdx, h, idx(0), heads, blk.tq, dv);
    forOwnChannels(host, blk.tx, [&](Value k, Value c) {
      Value o = memref::LoadOp::create(b, blk.acc,
                                       ValueRange{addi(muli(g, idx(cpt)), k)});
      storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
    });
  });
  if (host.lse) {
    forLoop(blk.tx, idx(group), idx(threads), [&](Value g) {
      Value h = addi(muli(kvh, idx(group)), g);
      Value m = memref::LoadOp::create(b, rowState, rowAt(kMax, g));
      Value l = memref::LoadOp::create(b, rowState, rowAt(kSum, g));
      memref::StoreOp::create(
          b, addf(m, math::LogOp::create(b, l)), host.lse,
          ValueRange{muli(addi(muli(bIdx, idx(heads)), h), blk.tq)});
    });
  }
}

void DecodeAttentionBuilder::emitPartials(const AttentionHost &host,
                                          const Block &blk, Value splitParams,
                                          Value oPart, Value mPart,
                                          Value lPart) {
  int64_t heads = host.heads, group = host.group, dv = host.dv;
  int64_t threads = options.blockRows, cpt = channelsPerThread(host);
  // The split's partial result: O (not divided by l) by the channel owners,
  // m and l by the row's thread (which wrote them).
  Value rows = unpackScalar(splitParams, 2);
  auto slotOf = [&](Value g) {
    Value h = addi(muli(blk.kvh, idx(group)), g);
    return addi(muli(blk.split, rows),
                muli(addi(muli(blk.bIdx, idx(heads)), h), blk.tq));
  };
  forLoop(idx(0), idx(group), idx(1), [&](Value g) {
    Value slot = slotOf(g);
    forOwnChannels(host, blk.tx, [&](Value k, Value c) {
      memref::StoreOp::create(
          b,
          memref::LoadOp::create(b, blk.acc,
                                 ValueRange{addi(muli(g, idx(cpt)), k)}),
          oPart, ValueRange{addi(muli(slot, idx(dv)), c)});
    });
  });
  forLoop(blk.tx, idx(group), idx(threads), [&](Value g) {
    Value slot = slotOf(g);
    memref::StoreOp::create(
        b, memref::LoadOp::create(b, blk.rowState, rowAt(kMax, g)), mPart,
        ValueRange{slot});
    memref::StoreOp::create(
        b, memref::LoadOp::create(b, blk.rowState, rowAt(kSum, g)), lPart,
        ValueRange{slot});
  });
}

void DecodeAttentionBuilder::buildSplitCombine(const AttentionHost &host,
                                               Value splitParams, Value oPart,
                                               Value mPart, Value lPart) {
  int64_t heads = host.heads, dv = host.dv;
  Value rowsAllHost = muli(muli(host.batch, idx(heads)), host.tq);
  int64_t block = options.blockRows;
  auto launch = gpu::LaunchOp::create(b, ceilDiv(rowsAllHost, block), idx(1),
                                      idx(1), idx(block), idx(1), idx(1));
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tq = unpackScalar(host.params, 0);
  Value splits = unpackScalar(splitParams, 1);
  Value rows = unpackScalar(splitParams, 2);
  Value row =
      addi(muli(launch.getBlockIds().x, idx(block)), launch.getThreadIds().x);
  ifThen(cmpi(arith::CmpIPredicate::ult, row, rows), [&] {
    Value i = remui(row, tq);
    Value bh = divui(row, tq);
    Value h = remui(bh, idx(heads)), bIdx = divui(bh, idx(heads));
    auto slotOf = [&](Value split) { return addi(muli(split, rows), row); };
    Value negInf = cf(-std::numeric_limits<double>::infinity());
    // m = the largest split max (NaN if any is: the row's result is NaN,
    // as in the one-kernel form), then each split's weight exp(m_s - m).
    Value m = foldLoop(idx(0), splits, negInf, [&](Value sIdx, Value mx) {
      Value ms = memref::LoadOp::create(b, mPart, ValueRange{slotOf(sIdx)});
      return Value(arith::MaximumFOp::create(b, mx, ms));
    });
    // No allowed key in any split: m = -inf, every weight exp(-inf - 0) = 0.
    Value safeM =
        select(arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, m, negInf),
               cf(0.0), m);
    auto weight = [&](Value sIdx) -> Value {
      Value ms = memref::LoadOp::create(b, mPart, ValueRange{slotOf(sIdx)});
      return math::ExpOp::create(b, arith::SubFOp::create(b, ms, safeM));
    };
    Value l = foldLoop(idx(0), splits, cf(0.0), [&](Value sIdx, Value acc) {
      Value ls = memref::LoadOp::create(b, lPart, ValueRange{slotOf(sIdx)});
      return Value(math::FmaOp::create(b, ls, weight(sIdx), acc));
    });
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
    Value inv = select(empty, cf(0.0), arith::DivFOp::create(b, cf(1.0), l));
    Value oRow = rowStart(host, bIdx, h, i, heads, tq, dv);
    forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
      Value o = foldLoop(idx(0), splits, cf(0.0), [&](Value sIdx, Value acc) {
        Value os = memref::LoadOp::create(
            b, oPart, ValueRange{addi(muli(slotOf(sIdx), idx(dv)), c)});
        return Value(math::FmaOp::create(b, os, weight(sIdx), acc));
      });
      storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
    });
    if (host.lse)
      memref::StoreOp::create(b, addf(m, math::LogOp::create(b, l)), host.lse,
                              ValueRange{row});
  });
  gpu::TerminatorOp::create(b);
}

/// pe.attention with one query token -> the decode kernel. Refuses
/// silently an attention without a GPU kernel (the SIMT pattern reports it),
/// one that gets the tensor-core kernel or has more than one query token;
/// with the `decode-kernel` remark a decode attention whose buffers do not
/// fit.
struct DecodeAttentionPattern : public OpRewritePattern<AttentionOp> {
  DecodeAttentionPattern(MLIRContext *ctx, const GPUKernelOptions &options,
                         PatternBenefit benefit)
      : OpRewritePattern(ctx, benefit), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!unsupportedReason(op, options).empty())
      return rewriter.notifyMatchFailure(op, "no GPU attention kernel");
    if (!noTensorCoreReason(op, options))
      return rewriter.notifyMatchFailure(op, "the tensor-core kernel applies");
    std::string noDecode;
    std::optional<int64_t> keyTile = decodeKeyTile(op, options, noDecode);
    if (!keyTile) {
      if (noDecode.empty())
        return rewriter.notifyMatchFailure(op, "more than one query token");
      emitMissedRemark(op, kRemarkCategory, "decode-kernel",
                       "no decode attention kernel (the one-row-per-thread "
                       "kernel runs, without key splits): " +
                           noDecode);
      return rewriter.notifyMatchFailure(op, noDecode);
    }
    auto qType = op.getQuery().getType();
    int64_t hAx = op.getHeadsAxis();
    emitKeyTileRemark(
        op, "the decode", *keyTile,
        decodeWorkgroupBytes(
            qType.getDimSize(hAx) / op.getKey().getType().getDimSize(hAx),
            qType.getDimSize(3), op.getValue().getType().getDimSize(3)),
        options);
    DecodeAttentionBuilder(rewriter, op, options, *keyTile).build();
    return success();
  }

  GPUKernelOptions options;
};

} // namespace

void gpu_kernels::populateDecodeAttentionPattern(
    RewritePatternSet &patterns, const GPUKernelOptions &options,
    PatternBenefit benefit) {
  patterns.add<DecodeAttentionPattern>(patterns.getContext(), options, benefit);
}
