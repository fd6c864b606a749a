//===- AttentionDecode.cpp - the decode attention kernel ------------------===//
//
// Part of the pe-mlir project.
//
// The kernel of a pe.attention with one query per head: parallel over
// (batch, KV head), no packing, a [group, Tk] score buffer, K and V each
// read once per KV head.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include <tuple>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

/// One task of the decode kernel (batch bIdx, KV head kvh): its scratch
/// buffers, key range and prefetch plan, filled in by buildDecode and
/// decodeScratch; the softmax state by decodeSoftmaxPV.
struct KernelBuilder::DecodeTask {
  const Prologue *pr = nullptr;
  Value alibiQ;          // ALiBi: the query position as f32, or null
  int64_t chunkVecs = 1; // vectors of value columns per P V pass
  Value bIdx, kvh;       // batch, KV head
  Value jLo, jHi;        // the keys the query sees
  Value qs, krow;        // [group, D] queries, one rotated key row
  Value mBuf, lBuf;      // per head: running maximum, sum (16 lanes)
  Value dots;            // [group * 16, 16] products of a key block
  Value kBlk;            // [16, D] rotated keys, or null
  Value oBuf;            // [group, Dv] accumulators with chunks, or null
  Value sBuf;            // [group, Tk + 16] scores, then P
  Value lastRow;         // Tk - 1 (the last row prefetched)
  std::optional<int64_t> prefetchK, prefetchV; // locality, or none
  Value iota32;                                // lane indices, i32
  SmallVector<Value> maxOf, maxVec;            // per head: max, and broadcast
};

Value KernelBuilder::buildDecode() {
  Prologue pr = buildPrologue(/*singleQuery=*/true);
  Value batch = dim(pr.qMem, 0), tkAll = dim(pr.kMem, 2);
  // The one query sees keys [jLo, jHi): below L[b], up to o[b] when causal
  // (bottom-right: every valid key), above o[b] - W with a window. ALiBi puts
  // the query at alibi_offset (+ row 0).
  Value alibiQ;
  if (attn.getAlibiAttr())
    alibiQ = indexToF32(offsetValue(attn.getAlibiQueryOffset()));
  int64_t kvHeads = attn.getKey().getType().getDimSize(attn.getHeadsAxis());
  // P V accumulates a chunk of value columns for the group's heads: up to
  // 32 accumulators (a group of 4 with D = 128 in one pass). LLVM spills a
  // few of them, but one pass over each V row in order is faster than
  // chunks of 16 accumulators that pass twice over a block of half rows
  // (W4g f32: 0.74-0.81 of the read roof with chunks of 16, 0.79-0.92 with
  // 32; see docs/CodegenCPU.md).
  int64_t chunkVecs = std::max<int64_t>(1, 32 / group);
  while ((valuePad / lanes) % chunkVecs != 0)
    --chunkVecs;

  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{batch, idx(kvHeads)},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        beginTask();
        DecodeTask t;
        t.pr = &pr;
        t.alibiQ = alibiQ;
        t.chunkVecs = chunkVecs;
        t.bIdx = ivs[0];
        t.kvh = ivs[1];
        Value tk = validKeys(pr, t.bIdx, tkAll);
        Value shift;
        if (attn.getCausal())
          shift = causalShift(pr, tk, idx(1));
        std::tie(t.jLo, t.jHi) = kernels::AttentionPlan(attn).buildKeyRange(
            b, b.getLoc(), idx(0), idx(0), shift, tk);
        decodeScratch(t, tkAll);
        t.lastRow = arith::SubIOp::create(b, tkAll, idx(1));
        t.prefetchK = decodePrefetchOf(decodeOpsPerLine(pr.kMem, bool(t.kBlk)));
        t.prefetchV = decodePrefetchOf(decodeOpsPerLine(pr.vMem, false));
        primeRows(t, pr.kMem, headDim, t.prefetchK);
        decodeQueries(t);
        decodeScores(t);
        primeRows(t, pr.vMem, valueDim, t.prefetchV);
        decodeSoftmaxPV(t);
        endTask();
        scf::ReduceOp::create(b);
      });
  finishLse(pr);
  return bufferization::ToTensorOp::create(b, resultType, pr.outBuffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

void KernelBuilder::decodeScratch(DecodeTask &t, Value tkAll) {
  // The small buffers first, so that a long cache's scores are the
  // ones left to the heap when the stack budget runs out.
  // Rows padded to whole vectors: the score products read whole
  // vectors of qs and of the rotated keys, so their padding is zeroed
  // once (rotateRow writes only the head's channels).
  t.qs = scratch({group, headPad}, {});
  t.krow = scratch({headPad}, {});
  // Each head's running maximum score, 16 lanes (the softmax's max
  // taken in the score pass, not in a pass of its own).
  t.mBuf = scratch({group, lanes}, {});
  t.lBuf = scratch({group, lanes}, {});
  t.dots = scratch({group * lanes, lanes}, {});
  t.kBlk =
      rotary && attn.rotatesKey() ? scratch({lanes, headPad}, {}) : Value();
  if (headPad != headDim) {
    Value last = idx(headPad - lanes);
    for (int64_t g = 0; g < group; ++g)
      vector::StoreOp::create(b, vsplat(0.0), t.qs, ValueRange{idx(g), last});
    vector::StoreOp::create(b, vsplat(0.0), t.krow, ValueRange{last});
    if (t.kBlk)
      for (int64_t r = 0; r < lanes; ++r)
        vector::StoreOp::create(b, vsplat(0.0), t.kBlk,
                                ValueRange{idx(r), last});
  }
  t.oBuf = valuePad == t.chunkVecs * lanes ? Value()
                                           : scratch({group, valuePad}, {});
  // 16 columns of padding: the softmax loads whole vectors. Static
  // when the cache length is.
  int64_t tkStatic = cast<MemRefType>(t.pr->kMem.getType()).getDimSize(2);
  t.sBuf = ShapedType::isDynamic(tkStatic)
               ? scratch({group, ShapedType::kDynamic}, addi(tkAll, idx(lanes)))
               : scratch({group, tkStatic + lanes}, {});
  for (int64_t g = 0; g < group; ++g)
    vector::StoreOp::create(b, vsplat(-std::numeric_limits<double>::infinity()),
                            t.mBuf, ValueRange{idx(g), idx(0)});
}

void KernelBuilder::raiseMax(const DecodeTask &t, int64_t g, Value sc) {
  Value mx = vector::LoadOp::create(b, vf, t.mBuf, ValueRange{idx(g), idx(0)});
  vector::StoreOp::create(b, arith::MaxNumFOp::create(b, mx, sc, kFast), t.mBuf,
                          ValueRange{idx(g), idx(0)});
}

int64_t KernelBuilder::decodeRowsAhead(Value mem, int64_t width) const {
  int64_t rowBytes =
      width * cast<MemRefType>(mem.getType()).getElementTypeBitWidth() / 8;
  return std::max<int64_t>(1, (decodePrefetchBytes + rowBytes - 1) / rowBytes);
}

void KernelBuilder::prefetchLines(const DecodeTask &t, Value mem, Value row,
                                  int64_t width, int64_t locality) {
  int64_t bits = cast<MemRefType>(mem.getType()).getElementTypeBitWidth();
  for (int64_t c = 0; c < width; c += 512 / bits)
    prefetchRead(mem, ValueRange{t.bIdx, t.kvh, row, idx(c)}, locality);
}

int64_t KernelBuilder::decodeOpsPerLine(Value mem, bool rotated) const {
  // Per 16-lane vector a multiply-add for each query head of the group, a
  // conversion from f16/bf16, and the multiply and multiply-add of rotating
  // a key. With one multiply-add per line (f32 rows, one query head per KV
  // head) the out-of-order window alone keeps the lines in flight, and one
  // prefetch instruction per load made the pass slower (W4 f32 on Zen 5:
  // 0.74-0.85 of the read roof with the prefetch, 1.02-1.15 without; see
  // docs/CodegenCPU.md).
  int64_t bits = cast<MemRefType>(mem.getType()).getElementTypeBitWidth();
  int64_t perVector = group + (bits < 32 ? 1 : 0) + (rotated ? 2 : 0);
  return perVector * std::max<int64_t>(1, 512 / bits / lanes);
}

std::optional<int64_t> KernelBuilder::decodePrefetchOf(int64_t ops) const {
  // Into the L2 (locality 2) for a pass with at least
  // decodePrefetchL2MinOps operations per line and into the L1 (locality 3)
  // for a lighter one: the f32 GQA step (four multiply-adds per line) read
  // at 0.76-0.97 of the roof prefetching into the L1 against 0.56-0.84 into
  // the L2, faster in 14 of 15 rounds on Zen 5, while the f16 GQA step (ten
  // per line) was slower into the L1 in 9 of 11 rounds (docs/CodegenCPU.md).
  if (decodePrefetchBytes <= 0 || ops < decodePrefetchMinOps)
    return std::nullopt;
  return ops >= decodePrefetchL2MinOps ? 2 : 3;
}

void KernelBuilder::primeRows(const DecodeTask &t, Value mem, int64_t width,
                              std::optional<int64_t> locality) {
  if (!locality)
    return;
  Value end = arith::MinSIOp::create(
      b, addi(t.jLo, idx(decodeRowsAhead(mem, width))), t.jHi);
  scf::ForOp::create(b, t.jLo, end, idx(1), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value j, ValueRange) {
                       Scope inner(b, ib);
                       prefetchLines(t, mem, j, width, *locality);
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::prefetchRow(const DecodeTask &t, Value mem, Value j,
                                int64_t width,
                                std::optional<int64_t> locality) {
  if (!locality)
    return;
  prefetchLines(t, mem,
                arith::MinSIOp::create(
                    b, addi(j, idx(decodeRowsAhead(mem, width))), t.lastRow),
                width, *locality);
}

void KernelBuilder::decodeQueries(const DecodeTask &t) {
  const Prologue &pr = *t.pr;
  for (int64_t g = 0; g < group; ++g) {
    Value h = addi(muli(t.kvh, idx(group)), idx(g));
    if (rotary)
      rotateRow(pr.qMem, ValueRange{t.bIdx, h, idx(0)}, t.qs,
                ValueRange{idx(g)}, tableRow(qPos, t.bIdx, idx(0)), pr.qCos,
                pr.qSin, scale);
    else
      for (int64_t c = 0; c < headDim; c += lanes)
        vector::StoreOp::create(
            b,
            arith::MulFOp::create(b,
                                  loadF32(pr.qMem,
                                          ValueRange{t.bIdx, h, idx(0), idx(c)},
                                          rowMask(c, headDim)),
                                  vsplat(scale)),
            t.qs, ValueRange{idx(g), idx(c)});
  }
}

Value KernelBuilder::decodeQuery(const DecodeTask &t, int64_t g, int64_t c) {
  return vector::LoadOp::create(b, vf, t.qs,
                                ValueRange{idx(g), idx(c * lanes)});
}

void KernelBuilder::decodeScores(const DecodeTask &t) {
  Value jMain = addi(
      t.jLo, muli(arith::DivUIOp::create(
                      b, arith::SubIOp::create(b, t.jHi, t.jLo), idx(lanes)),
                  idx(lanes)));
  Value iota64 = iota(b.getI64Type());
  scf::ForOp::create(b, t.jLo, jMain, idx(lanes), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value j0, ValueRange) {
                       Scope inner(b, ib);
                       decodeBlockDots(t, j0);
                       decodeBlockScores(t, j0, iota64);
                       scf::YieldOp::create(b);
                     });
  // The last keys one at a time.
  scf::ForOp::create(b, jMain, t.jHi, idx(1), ValueRange{},
                     [&](OpBuilder &ib, Location l2, Value j, ValueRange) {
                       Scope inner(b, ib);
                       decodeKeyScore(t, j);
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::decodeBlockDots(const DecodeTask &t, Value j0) {
  // Scores, 16 keys at a time: per query head, the 16 dot products as
  // vectors, summed together by a transposing shuffle tree into one
  // vector of 16 scores (instead of a reduction per key). The keys go
  // four at a time, channel vector by channel vector: the four keys'
  // vectors of a channel block are loaded (and converted from
  // f16/bf16) once into registers and serve up to four query heads,
  // whose vectors come from memory, each load feeding four products.
  // That is 16 accumulators and 21 registers whatever D is; a group of
  // more than four heads goes in chunks of four, each reloading the
  // keys' vectors from the L1. Within a smaller accumulator budget
  // (tileAccumulators: 8 on targets with 16 vector registers) fewer keys
  // go per step, so that keys x heads accumulators fit it: with 16 of
  // them on AVX2 LLVM kept spilling accumulators inside the loop. Whole
  // key rows in pairs (D / 16
  // vectors per key in registers, each query vector feeding two
  // products) took up to 15% longer on L2-resident GQA steps (W4g
  // f16/bf16 7-11%, D = 256 15%), with the same results bit for bit
  // (docs/CodegenCPU.md). Rotated keys are
  // first rotated row by row into a [16, D] block.
  const Prologue &pr = *t.pr;
  int64_t headsPerChunk = std::min<int64_t>(group, 4);
  int64_t keysPerStep = 4;
  while (keysPerStep > 1 && keysPerStep * headsPerChunk > tileAccumulators)
    keysPerStep /= 2;
  int64_t dVecs = headPad / lanes;
  if (t.kBlk)
    for (int64_t r = 0; r < lanes; ++r) {
      Value j = addi(j0, idx(r));
      rotateRow(pr.kMem, ValueRange{t.bIdx, t.kvh, j}, t.kBlk,
                ValueRange{idx(r)}, tableRow(kPos, t.bIdx, j), pr.kCos, pr.kSin,
                1.0);
    }
  auto keyVec = [&](int64_t r, int64_t c) -> Value {
    if (t.kBlk)
      return vector::LoadOp::create(b, vf, t.kBlk,
                                    ValueRange{idx(r), idx(c * lanes)});
    return loadF32(pr.kMem,
                   ValueRange{t.bIdx, t.kvh, addi(j0, idx(r)), idx(c * lanes)},
                   rowMask(c * lanes, headDim));
  };
  for (int64_t r0 = 0; r0 < lanes; r0 += keysPerStep) {
    // In the loops, the row decodePrefetchBytes ahead of key row j
    // (clamped to the last row): the hardware prefetchers alone keep
    // too few lines in flight while the group's products run (see
    // docs/CodegenCPU.md).
    for (int64_t k = 0; k < keysPerStep; ++k)
      prefetchRow(t, pr.kMem, addi(j0, idx(r0 + k)), headDim, t.prefetchK);
    for (int64_t g0 = 0; g0 < group; g0 += headsPerChunk) {
      int64_t heads = std::min(headsPerChunk, group - g0);
      // acc[h][k]: head g0 + h's products with key r0 + k.
      SmallVector<SmallVector<Value>> acc(heads,
                                          SmallVector<Value>(keysPerStep));
      for (int64_t c = 0; c < dVecs; ++c) {
        SmallVector<Value> keys;
        for (int64_t k = 0; k < keysPerStep; ++k)
          keys.push_back(keyVec(r0 + k, c));
        for (int64_t h = 0; h < heads; ++h) {
          Value q = decodeQuery(t, g0 + h, c);
          for (int64_t k = 0; k < keysPerStep; ++k)
            acc[h][k] =
                c == 0 ? Value(arith::MulFOp::create(b, q, keys[k]))
                       : Value(vector::FMAOp::create(b, q, keys[k], acc[h][k]));
        }
      }
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t k = 0; k < keysPerStep; ++k)
          vector::StoreOp::create(
              b, acc[h][k], t.dots,
              ValueRange{idx((g0 + h) * lanes + r0 + k), idx(0)});
    }
  }
}

void KernelBuilder::decodeBlockScores(const DecodeTask &t, Value j0,
                                      Value iota64) {
  // Key positions as f32, exactly as the per-key conversion.
  auto iv64 = VectorType::get({lanes}, b.getI64Type());
  Value jV = arith::SIToFPOp::create(
      b, vf,
      arith::AddIOp::create(
          b,
          vector::BroadcastOp::create(
              b, iv64, arith::IndexCastOp::create(b, b.getI64Type(), j0)),
          iota64));
  for (int64_t g = 0; g < group; ++g) {
    SmallVector<Value> sums;
    for (int64_t r = 0; r < lanes; ++r)
      sums.push_back(vector::LoadOp::create(
          b, vf, t.dots, ValueRange{idx(g * lanes + r), idx(0)}));
    Value sc = sumLanesOfEach(sums);
    Value slope, q;
    if (attn.getAlibiAttr()) {
      slope =
          bcast(slopeOf(t.pr->slopes, addi(muli(t.kvh, idx(group)), idx(g))));
      q = bcast(t.alibiQ);
    }
    sc = modifyScore(sc, q, jV, slope);
    vector::StoreOp::create(b, sc, t.sBuf, ValueRange{idx(g), j0});
    raiseMax(t, g, sc);
  }
}

void KernelBuilder::decodeKeyScore(const DecodeTask &t, Value j) {
  const Prologue &pr = *t.pr;
  int64_t dVecs = headPad / lanes;
  Value src = pr.kMem;
  SmallVector<Value> prefix = {t.bIdx, t.kvh, j};
  if (rotary && attn.rotatesKey()) {
    rotateRow(pr.kMem, prefix, t.krow, ValueRange{}, tableRow(kPos, t.bIdx, j),
              pr.kCos, pr.kSin, 1.0);
    src = t.krow;
    prefix.clear();
  }
  SmallVector<Value> kv;
  for (int64_t c = 0; c < dVecs; ++c) {
    SmallVector<Value> ix(prefix);
    ix.push_back(idx(c * lanes));
    kv.push_back(loadF32(
        src, ix, src == pr.kMem ? rowMask(c * lanes, headDim) : Value()));
  }
  Value jF = indexToF32(j);
  for (int64_t g = 0; g < group; ++g) {
    Value acc = arith::MulFOp::create(b, decodeQuery(t, g, 0), kv[0]);
    for (int64_t c = 1; c < dVecs; ++c)
      acc = vector::FMAOp::create(b, decodeQuery(t, g, c), kv[c], acc);
    Value sc =
        vector::ReductionOp::create(b, vector::CombiningKind::ADD, acc, kFast);
    Value slope;
    if (attn.getAlibiAttr())
      slope = slopeOf(pr.slopes, addi(muli(t.kvh, idx(group)), idx(g)));
    sc = modifyScore(sc, t.alibiQ, jF, slope);
    memref::StoreOp::create(b, sc, t.sBuf, ValueRange{idx(g), j});
    raiseMax(t, g, bcast(sc));
  }
}

void KernelBuilder::decodeSoftmaxPV(DecodeTask &t) {
  // Softmax: each head's maximum is known from the score pass; the
  // exponentials are taken 16 keys at a time in the P V pass, just
  // before those keys' rows (lanes at or past jHi masked), and summed
  // per head in lBuf. No pass of its own: the V rows keep streaming
  // while they are computed.
  t.iota32 = iota(b.getI32Type());
  // Each head's maximum, as a scalar (for lse) and broadcast once
  // (for the exponentials).
  for (int64_t g = 0; g < group; ++g) {
    t.maxOf.push_back(vector::ReductionOp::create(
        b, vector::CombiningKind::MAXNUMF,
        vector::LoadOp::create(b, vf, t.mBuf, ValueRange{idx(g), idx(0)}),
        kFast));
    t.maxVec.push_back(bcast(t.maxOf.back()));
    vector::StoreOp::create(b, vsplat(0.0), t.lBuf, ValueRange{idx(g), idx(0)});
  }
  // O = P V / l, a chunk of value columns at a time (at most 32
  // accumulators). With one chunk, one loop over the keys takes P for
  // the next 16 keys at every 16th key (a branch off the loop's path,
  // where the accumulators can be spilled; an inner loop of 16 keys
  // inside a loop over blocks carried the 32 accumulators through two
  // loops, and LLVM spilled more of them in the hot loop). With
  // several chunks, the keys go in blocks of 64: P for the block, then
  // every chunk passes over the block while its rows are in the cache,
  // the accumulators kept in oBuf between blocks: V is read from
  // memory once, in whole rows, not once per chunk.
  if (!t.oBuf) {
    SmallVector<Value> init(group * t.chunkVecs, vsplat(0.0));
    auto pv = decodePVLoop(t, t.jLo, t.jHi, 0, init, /*withExp=*/true);
    SmallVector<Value> inv = decodeInverseSums(t);
    for (int64_t g = 0; g < group; ++g)
      for (int64_t c = 0; c < t.chunkVecs; ++c)
        decodeStoreOut(t, g, c, pv.getResult(g * t.chunkVecs + c), inv[g]);
    return;
  }
  decodeChunkedPV(t);
  SmallVector<Value> inv = decodeInverseSums(t);
  for (int64_t g = 0; g < group; ++g)
    for (int64_t c = 0; c < valuePad / lanes; ++c)
      decodeStoreOut(t, g, c,
                     vector::LoadOp::create(b, vf, t.oBuf,
                                            ValueRange{idx(g), idx(c * lanes)}),
                     inv[g]);
}

Value KernelBuilder::decodeValidLanes(const DecodeTask &t, Value j0) {
  auto iv32 = VectorType::get({lanes}, b.getI32Type());
  Value left = arith::MinSIOp::create(b, arith::SubIOp::create(b, t.jHi, j0),
                                      idx(lanes));
  return arith::CmpIOp::create(
      b, arith::CmpIPredicate::slt, t.iota32,
      vector::BroadcastOp::create(
          b, iv32, arith::IndexCastOp::create(b, b.getI32Type(), left)));
}

void KernelBuilder::decodeExpBlock(const DecodeTask &t, Value j0) {
  Value valid = decodeValidLanes(t, j0);
  for (int64_t g = 0; g < group; ++g) {
    Value x = arith::SubFOp::create(
        b, vector::LoadOp::create(b, vf, t.sBuf, ValueRange{idx(g), j0}),
        t.maxVec[g]);
    Value e = math::ExpOp::create(b, x);
    e = arith::SelectOp::create(b,
                                arith::CmpFOp::create(b,
                                                      arith::CmpFPredicate::OLT,
                                                      x, vsplat(kExpCutoff)),
                                vsplat(0.0), e);
    e = arith::SelectOp::create(b, valid, e, vsplat(0.0));
    vector::StoreOp::create(b, e, t.sBuf, ValueRange{idx(g), j0});
    Value l = vector::LoadOp::create(b, vf, t.lBuf, ValueRange{idx(g), idx(0)});
    vector::StoreOp::create(b, arith::AddFOp::create(b, l, e), t.lBuf,
                            ValueRange{idx(g), idx(0)});
  }
}

SmallVector<Value> KernelBuilder::decodeInverseSums(const DecodeTask &t) {
  SmallVector<Value> inv;
  for (int64_t g = 0; g < group; ++g) {
    Value l = vector::ReductionOp::create(
        b, vector::CombiningKind::ADD,
        vector::LoadOp::create(b, vf, t.lBuf, ValueRange{idx(g), idx(0)}),
        kFast);
    if (t.pr->lseBuffer)
      memref::StoreOp::create(
          b, arith::AddFOp::create(b, t.maxOf[g], math::LogOp::create(b, l)),
          t.pr->lseBuffer,
          ValueRange{t.bIdx, addi(muli(t.kvh, idx(group)), idx(g)), idx(0)});
    inv.push_back(arith::SelectOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0)),
        cf(0.0), arith::DivFOp::create(b, cf(1.0), l)));
  }
  return inv;
}

scf::ForOp KernelBuilder::decodePVLoop(const DecodeTask &t, Value j0, Value j1,
                                       int64_t e0, ValueRange init,
                                       bool withExp) {
  Value vMem = t.pr->vMem;
  return scf::ForOp::create(
      b, j0, j1, idx(1), init,
      [&](OpBuilder &ib, Location l2, Value j, ValueRange a) {
        Scope inner(b, ib);
        if (withExp) {
          Value blockStart = arith::CmpIOp::create(
              b, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(b, arith::SubIOp::create(b, j, t.jLo),
                                     idx(lanes)),
              idx(0));
          scf::IfOp::create(b, blockStart, [&](OpBuilder &tb, Location l3) {
            Scope then(b, tb);
            decodeExpBlock(t, j);
            scf::YieldOp::create(b);
          });
        }
        if (e0 == 0)
          prefetchRow(t, vMem, j, valueDim, t.prefetchV);
        SmallVector<Value> vv, next;
        for (int64_t c = 0; c < t.chunkVecs; ++c)
          vv.push_back(
              loadF32(vMem, ValueRange{t.bIdx, t.kvh, j, idx(e0 + c * lanes)},
                      rowMask(e0 + c * lanes, valueDim)));
        for (int64_t g = 0; g < group; ++g) {
          Value pj =
              bcast(memref::LoadOp::create(b, t.sBuf, ValueRange{idx(g), j}));
          for (int64_t c = 0; c < t.chunkVecs; ++c)
            next.push_back(
                vector::FMAOp::create(b, pj, vv[c], a[g * t.chunkVecs + c]));
        }
        scf::YieldOp::create(b, next);
      });
}

void KernelBuilder::decodeStoreOut(const DecodeTask &t, int64_t g, int64_t c,
                                   Value acc, Value inv) {
  Value h = addi(muli(t.kvh, idx(group)), idx(g));
  storeFromF32(arith::MulFOp::create(b, acc, bcast(inv)), t.pr->out,
               ValueRange{t.bIdx, h, idx(0), idx(c * lanes)},
               rowMask(c * lanes, valueDim));
}

void KernelBuilder::decodeChunkedPV(const DecodeTask &t) {
  int64_t chunkWidth = t.chunkVecs * lanes;
  for (int64_t g = 0; g < group; ++g)
    for (int64_t c = 0; c < valuePad; c += lanes)
      vector::StoreOp::create(b, vsplat(0.0), t.oBuf,
                              ValueRange{idx(g), idx(c)});
  scf::ForOp::create(
      b, t.jLo, t.jHi, idx(kBlock), ValueRange{},
      [&](OpBuilder &ib, Location l2, Value j0, ValueRange) {
        Scope inner(b, ib);
        Value j1 = arith::MinSIOp::create(b, addi(j0, idx(kBlock)), t.jHi);
        scf::ForOp::create(
            b, j0, j1, idx(lanes), ValueRange{},
            [&](OpBuilder &eb, Location l3, Value e, ValueRange) {
              Scope inner2(b, eb);
              decodeExpBlock(t, e);
              scf::YieldOp::create(b);
            });
        for (int64_t e0 = 0; e0 < valuePad; e0 += chunkWidth) {
          SmallVector<Value> init;
          for (int64_t g = 0; g < group; ++g)
            for (int64_t c = 0; c < t.chunkVecs; ++c)
              init.push_back(vector::LoadOp::create(
                  b, vf, t.oBuf, ValueRange{idx(g), idx(e0 + c * lanes)}));
          auto pv = decodePVLoop(t, j0, j1, e0, init, /*withExp=*/false);
          for (int64_t g = 0; g < group; ++g)
            for (int64_t c = 0; c < t.chunkVecs; ++c)
              vector::StoreOp::create(b, pv.getResult(g * t.chunkVecs + c),
                                      t.oBuf,
                                      ValueRange{idx(g), idx(e0 + c * lanes)});
        }
        scf::YieldOp::create(b);
      });
}

namespace {

/// Replaces a pe.attention with one query per head and neither bias nor mask
/// by the decode kernel. Ahead of PrefillAttentionPattern (a higher
/// benefit), which takes the others and reports unsupported attentions;
/// one query per head with a bias or mask is refused with a missed remark.
struct DecodeAttentionPattern : OpRewritePattern<AttentionOp> {
  DecodeAttentionPattern(MLIRContext *context, const PEToVectorOptions &options)
      : OpRewritePattern(context, /*benefit=*/2), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedReason(op);
    if (!reason.empty())
      return rewriter.notifyMatchFailure(op, reason);
    if (op.getQuery().getType().getDimSize(op.getSequenceAxis()) != 1)
      return rewriter.notifyMatchFailure(op, "more than one query per head");
    if (op.getBias() || op.getMask()) {
      emitMissedRemark(op, kRemarkCategory, "decode-kernel",
                       "one query per head with an explicit bias or mask: "
                       "the prefill kernel is used (the decode kernel takes "
                       "neither)");
      return rewriter.notifyMatchFailure(op, "explicit bias or mask");
    }
    rewriter.setInsertionPoint(op);
    KernelBuilder kernel(op, rewriter, options.target.f32Lanes());
    kernel.setOptions(options);
    kernel.limitRegisterTile(options.target.accumulatorVectors());
    kernel.chooseBf16Dot(options.target, /*decode=*/true);
    kernel.replaceAttention(rewriter, kernel.buildDecode());
    return success();
  }

  PEToVectorOptions options;
};

} // namespace

void cpu::populateDecodeAttentionPattern(RewritePatternSet &patterns,
                                         const PEToVectorOptions &options) {
  patterns.add<DecodeAttentionPattern>(patterns.getContext(), options);
}
