//===- AttentionPrefill.cpp - the prefill attention kernel ----------------===//
//
// Part of the pe-mlir project.
//
// A flash-attention kernel for each pe.attention (reading its encodings
// through the op's accessors), specialised at compile time for its
// encodings: RoPE layout, rotary dimension, frequency source, ALiBi
// distance, causal masking, softcap, explicit bias and mask.
//
// Structure (the recipe of docs/CodegenCPU.md):
//
//   prologue      cos/sin of every query and key position, [T, R/2] each:
//                 angles p * inv_freq[i] and their sin/cos in f64
//                 (sinCos64, vectorised), rounded once to f32, or rows
//                 gathered from the caches; times the attention scaling.
//   parallel over (batch, head):
//     pack K      the key head, rotated, transposed into blocks
//                 Kt[Tk/64][D][64] (scratch per head, O(Tk D));
//     per 64-query block:
//       Qs        the block's queries, rotated and multiplied by the scale
//                 (and log2 e: without a softcap the scores are base 2);
//       per 64-key block up to the causal limit (blocks above it skipped):
//         per 4 query rows:
//           S     4 x 64 scores in 16 vector accumulators, an outer product
//                 over d (broadcast q, load Kt); in column chunks of the
//                 target's accumulator budget (limitRegisterTile);
//           mask  softcap, ALiBi slope * distance, causal and tail masks,
//                 all from indices; online softmax of the 4 rows together
//                 (running max and sum, rescale factor alpha: one vector
//                 each) with fully masked rows kept at 0;
//           PV    O[4 rows, 64 columns] = alpha O + P V, 16 accumulators
//                 (fewer columns per chunk within a smaller budget).
//       O / l     written to the result.
//
// Head and rotary dimensions of any size: each run of channels of an
// operand or result row ends with a masked vector (constant mask), the
// kernels' scratch rows are padded to whole vectors.
//
// bf16 query, key and value on a target with AVX512-BF16: the same kernel
// with bf16 dot products (x86vector.avx512.dot, vdpbf16ps: 16 f32
// accumulators each += the products of 16 adjacent bf16 pairs). Keys are
// packed as channel pairs Kt[Tk/64][D/2][64 x 2], queries as channel pairs,
// values as key pairs Vp[Tk/2][Dv x 2], P as key pairs; S is scaled after
// the dot products, softmax and O stay f32.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

SmallVector<Value> KernelBuilder::scoreTile(Value qs, Value kt, Value kb,
                                            Value r0, int64_t vecs) {
  // Column chunks of at most scoreChunkVecs vectors, each one pass over the
  // channels with its accumulators in registers.
  SmallVector<SmallVector<Value>> chunks;
  for (int64_t c0 = 0; c0 < vecs; c0 += scoreChunkVecs)
    chunks.push_back(scoreTileColumns(qs, kt, kb, r0, c0,
                                      std::min(scoreChunkVecs, vecs - c0)));
  if (chunks.size() == 1)
    return chunks.front();
  SmallVector<Value> tile;
  for (int64_t r = 0; r < kRows; ++r)
    for (const SmallVector<Value> &chunk : chunks) {
      int64_t n = chunk.size() / kRows;
      llvm::append_range(tile, ArrayRef<Value>(chunk).slice(r * n, n));
    }
  return tile;
}

SmallVector<Value> KernelBuilder::scoreTileColumns(Value qs, Value kt, Value kb,
                                                   Value r0, int64_t c0,
                                                   int64_t vecs) {
  SmallVector<Value> init(kRows * vecs, vsplat(0.0));
  if (bf16Dot) {
    // Per step one channel pair: 4 loads of 16 key pairs, 4 broadcast query
    // pairs, 16 bf16 dot products.
    auto qk = scf::ForOp::create(
        b, idx(0), idx(headDim / 2), idx(1), init,
        [&](OpBuilder &ib, Location l2, Value p, ValueRange acc) {
          Scope scope_inner(b, ib);
          SmallVector<Value> kv, next;
          for (int64_t c = 0; c < vecs; ++c)
            kv.push_back(vector::LoadOp::create(
                b, vbf, kt, ValueRange{kb, p, idx(2 * (c0 + c) * lanes)}));
          for (int64_t r = 0; r < kRows; ++r) {
            Value qv = bcastPair(qs, ValueRange{addi(r0, idx(r)), p});
            for (int64_t c = 0; c < vecs; ++c)
              next.push_back(dotBf16(acc[r * vecs + c], qv, kv[c]));
          }
          scf::YieldOp::create(b, next);
        });
    SmallVector<Value> scores;
    double mul = scale * unit();
    Value s = vsplat(mul);
    for (Value v : qk.getResults())
      scores.push_back(mul == 1.0 ? v : arith::MulFOp::create(b, v, s));
    return scores;
  }
  // An outer product over d: broadcast q, load Kt.
  auto qk = scf::ForOp::create(
      b, idx(0), idx(headDim), idx(1), init,
      [&](OpBuilder &ib, Location l2, Value d, ValueRange acc) {
        Scope scope_inner(b, ib);
        SmallVector<Value> kv, next;
        for (int64_t c = 0; c < vecs; ++c)
          kv.push_back(vector::LoadOp::create(
              b, vf, kt, ValueRange{kb, d, idx((c0 + c) * lanes)}));
        for (int64_t r = 0; r < kRows; ++r) {
          Value qv = bcast(
              memref::LoadOp::create(b, qs, ValueRange{addi(r0, idx(r)), d}));
          for (int64_t c = 0; c < vecs; ++c)
            next.push_back(
                vector::FMAOp::create(b, qv, kv[c], acc[r * vecs + c]));
        }
        scf::YieldOp::create(b, next);
      });
  return SmallVector<Value>(qk.getResults());
}

void KernelBuilder::pvPairStep(Value vp, Value pBuf, Value vRow, Value jj,
                               int64_t e0, ValueRange acc,
                               bool skipZeroWeights) {
  int64_t chunkVecs = valueChunk / lanes;
  SmallVector<Value> vv, next;
  for (int64_t c = 0; c < chunkVecs; ++c)
    vv.push_back(vector::LoadOp::create(
        b, vbf, vp, ValueRange{vRow, idx(2 * (e0 + c * lanes))}));
  auto halves = VectorType::get({2 * lanes}, b.getI16Type());
  Value zeroBits = arith::ConstantOp::create(
      b, DenseElementsAttr::get(halves, b.getI16IntegerAttr(0)));
  Value zero = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vbf, b.getFloatAttr(b.getBF16Type(), 0.0)));
  for (int64_t r = 0; r < kRows; ++r) {
    Value p = bcastPair(pBuf, ValueRange{idx(r), jj});
    // P is exp(.) >= 0 or exactly 0 (never -0): lanes with weight 0 are
    // the zero bit patterns.
    Value seen;
    if (skipZeroWeights)
      seen = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                   vector::BitCastOp::create(b, halves, p),
                                   zeroBits);
    for (int64_t c = 0; c < chunkVecs; ++c) {
      Value v =
          seen ? Value(arith::SelectOp::create(b, seen, vv[c], zero)) : vv[c];
      next.push_back(dotBf16(acc[r * chunkVecs + c], p, v));
    }
  }
  scf::YieldOp::create(b, next);
}

/// One key block of one query block of the prefill kernel (blockStep):
/// the operands, then what blockStep derives once per block.
struct KernelBuilder::BlockStep {
  Value qs, kt, vMem, os;       // Qs (or pairs), packed keys, values, O
  Value sBuf, pBuf, mBuf, lBuf; // scores, P, running max and sum
  Value bIdx, hIdx, q0, kb;     // batch, head, first query row, key block
  Value tq, tk;                 // query rows, valid keys
  Value shift;                  // causal: o[b] (causalShift)
  Value alibiBase, slope;       // ALiBi: query position base, head slope
  Value kvHead, j0, keys;       // KV head, first key, keys that exist
  Value negInf, laneIndex;      // -inf, the lane indices as f32
  Value j0f, tkF;               // j0 and tk as f32
};

/// One key block for one query block, in two passes over its 16 groups of 4
/// rows: first S = Qs Kt of every group into sBuf (storeGroupScores), then
/// per group the masks, the online softmax and O = alpha O + P V
/// (finishGroup).
void KernelBuilder::blockStep(BlockStep &s) {
  s.kvHead = arith::DivUIOp::create(b, s.hIdx, idx(group));
  s.j0 = muli(s.kb, idx(kBlock));
  // Keys of this block that exist: min(64, Tk - j0).
  s.keys = arith::MinSIOp::create(b, idx(kBlock),
                                  arith::SubIOp::create(b, s.tk, s.j0));
  // Query rows of this block that exist, rounded up to groups of 4.
  Value rows = arith::MinSIOp::create(b, idx(kQBlock),
                                      arith::SubIOp::create(b, s.tq, s.q0));
  Value groups =
      arith::DivUIOp::create(b, addi(rows, idx(kRows - 1)), idx(kRows));
  s.negInf = cf(-std::numeric_limits<double>::infinity());
  s.laneIndex = iota();
  s.j0f = indexToF32(s.j0);
  s.tkF = indexToF32(s.tk);

  // The scores of all groups first, then the softmax and P V of each: the
  // S loops then read the key block (D x 64 keys) from the L1 cache, and
  // the P V loops the value block (64 x Dv), where alternating S and P V
  // per group made each evict the other's block and read it from the L2
  // (at D = Dv = 128 in f32 the two take 64 KiB, more than the 32-48 KiB L1
  // of current x86 cores).
  scf::ForOp::create(b, idx(0), groups, idx(1), ValueRange{},
                     [&](OpBuilder &ob, Location loc, Value g, ValueRange) {
                       Scope scope_nb(b, ob);
                       storeGroupScores(s, g);
                       scf::YieldOp::create(b);
                     });
  scf::ForOp::create(b, idx(0), groups, idx(1), ValueRange{},
                     [&](OpBuilder &ob, Location loc, Value g, ValueRange) {
                       Scope scope_nb(b, ob);
                       finishGroup(s, g);
                       scf::YieldOp::create(b);
                     });
}

Value KernelBuilder::lastRowLimit(const BlockStep &s, Value r0) {
  return addi(addi(s.q0, addi(r0, idx(kRows - 1))), s.shift);
}

void KernelBuilder::storeGroupScores(const BlockStep &s, Value g) {
  Value r0 = muli(g, idx(kRows));
  auto storeTile = [&](int64_t vecs) {
    SmallVector<Value> tile = scoreTile(s.qs, s.kt, s.kb, r0, vecs);
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < vecs; ++c)
        vector::StoreOp::create(b, tile[r * vecs + c], s.sBuf,
                                ValueRange{g, idx(r * blockVecs + c), idx(0)});
  };
  if (!attn.getCausal()) {
    storeTile(blockVecs);
    return;
  }
  // Causal: the 16-key vectors past the causal limit of the group's
  // last row are masked in all 4 rows (the mask path, which such a
  // group always takes, puts -inf there whatever sBuf holds), so only
  // the first `vecs` are computed: on a diagonal block 2.5 of 4 in the
  // mean, none where the diagonal crosses the block at an offset and
  // the group's rows end before it.
  Value lastLimit = lastRowLimit(s, r0);
  Value need = arith::SubIOp::create(b, addi(lastLimit, idx(lanes)), s.j0);
  Value vecs = arith::MinSIOp::create(
      b, idx(blockVecs),
      arith::MaxSIOp::create(b, idx(0),
                             arith::FloorDivSIOp::create(b, need, idx(lanes))));
  SmallVector<int64_t> cases;
  for (int64_t v = 0; v < blockVecs; ++v)
    cases.push_back(v);
  auto sw =
      scf::IndexSwitchOp::create(b, TypeRange{}, vecs, cases, cases.size());
  for (auto [i, region] : llvm::enumerate(sw.getCaseRegions())) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&region.emplaceBlock());
    if (i > 0)
      storeTile(i);
    scf::YieldOp::create(b);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sw.getDefaultRegion().emplaceBlock());
  storeTile(blockVecs);
  scf::YieldOp::create(b);
}

void KernelBuilder::finishGroup(const BlockStep &s, Value g) {
  Value r0 = muli(g, idx(kRows));
  // S[4][64].
  SmallVector<Value> scores;
  for (int64_t v = 0; v < kRows * blockVecs; ++v)
    scores.push_back(
        vector::LoadOp::create(b, vf, s.sBuf, ValueRange{g, idx(v), idx(0)}));
  // Softcap and ALiBi on every score; causal and tail masks only where
  // some key of the block may be masked for some row of the group (the
  // first row is the most restricted), so interior blocks skip them.
  SmallVector<Value> jFs;
  for (int64_t c = 0; c < blockVecs; ++c)
    jFs.push_back(arith::AddFOp::create(
        b, bcast(arith::AddFOp::create(b, s.j0f, cf(double(c * lanes)))),
        s.laneIndex));
  SmallVector<Value> raw = modifiedScores(s, r0, scores, jFs);
  Value needMask = needsMask(s, r0);
  scf::IfOp masked = maskScores(s, r0, jFs, raw, needMask);
  SmallVector<Value> alphas = onlineSoftmax(s, r0, masked.getResults());
  auto pvIf = scf::IfOp::create(b, TypeRange{}, needMask,
                                /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&pvIf.getThenRegion().front());
  groupPV(s, r0, alphas, /*skipZeroWeights=*/true);
  b.setInsertionPointToStart(&pvIf.getElseRegion().front());
  groupPV(s, r0, alphas, /*skipZeroWeights=*/false);
}

SmallVector<Value> KernelBuilder::modifiedScores(const BlockStep &s, Value r0,
                                                 ArrayRef<Value> scores,
                                                 ArrayRef<Value> jFs) {
  SmallVector<Value> raw;
  bool biasFirst = attn.getSoftcapOrder() == SoftcapOrder::AfterBias;
  for (int64_t r = 0; r < kRows; ++r) {
    Value i = addi(s.q0, addi(r0, idx(r)));
    Value qPosF =
        attn.getAlibiAttr() ? indexToF32(addi(s.alibiBase, i)) : Value();
    // Rows past Tq (the group's padding) read the last row's bias.
    Value biasRow = biasMem ? Value(arith::MinSIOp::create(
                                  b, i, arith::SubIOp::create(b, s.tq, idx(1))))
                            : Value();
    for (int64_t c = 0; c < blockVecs; ++c) {
      Value v = scores[r * blockVecs + c];
      Value jF = jFs[c];
      // The explicit bias sits where ALiBi would (they are
      // exclusive): after a before_bias softcap, before an
      // after_bias one; modifyScore applies the softcap.
      Value bias =
          biasMem ? loadBias(biasMem, s.bIdx, s.hIdx, biasRow,
                             addi(s.j0, idx(c * lanes)),
                             arith::SubIOp::create(b, s.keys, idx(c * lanes)))
                  : Value();
      // In base 2 the bias joins as bias * log2(e) (one rounding).
      auto addBias = [&](Value v) -> Value {
        if (!base2)
          return arith::AddFOp::create(b, v, bias);
        return math::FmaOp::create(b, bias, vsplat(kLog2E), v);
      };
      if (bias && biasFirst)
        v = addBias(v);
      v = modifyScore(v, attn.getAlibiAttr() ? bcast(qPosF) : Value(), jF,
                      attn.getAlibiAttr() ? bcast(s.slope) : Value());
      if (bias && !biasFirst)
        v = addBias(v);
      raw.push_back(v);
    }
  }
  return raw;
}

Value KernelBuilder::needsMask(const BlockStep &s, Value r0) {
  Value blockEnd = addi(s.j0, idx(kBlock));
  Value needMask =
      arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, blockEnd, s.tk);
  // A bias may disallow any key (-inf): every block then takes the
  // path that keeps the value rows of weight-0 keys out of P V.
  if (biasMem || maskMem)
    needMask = arith::ConstantIntOp::create(b, 1, 1);
  if (attn.getCausal()) {
    Value firstLimit = addi(addi(s.q0, r0), s.shift);
    needMask = arith::OrIOp::create(
        b, needMask,
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                              arith::SubIOp::create(b, blockEnd, idx(1)),
                              addi(firstLimit, idx(1))));
  }
  if (std::optional<uint64_t> window = attn.getWindow()) {
    // The last row of the group has the highest window start.
    Value lastLimit = lastRowLimit(s, r0);
    needMask = arith::OrIOp::create(
        b, needMask,
        arith::CmpIOp::create(
            b, arith::CmpIPredicate::sle, s.j0,
            arith::SubIOp::create(b, lastLimit,
                                  idx(static_cast<int64_t>(*window)))));
  }
  return needMask;
}

scf::IfOp KernelBuilder::maskScores(const BlockStep &s, Value r0,
                                    ArrayRef<Value> jFs, ArrayRef<Value> raw,
                                    Value needMask) {
  std::optional<uint64_t> window = attn.getWindow();
  SmallVector<Type> rawTypes(raw.size(), vf);
  auto masked = scf::IfOp::create(b, rawTypes, needMask, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&masked.getThenRegion().front());
  SmallVector<Value> out;
  for (int64_t r = 0; r < kRows; ++r) {
    Value i = addi(s.q0, addi(r0, idx(r)));
    Value limitF = indexToF32(addi(i, s.shift));
    // Per row: the causal limit and the window's lower bound.
    Value limitV = bcast(limitF);
    Value windowLowV =
        window ? bcast(arith::SubFOp::create(b, limitF,
                                             cf(static_cast<double>(*window))))
               : Value();
    for (int64_t c = 0; c < blockVecs; ++c) {
      Value jF = jFs[c];
      Value ok =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, jF, bcast(s.tkF));
      if (attn.getCausal())
        ok = arith::AndIOp::create(
            b, ok,
            arith::CmpFOp::create(b, arith::CmpFPredicate::OLE, jF, limitV));
      if (window)
        ok = arith::AndIOp::create(
            b, ok,
            arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, jF,
                                  windowLowV));
      if (maskMem)
        ok = arith::AndIOp::create(
            b, ok,
            loadMask(maskMem, s.bIdx, s.hIdx,
                     arith::MinSIOp::create(
                         b, i, arith::SubIOp::create(b, s.tq, idx(1))),
                     addi(s.j0, idx(c * lanes)),
                     arith::SubIOp::create(b, s.keys, idx(c * lanes))));
      out.push_back(arith::SelectOp::create(b, ok, raw[r * blockVecs + c],
                                            bcast(s.negInf)));
    }
  }
  scf::YieldOp::create(b, out);
  b.setInsertionPointToStart(&masked.getElseRegion().front());
  scf::YieldOp::create(b, raw);
  return masked;
}

SmallVector<Value> KernelBuilder::onlineSoftmax(const BlockStep &s, Value r0,
                                                ValueRange masked) {
  // The online softmax of the 4 rows. Their maxima and sums are
  // reduced together (rowsOfLanes): the result holds row r's value in
  // lanes 4r .. 4r + 3, so one vector carries the running state m, l
  // and the rescale factor alpha of all 4 rows. Scores may be -inf
  // (masked) or NaN (a NaN in Q, K or the bias). The block maxima are
  // x86 max (selectMax), which may pick or drop a NaN: either way the
  // row's output is NaN, as in the reference: the NaN score gives a
  // NaN weight exp(NaN - m), hence a NaN l; a NaN m gives NaN weights
  // and a NaN alpha, and l and O stay NaN once they are.
  SmallVector<Value> partialMax;
  for (int64_t r = 0; r < kRows; ++r) {
    Value maxV = masked[r * blockVecs];
    for (int64_t c = 1; c < blockVecs; ++c)
      maxV = selectMax(maxV, masked[r * blockVecs + c]);
    partialMax.push_back(maxV);
  }
  Value rowMax = rowsOfLanes(partialMax,
                             [&](Value x, Value y) { return selectMax(x, y); });
  Value mOld = spreadRows(vector::LoadOp::create(
      b, VectorType::get({kRows}, f32), s.mBuf, ValueRange{r0}));
  Value mNew = arith::MaxNumFOp::create(b, mOld, rowMax, kFast);
  // A row with no allowed key so far keeps m = -inf; subtract 0 then
  // so that exp gives 0 instead of NaN.
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew,
                                      bcast(s.negInf));
  Value safeM = arith::SelectOp::create(b, empty, vsplat(0.0), mNew);
  // The rescale factors exp(m_old - m_new) of the 4 rows (a -inf m_old
  // gives ~1e-38, harmless: O and l are 0).
  Value alphaAll = scoreExp(arith::SubFOp::create(b, mOld, safeM));
  SmallVector<Value> alphas, sums;
  for (int64_t r = 0; r < kRows; ++r) {
    Value rowM = laneOf(safeM, r * rowLanes());
    Value sumV;
    for (int64_t c = 0; c < blockVecs; ++c) {
      // exp(x) for x < -64 is below 1.7e-28: dropping it changes no
      // f32 sum of the row (whose largest term is 1), and keeps
      // denormals, which cost microcode assists in the P V
      // multiply-adds, out of P.
      Value x = arith::SubFOp::create(b, masked[r * blockVecs + c], rowM);
      Value e = scoreExp(x);
      e = arith::SelectOp::create(
          b,
          arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x,
                                vsplat(expCutoff())),
          vsplat(0.0), e);
      if (bf16Dot)
        vector::StoreOp::create(b, toBf16Pairs(e), s.pBuf,
                                ValueRange{idx(r), idx(c * lanes / 2)});
      else
        vector::StoreOp::create(b, e, s.pBuf,
                                ValueRange{idx(r), idx(c * lanes)});
      sumV = sumV ? arith::AddFOp::create(b, sumV, e, kFast).getResult() : e;
    }
    sums.push_back(sumV);
    alphas.push_back(laneOf(alphaAll, r * rowLanes()));
  }
  Value rowSum = rowsOfLanes(sums, [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, x, y, kFast);
  });
  Value lOld = spreadRows(vector::LoadOp::create(
      b, VectorType::get({kRows}, f32), s.lBuf, ValueRange{r0}));
  vector::StoreOp::create(
      b, firstOfRows(math::FmaOp::create(b, lOld, alphaAll, rowSum)), s.lBuf,
      ValueRange{r0});
  vector::StoreOp::create(b, firstOfRows(mNew), s.mBuf, ValueRange{r0});
  return alphas;
}

void KernelBuilder::groupPV(const BlockStep &s, Value r0,
                            ArrayRef<Value> alphas, bool skipZeroWeights) {
  // O[4 rows, chunk] = alpha O + P V, per chunk of value columns. In a
  // block with masked keys, a key of weight 0 is skipped rather than
  // multiplied: a NaN or infinity in the value row of a key that a row
  // does not see must not reach that row (0 * NaN is NaN). Interior
  // blocks, which have no masked key, keep the plain multiply-add.
  int64_t chunkVecs = valueChunk / lanes;
  for (int64_t e0 = 0; e0 < valuePad; e0 += valueChunk) {
    SmallVector<Value> acc;
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < chunkVecs; ++c) {
        Value o = vector::LoadOp::create(
            b, vf, s.os, ValueRange{addi(r0, idx(r)), idx(e0 + c * lanes)});
        acc.push_back(arith::MulFOp::create(b, o, alphas[r]));
      }
    // Causal: keys past the group's last row's limit have weight 0
    // in all 4 rows, so a block with masked keys stops before them
    // (half of the P V work of a diagonal block).
    Value used = s.keys;
    if (skipZeroWeights && attn.getCausal()) {
      Value lastLimit = lastRowLimit(s, r0);
      Value seen = arith::MaxSIOp::create(
          b, idx(0), addi(arith::SubIOp::create(b, lastLimit, s.j0), idx(1)));
      used = arith::MinSIOp::create(b, s.keys, seen);
    }
    // bf16Dot: per step a key pair (the odd tail key's partner has
    // weight 0 and a zero value row).
    Value steps =
        bf16Dot ? Value(arith::DivUIOp::create(b, addi(used, idx(1)), idx(2)))
                : used;
    auto pv = scf::ForOp::create(
        b, idx(0), steps, idx(1), acc,
        [&](OpBuilder &ib, Location l2, Value jj, ValueRange a) {
          Scope scope_inner(b, ib);
          if (bf16Dot)
            pvPairStep(s.vMem, s.pBuf, addi(muli(s.kb, idx(kBlock / 2)), jj),
                       jj, e0, a, skipZeroWeights);
          else
            pvStep(s, jj, e0, a, skipZeroWeights);
        });
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < chunkVecs; ++c)
        vector::StoreOp::create(
            b, pv.getResult(r * chunkVecs + c), s.os,
            ValueRange{addi(r0, idx(r)), idx(e0 + c * lanes)});
  }
}

void KernelBuilder::pvStep(const BlockStep &s, Value jj, int64_t e0,
                           ValueRange acc, bool skipZeroWeights) {
  int64_t chunkVecs = valueChunk / lanes;
  Value j = addi(s.j0, jj);
  SmallVector<Value> vv, next;
  bool packed = cast<MemRefType>(s.vMem.getType()).getRank() == 2;
  for (int64_t c = 0; c < chunkVecs; ++c)
    vv.push_back(
        packed ? vector::LoadOp::create(b, vf, s.vMem,
                                        ValueRange{j, idx(e0 + c * lanes)})
               : loadF32(s.vMem,
                         ValueRange{s.bIdx, s.kvHead, j, idx(e0 + c * lanes)},
                         rowMask(e0 + c * lanes, valueDim)));
  for (int64_t r = 0; r < kRows; ++r) {
    Value p = memref::LoadOp::create(b, s.pBuf, ValueRange{idx(r), jj});
    Value pr = bcast(p);
    // The lanes to update (p != 0, or NaN) as a lane mask
    // of the broadcast weight, selecting the sum where set:
    // x86 then merge-masks the multiply-add. A scalar
    // condition was lowered to two branches and a copy per
    // multiply-add, and a mask of the lanes to keep to a
    // multiply-add into a copy and a masked move.
    Value update;
    if (skipZeroWeights)
      update =
          arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, pr, vsplat(0.0));
    for (int64_t c = 0; c < chunkVecs; ++c) {
      Value sum = vector::FMAOp::create(b, pr, vv[c], acc[r * chunkVecs + c]);
      if (update)
        sum = arith::SelectOp::create(b, update, sum, acc[r * chunkVecs + c]);
      next.push_back(sum);
    }
  }
  scf::YieldOp::create(b, next);
}

Value KernelBuilder::build() {
  base2 = !attn.getSoftcap();
  Prologue pr = buildPrologue(/*singleQuery=*/false);
  biasMem = pr.bias;
  maskMem = pr.mask;
  Value qMem = pr.qMem, kMem = pr.kMem, vMem = pr.vMem;
  Value qCos = pr.qCos, qSin = pr.qSin, kCos = pr.kCos, kSin = pr.kSin;
  Value slopes = pr.slopes;
  Value batch = dim(qMem, 0), tq = dim(qMem, 2), tkAll = dim(kMem, 2);
  Value alibiBase =
      attn.getAlibiAttr() ? offsetValue(attn.getAlibiQueryOffset()) : Value();
  Value qBlocks =
      arith::DivUIOp::create(b, addi(tq, idx(kQBlock - 1)), idx(kQBlock));

  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{batch, idx(heads)},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope_nb(b, ob);
        beginTask();
        Value bIdx = ivs[0], hIdx = ivs[1];
        // This batch's valid keys L[b] and causal offset o[b].
        Value tk = validKeys(pr, bIdx, tkAll);
        Value shift = causalShift(pr, tk, tq);
        Value kBlocks =
            arith::DivUIOp::create(b, addi(tk, idx(kBlock - 1)), idx(kBlock));
        Value kvHead = arith::DivUIOp::create(b, hIdx, idx(group));
        Value kt, qp, vp, pBuf;
        Type bf16 = b.getBF16Type(), i32 = b.getI32Type();
        if (bf16Dot) {
          // Channel-pair keys, key-pair values (both padded to whole key
          // blocks), channel-pair queries and key-pair P.
          kt = allocOf(bf16, {ShapedType::kDynamic, headDim / 2, 2 * kBlock},
                       kBlocks);
          vp = allocOf(bf16, {ShapedType::kDynamic, 2 * valueDim},
                       muli(kBlocks, idx(kBlock / 2)));
          qp = scratch(i32, {kQBlock, headDim / 2}, {});
          pBuf = scratch(i32, {kRows, kBlock / 2}, {});
        } else {
          kt = alloc({ShapedType::kDynamic, headDim, kBlock}, kBlocks);
          pBuf = scratch({kRows, kBlock}, {});
        }
        Value qs = scratch({kQBlock, headPad}, {});
        Value os = scratch({kQBlock, valuePad}, {});
        Value mBuf = scratch({kQBlock}, {});
        Value lBuf = scratch({kQBlock}, {});
        // The raw scores of a key block, per group of 4 rows: 16 vectors.
        Value sBuf = scratch({kQBlock / kRows, kRows * blockVecs, lanes}, {});
        packKeys(kMem, kt, bIdx, kvHead, tk, kCos, kSin);
        if (bf16Dot)
          packValuePairs(vMem, vp, bIdx, kvHead, tk);
        // bshd: value rows H x Dv apart, packed (packValues).
        Value vs = vMem;
        if (!bf16Dot && attn.getLayout() == AttentionLayout::BSHD) {
          vs = alloc({ShapedType::kDynamic, valuePad}, tk);
          packValues(vMem, vs, bIdx, kvHead, tk);
        }
        Value slope = attn.getAlibiAttr() ? slopeOf(slopes, hIdx) : Value();
        if (slope && base2)
          slope = arith::MulFOp::create(b, slope, cf(kLog2E));
        scf::ForOp::create(
            b, idx(0), qBlocks, idx(1), ValueRange{},
            [&](OpBuilder &fb, Location l2, Value qb, ValueRange) {
              Scope scope_nb2(b, fb);
              Value q0 = muli(qb, idx(kQBlock));
              // With bf16 dot products the scale multiplies S instead, so
              // that the queries are rounded to bf16 unscaled.
              loadQueries(qMem, qs, bIdx, hIdx, q0, tq, qCos, qSin,
                          bf16Dot ? 1.0 : scale * unit());
              if (bf16Dot)
                packQueryPairs(qs, qp);
              // Running state: O = 0, m = -inf, l = 0.
              scf::ForOp::create(
                  b, idx(0), idx(kQBlock), idx(1), ValueRange{},
                  [&](OpBuilder &ib, Location l3, Value r, ValueRange) {
                    Scope scope_inner(b, ib);
                    for (int64_t c = 0; c < valuePad; c += lanes)
                      vector::StoreOp::create(b, vsplat(0.0), os,
                                              ValueRange{r, idx(c)});
                    memref::StoreOp::create(
                        b, cf(-std::numeric_limits<double>::infinity()), mBuf,
                        ValueRange{r});
                    memref::StoreOp::create(b, cf(0.0), lBuf, ValueRange{r});
                    scf::YieldOp::create(b);
                  });
              // The key blocks the query block's rows may see: up to the
              // causal limit of its last row, from the window start of its
              // first one.
              Value lastRow =
                  arith::MinSIOp::create(b, addi(q0, idx(kQBlock - 1)),
                                         arith::SubIOp::create(b, tq, idx(1)));
              auto [kbBegin, kbEnd] =
                  kernels::AttentionPlan(attn).buildKeyTileRange(
                      b, b.getLoc(), q0, lastRow, shift, tk, kBlock);
              // The operands; blockStep derives the rest per key block.
              BlockStep step;
              step.qs = bf16Dot ? qp : qs;
              step.kt = kt;
              step.vMem = bf16Dot ? vp : vs;
              step.os = os;
              step.sBuf = sBuf;
              step.pBuf = pBuf;
              step.mBuf = mBuf;
              step.lBuf = lBuf;
              step.bIdx = bIdx;
              step.hIdx = hIdx;
              step.q0 = q0;
              step.tq = tq;
              step.tk = tk;
              step.shift = shift;
              step.alibiBase = alibiBase;
              step.slope = slope;
              scf::ForOp::create(
                  b, kbBegin, kbEnd, idx(1), ValueRange{},
                  [&](OpBuilder &ib, Location l3, Value kb, ValueRange) {
                    Scope scope_inner(b, ib);
                    BlockStep blockState = step;
                    blockState.kb = kb;
                    blockStep(blockState);
                    scf::YieldOp::create(b);
                  });
              // O / l, 0 for rows without any allowed key.
              Value rows = arith::MinSIOp::create(
                  b, idx(kQBlock), arith::SubIOp::create(b, tq, q0));
              scf::ForOp::create(
                  b, idx(0), rows, idx(1), ValueRange{},
                  [&](OpBuilder &ib, Location l3, Value r, ValueRange) {
                    Scope scope_inner(b, ib);
                    finishQueryRow(pr, step, r);
                    scf::YieldOp::create(b);
                  });
              scf::YieldOp::create(b);
            });
        endTask();
        scf::ReduceOp::create(b);
      });
  finishLse(pr);
  return bufferization::ToTensorOp::create(b, resultType, pr.outBuffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

void KernelBuilder::finishQueryRow(const Prologue &pr, const BlockStep &s,
                                   Value r) {
  Value l = memref::LoadOp::create(b, s.lBuf, ValueRange{r});
  if (pr.lseBuffer) {
    // log sum exp = m + log l (-inf for an empty row),
    // m ln 2 + log l with base-2 scores.
    Value m = memref::LoadOp::create(b, s.mBuf, ValueRange{r});
    Value logL = math::LogOp::create(b, l);
    memref::StoreOp::create(
        b,
        base2 ? Value(math::FmaOp::create(b, m, cf(kLn2), logL))
              : Value(arith::AddFOp::create(b, m, logL)),
        pr.lseBuffer, ValueRange{s.bIdx, s.hIdx, addi(s.q0, r)});
  }
  Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
  Value inv = arith::SelectOp::create(b, empty, cf(0.0),
                                      arith::DivFOp::create(b, cf(1.0), l));
  Value invV = bcast(inv);
  for (int64_t c = 0; c < valueDim; c += lanes) {
    Value o = vector::LoadOp::create(b, vf, s.os, ValueRange{r, idx(c)});
    storeFromF32(arith::MulFOp::create(b, o, invV), pr.out,
                 ValueRange{s.bIdx, s.hIdx, addi(s.q0, r), idx(c)},
                 rowMask(c, valueDim));
  }
}

namespace {

/// Replaces a pe.attention by the prefill (flash-attention) kernel; refuses
/// one the kernel does not support, with a missed remark naming the reason
/// (the reference lowering of convert-pe-to-linalg then takes it).
struct PrefillAttentionPattern : OpRewritePattern<AttentionOp> {
  PrefillAttentionPattern(MLIRContext *context,
                          const PEToVectorOptions &options)
      : OpRewritePattern(context, /*benefit=*/1), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedReason(op);
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "attention-kernel",
                       "no generated attention kernel (the reference "
                       "lowering with a materialised score tensor is "
                       "used): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    rewriter.setInsertionPoint(op);
    KernelBuilder kernel(op, rewriter, options.target.f32Lanes());
    kernel.setOptions(options);
    kernel.limitRegisterTile(options.target.accumulatorVectors());
    kernel.chooseBf16Dot(options.target, /*decode=*/false);
    kernel.replaceAttention(rewriter, kernel.build());
    return success();
  }

  PEToVectorOptions options;
};

} // namespace

void cpu::populatePrefillAttentionPattern(RewritePatternSet &patterns,
                                          const PEToVectorOptions &options) {
  patterns.add<PrefillAttentionPattern>(patterns.getContext(), options);
}
