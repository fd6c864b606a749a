//===- MMAAttention.cpp - the tensor-core attention kernel ----------------===//
//
// Part of the pe-mlir project.
//
// Tensor-core attention (f16/bf16 prefill, head dimensions multiples of 16,
// chip sm_80 and above, or tensor-cores=emulate; docs/CodegenGPU.md): the
// host part, grid, key tiles, masks and score modifications of the SIMT
// kernel, but 4 warps of 16 rows per block, and K/V tiles in two
// workgroup-memory stages: the next tile's cp.async copies run during this
// tile's math (K rotated in place once it has landed); per lane Q's
// mma.sync A fragments (rotated as loaded), S's and O's f32 accumulators in
// registers; S = Q K^T and O += P V with m16n8k16 mma.sync (P reused from
// S's accumulators as A fragments, B by ldmatrix, .trans for V, from rows
// whose 16-byte chunks are XOR-swizzled), the score modifications per
// accumulator element from its (row, key), and the row max/sum over the 4
// lanes of a fragment row with gpu.shuffle xor. Emulated, each mma.sync and
// shuffle goes through workgroup memory in the exact PTX fragment layouts, each
// ldmatrix through the lanes' row addresses, and the copies are plain loads
// and stores into the same swizzled stages, so the kernel runs on targets
// without tensor cores (SPIR-V on lavapipe).
//
//===----------------------------------------------------------------------===//

#include "MMAAttentionBuilder.h"
#include "PatternsInternal.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

void MMAAttentionBuilder::build() {
  AttentionHost host = prepareAttention(op);
  int64_t kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv, bk = options.keyTile;
  int64_t bq = kMmaWarps * 16, threads = kMmaWarps * kWarpLanes;
  // The K/V tiles hold the input type; the A fragments too, or f32 holding
  // exactly those values when emulated.
  Type ft = emulate ? f32 : in;
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto priv =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Private);
  auto mem = [&](ArrayRef<int64_t> shape, Type t, Attribute space) -> Type {
    return MemRefType::get(shape, t, MemRefLayoutAttrInterface(), space);
  };
  SmallVector<Type> wgTypes = {mem({stages * bk, d}, in, wg),
                               mem({stages * bk, dv}, in, wg)};
  if (emulate) {
    wgTypes.push_back(mem({kMmaWarps, 16, 16}, f32, wg));
    wgTypes.push_back(mem({kMmaWarps, 16, 8}, f32, wg));
    wgTypes.push_back(mem({threads}, f32, wg));
    wgTypes.push_back(mem({threads}, b.getI32Type(), wg));
  }
  assert(staticBytes(wgTypes) == static_cast<int64_t>(mmaWorkgroupBytes(
                                     d, dv, emulate, stages)(bk)) &&
         staticBytes(wgTypes) <= options.sharedMemoryBytes &&
         "the key tile's workgroup memory is not what fitKeyTile counted");
  // Per lane: Q's A fragments (8 per 16 channels), S's accumulators (4 per
  // 8 keys), O's accumulators (4 per 8 channels), 4 row statistics.
  SmallVector<Type> privTypes = {
      mem({d / 16 * 8}, ft, priv), mem({bk / 8 * 4}, f32, priv),
      mem({dv / 8 * 4}, f32, priv), mem({4}, f32, priv)};

  Value gridX = ceilDiv(muli(idx(group), host.tq), bq);
  scf::IfOp guard = guardLaunch(arith::AndIOp::create(
      b, cmpi(arith::CmpIPredicate::ugt, gridX, idx(0)),
      cmpi(arith::CmpIPredicate::ugt, host.batch, idx(0))));
  auto launch = gpu::LaunchOp::create(
      b, gridX, idx(kvHeads), host.batch, idx(threads), idx(1), idx(1),
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/ValueRange{}, wgTypes, privTypes);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    emitKernel(host, launch);
  }
  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

void MMAAttentionBuilder::emitKernel(const AttentionHost &host,
                                     gpu::LaunchOp launch) {
  int64_t group = host.group, dv = host.dv, bk = options.keyTile;
  int64_t bq = kMmaWarps * 16;
  Lane l;
  std::array<Value, 4> scalars = unpackAttentionScalars(host);
  l.tq = scalars[0];
  l.tkAll = scalars[1];
  Value causalOffset = scalars[2], alibiBase = scalars[3];
  Value rowsTotal = muli(idx(group), l.tq);
  ValueRange wgMem = launch.getWorkgroupAttributions();
  ValueRange privMem = launch.getPrivateAttributions();
  l.ks = wgMem[0];
  l.vs = wgMem[1];
  l.qf = privMem[0];
  l.sf = privMem[1];
  l.of = privMem[2];
  l.stat = privMem[3];
  MmaLanes &lanes = l.lanes;
  lanes.emulate = emulate;
  lanes.input = in;
  lanes.tid = launch.getThreadIds().x;
  Value lane = lanes.lane = remui(lanes.tid, idx(kWarpLanes));
  lanes.warp = divui(lanes.tid, idx(kWarpLanes));
  lanes.group = divui(lane, idx(4));
  lanes.quad = remui(lane, idx(4));
  if (emulate) {
    lanes.ea = wgMem[2];
    lanes.eb = wgMem[3];
    lanes.ex = wgMem[4];
    lanes.ei = wgMem[5];
  }
  l.gq = lanes.group;
  l.t2 = muli(lanes.quad, idx(2));
  l.bIdx = launch.getBlockIds().z;
  l.kvh = launch.getBlockIds().y;
  Value r0 = muli(launch.getBlockIds().x, idx(bq));
  l.tk = validKeys(op, host, l.bIdx, l.tkAll);
  Value shift = causalShift(op, l.tk, l.tq, causalOffset);
  Value tileBegin, tileEnd;
  std::tie(tileBegin, tileEnd) =
      keyTileRange(op, r0, bq, rowsTotal, l.tq, l.tk, shift, bk);
  initRows(host, l, r0, rowsTotal, shift, alibiBase);
  emitQueryFragments(host, l);
  fragLoop(emulate, dv / 8 * 4, [&](Value e) {
    memref::StoreOp::create(b, cf(0.0), l.of, ValueRange{e});
  });

  l.negInf = cf(-std::numeric_limits<double>::infinity());
  l.zero = cf(0.0);
  // Two stages: tile t is in stage t % 2; its copies were started in the
  // previous iteration (the first tile's here), and the next tile's start
  // once every thread is done with the tile before (one barrier per tile).
  if (stages == 2)
    ifThen(cmpi(arith::CmpIPredicate::ult, tileBegin, tileEnd),
           [&] { copyKeyTile(host, l, tileBegin, remui(tileBegin, idx(2))); });
  // Loop-carried: the running max m and the lane's partial sum l of its
  // two rows (the sum over the 4 lanes of a row is taken at the end).
  auto tiles = scf::ForOp::create(
      b, tileBegin, tileEnd, idx(1),
      ValueRange{l.negInf, l.negInf, l.zero, l.zero},
      [&](OpBuilder &ob, Location, Value tile, ValueRange state) {
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
        Value stage;
        if (stages == 2) {
          stage = remui(tile, idx(2));
          // Tile t has landed for every thread, and every thread is done
          // with tile t - 1, whose stage the copies of t + 1 overwrite.
          waitKeyTile();
          gpu::BarrierOp::create(b);
          Value next = addi(tile, idx(1));
          ifThen(cmpi(arith::CmpIPredicate::ult, next, tileEnd),
                 [&] { copyKeyTile(host, l, next, subi(idx(1), stage)); });
        } else {
          // One stage: every thread is done with the previous tile before
          // this one is copied over it.
          stage = idx(0);
          gpu::BarrierOp::create(b);
          copyKeyTile(host, l, tile, stage);
          waitKeyTile();
          gpu::BarrierOp::create(b);
        }
        Value row0 = muli(stage, idx(bk));
        if (op.rotatesKey() && rotary) {
          rotateStagedKeys(host, l, muli(tile, idx(bk)), row0);
          gpu::BarrierOp::create(b);
        }
        std::array<Value, 4> next = emitKeyTile(host, l, tile, row0, state);
        scf::YieldOp::create(b, ValueRange(ArrayRef<Value>(next)));
      });
  emitEpilogue(host, l, tiles);
  gpu::TerminatorOp::create(b);
}

void MMAAttentionBuilder::initRows(const AttentionHost &host, Lane &l, Value r0,
                                   Value rowsTotal, Value shift,
                                   Value alibiBase) {
  // (head, token) as in the SIMT kernel; rows past the last one work on row
  // 0 and store nothing.
  Value warpRow = addi(r0, muli(l.lanes.warp, idx(16)));
  for (int64_t half = 0; half < 2; ++half) {
    QueryRow &qr = l.rows[half];
    Value r = addi(warpRow, addi(l.gq, idx(8 * half)));
    qr.active = cmpi(arith::CmpIPredicate::ult, r, rowsTotal);
    Value row = select(qr.active, r, idx(0));
    qr.i = remui(row, l.tq);
    qr.h = addi(muli(l.kvh, idx(host.group)), divui(row, l.tq));
    if (host.slopes)
      qr.slope = loadF32(host.slopes, qr.h);
    if (alibiBase)
      qr.qPos = indexToF32(addi(alibiBase, qr.i));
    qr.limit = addi(qr.i, shift);
  }
}

void MMAAttentionBuilder::emitQueryFragments(const AttentionHost &host,
                                             const Lane &l) {
  // a_{2i+j} of k-step ks is channel 16 ks + 2t + 8 (i / 2) + j of row
  // g + 8 (i % 2).
  fragLoop(emulate, host.d / 16, [&](Value kStep) {
    for (int64_t i = 0; i < 4; ++i) {
      const QueryRow &qr = l.rows[i % 2];
      Value qRow = rowStart(host, l.bIdx, qr.h, qr.i, host.heads, l.tq, host.d);
      auto loadQ = [&](Value c) { return loadF32(host.q, addi(qRow, c)); };
      for (int64_t j = 0; j < 2; ++j) {
        Value c = addi(addi(muli(kStep, idx(16)), l.t2), idx(8 * (i / 2) + j));
        Value x = loadQ(c);
        if (rotary) {
          // Channel c's pair and whether it is the pair's first channel.
          Value inRot = cmpi(arith::CmpIPredicate::ult, c, idx(rotary));
          Value p, first;
          if (rot->layout == RopeLayout::Half) {
            first = cmpi(arith::CmpIPredicate::ult, c, idx(rotary / 2));
            p = select(first, c, subi(c, idx(rotary / 2)));
          } else {
            p = divui(c, idx(2));
            first = cmpi(arith::CmpIPredicate::eq, remui(c, idx(2)), idx(0));
          }
          p = select(inRot, p, idx(0));
          rotatePair(loadQ, ropeRow(host.qBatched, l.bIdx, qr.i, l.tq), p,
                     host.qCos, host.qSin, [&](Value y0, Value y1) {
                       x = select(inRot, select(first, y0, y1), x);
                     });
        }
        memref::StoreOp::create(
            b, round(x), l.qf,
            ValueRange{addi(muli(kStep, idx(8)), idx(2 * i + j))});
      }
    }
  });
}

void MMAAttentionBuilder::emitScores(const AttentionHost &host, const Lane &l,
                                     Value j0, Value row0) {
  int64_t bk = options.keyTile;
  // S = Q K^T: n-tile nt covers keys 8 nt .. 8 nt + 7; B's b_{2i+j} is
  // channel 16 ks + 2t + 8 i + j of key 8 nt + g.
  fragLoop(emulate, bk / 8, [&](Value nt) {
    Value base = muli(nt, idx(4));
    for (int64_t e = 0; e < 4; ++e)
      memref::StoreOp::create(b, l.zero, l.sf, ValueRange{addi(base, idx(e))});
    // B by ldmatrix.x2: the lane gives row lane % 8 (key 8 nt + lane % 8)
    // of matrix (lane / 8) % 2 (channels 16 ks + 8 i ..).
    Value key = addi(row0, addi(muli(nt, idx(8)), remui(l.lanes.lane, idx(8))));
    Value half = remui(divui(l.lanes.lane, idx(8)), idx(2));
    fragLoop(emulate, host.d / 16, [&](Value kStep) {
      Value c = addi(muli(kStep, idx(16)), muli(half, idx(8)));
      std::array<Value, 4> bFrag =
          ldmatrix(l.lanes, l.ks, key, swizzle(key, c, host.d), false);
      mma(
          l.lanes,
          [&](int64_t i, int64_t j) -> Value {
            return memref::LoadOp::create(
                b, l.qf, ValueRange{addi(muli(kStep, idx(8)), idx(2 * i + j))});
          },
          [&](int64_t i, int64_t j) -> Value { return bFrag[2 * i + j]; }, l.sf,
          base);
    });
  });

  // Scores: c_{2i+j} of n-tile nt is row g + 8 i, key j0 + 8 nt + 2t + j;
  // the op's modifications and masks, and the row maxima of the lane.
  for (int64_t half = 0; half < 2; ++half)
    memref::StoreOp::create(b, l.negInf, l.stat, ValueRange{idx(half)});
  Value scaleV = cf(op.getScaleOrDefault());
  fragLoop(emulate, bk / 8, [&](Value nt) {
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t j = 0; j < 2; ++j) {
        const QueryRow &qr = l.rows[half];
        Value at = addi(muli(nt, idx(4)), idx(2 * half + j));
        Value key = addi(j0, addi(muli(nt, idx(8)), addi(l.t2, idx(j))));
        Value s = memref::LoadOp::create(b, l.sf, ValueRange{at});
        s = finalScore(op, host, mulf(s, scaleV), qr.qPos, qr.slope, l.bIdx,
                       qr.h, qr.i, key, l.tk, l.tq, l.tkAll, qr.limit);
        memref::StoreOp::create(b, s, l.sf, ValueRange{at});
        Value mx = memref::LoadOp::create(b, l.stat, ValueRange{idx(half)});
        memref::StoreOp::create(b, arith::MaximumFOp::create(b, mx, s), l.stat,
                                ValueRange{idx(half)});
      }
  });
}

MMAAttentionBuilder::TileSoftmax
MMAAttentionBuilder::emitSoftmax(const Lane &l, ValueRange state) {
  // Online softmax per row: the max over the 4 lanes of the row (lanes
  // 4g .. 4g + 3: xor 1, 2), m_new, the rescale factor.
  TileSoftmax sm;
  for (int64_t half = 0; half < 2; ++half) {
    Value mx = memref::LoadOp::create(b, l.stat, ValueRange{idx(half)});
    for (int64_t mask : {1, 2})
      mx = arith::MaximumFOp::create(b, mx, shuffleXor(l.lanes, mx, mask));
    sm.mNew[half] = arith::MaximumFOp::create(b, state[half], mx);
    // exp(-inf) = 0 against 0 while a row has no allowed key.
    sm.safeM[half] = select(arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                                  sm.mNew[half], l.negInf),
                            l.zero, sm.mNew[half]);
    sm.alpha[half] = math::ExpOp::create(
        b, arith::SubFOp::create(b, state[half], sm.safeM[half]));
    memref::StoreOp::create(b, l.zero, l.stat, ValueRange{idx(2 + half)});
  }
  // P = exp(S - m_new) in place, and the lane's row sums.
  fragLoop(emulate, options.keyTile / 8, [&](Value nt) {
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t j = 0; j < 2; ++j) {
        Value at = addi(muli(nt, idx(4)), idx(2 * half + j));
        Value s = memref::LoadOp::create(b, l.sf, ValueRange{at});
        Value p =
            math::ExpOp::create(b, arith::SubFOp::create(b, s, sm.safeM[half]));
        memref::StoreOp::create(b, p, l.sf, ValueRange{at});
        Value sum =
            memref::LoadOp::create(b, l.stat, ValueRange{idx(2 + half)});
        memref::StoreOp::create(b, addf(sum, p), l.stat,
                                ValueRange{idx(2 + half)});
      }
  });
  return sm;
}

void MMAAttentionBuilder::emitPV(const AttentionHost &host, const Lane &l,
                                 Value row0, const TileSoftmax &softmax) {
  // O = O alpha + P V: P's A fragment of k-step kk is n-tiles 2 kk and
  // 2 kk + 1 of S (a_{2i+j} = c_{2 (i % 2) + j} of n-tile 2 kk + i / 2),
  // rounded to the input type; V's b_{2i+j} is channel 8 nd + g of key
  // 16 kk + 2t + 8 i + j.
  fragLoop(emulate, host.dv / 8, [&](Value nd) {
    Value base = muli(nd, idx(4));
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t j = 0; j < 2; ++j) {
        Value at = addi(base, idx(2 * half + j));
        Value o = memref::LoadOp::create(b, l.of, ValueRange{at});
        memref::StoreOp::create(b, mulf(o, softmax.alpha[half]), l.of,
                                ValueRange{at});
      }
    // B by ldmatrix.x2.trans: the lane gives row lane % 8 (key 16 kk + 8 i +
    // lane % 8) of matrix i = (lane / 8) % 2 (channels 8 nd ..).
    Value half = remui(divui(l.lanes.lane, idx(8)), idx(2));
    Value c = muli(nd, idx(8));
    fragLoop(emulate, options.keyTile / 16, [&](Value kk) {
      Value key = addi(row0, addi(addi(muli(kk, idx(16)), muli(half, idx(8))),
                                  remui(l.lanes.lane, idx(8))));
      std::array<Value, 4> bFrag =
          ldmatrix(l.lanes, l.vs, key, swizzle(key, c, host.dv), true);
      mma(
          l.lanes,
          [&](int64_t i, int64_t j) -> Value {
            Value at =
                addi(muli(kk, idx(8)), idx(4 * (i / 2) + 2 * (i % 2) + j));
            return round(memref::LoadOp::create(b, l.sf, ValueRange{at}));
          },
          [&](int64_t i, int64_t j) -> Value { return bFrag[2 * i + j]; }, l.of,
          base);
    });
  });
}

void MMAAttentionBuilder::emitEpilogue(const AttentionHost &host, const Lane &l,
                                       scf::ForOp tiles) {
  // l summed over the 4 lanes of each row; O / l (0 for a row without
  // allowed keys), lse = m + log l (from the row's lane t = 0).
  int64_t heads = host.heads;
  for (int64_t half = 0; half < 2; ++half) {
    const QueryRow &qr = l.rows[half];
    Value m = tiles.getResult(half), sum = tiles.getResult(2 + half);
    for (int64_t mask : {1, 2})
      sum = addf(sum, shuffleXor(l.lanes, sum, mask));
    Value empty =
        arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, sum, l.zero);
    Value inv = select(empty, l.zero, arith::DivFOp::create(b, cf(1.0), sum));
    ifThen(qr.active, [&] {
      Value oRow = rowStart(host, l.bIdx, qr.h, qr.i, heads, l.tq, host.dv);
      fragLoop(emulate, host.dv / 8, [&](Value nd) {
        for (int64_t j = 0; j < 2; ++j) {
          Value at = addi(muli(nd, idx(4)), idx(2 * half + j));
          Value o = memref::LoadOp::create(b, l.of, ValueRange{at});
          Value c = addi(addi(muli(nd, idx(8)), l.t2), idx(j));
          storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
        }
      });
      if (host.lse)
        ifThen(cmpi(arith::CmpIPredicate::eq, l.lanes.quad, idx(0)), [&] {
          Value at =
              addi(muli(addi(muli(l.bIdx, idx(heads)), qr.h), l.tq), qr.i);
          memref::StoreOp::create(b, addf(m, math::LogOp::create(b, sum)),
                                  host.lse, ValueRange{at});
        });
    });
  }
}

namespace {

/// pe.attention (f16/bf16 prefill) -> the tensor-core kernel. Refuses
/// silently an attention without a GPU kernel (the SIMT pattern reports it)
/// and, with the `tensor-core-kernel` remark, an f16/bf16 one that does not
/// get the kernel.
struct MMAAttentionPattern : public OpRewritePattern<AttentionOp> {
  MMAAttentionPattern(MLIRContext *ctx, const GPUKernelOptions &options,
                      PatternBenefit benefit)
      : OpRewritePattern(ctx, benefit), options(options) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!unsupportedReason(op, options).empty())
      return rewriter.notifyMatchFailure(op, "no GPU attention kernel");
    if (std::optional<std::string> noMma = noTensorCoreReason(op, options)) {
      if (!noMma->empty())
        emitMissedRemark(op, kRemarkCategory, "tensor-core-kernel",
                         "no tensor-core attention kernel (the SIMT kernel "
                         "runs): " +
                             *noMma);
      return rewriter.notifyMatchFailure(op, "no tensor-core kernel");
    }
    // The key tile: the largest up to key-tile, a multiple of 16, whose two
    // stages of K/V tiles fit in shared-memory-bytes; one stage when not
    // even 16 keys do (noTensorCoreReason leaves only ops with one).
    bool emulate = options.tensorCores == GPUTensorCores::Emulate;
    int64_t d = op.getQuery().getType().getDimSize(3);
    int64_t dv = op.getValue().getType().getDimSize(3);
    int64_t stages = 2;
    WorkgroupBytes bytes = mmaWorkgroupBytes(d, dv, emulate, stages);
    GPUKernelOptions opOptions = options;
    opOptions.keyTile = fitKeyTile(options, 16, bytes);
    if (opOptions.keyTile == 0) {
      emitMissedRemark(
          op, kRemarkCategory, "tensor-core-stages",
          "the tensor-core attention kernel stages K/V tiles in one "
          "workgroup-memory stage (the copies of a tile do not overlap the "
          "mma.sync of the one before): two stages of 16 keys take " +
              std::to_string(bytes(16)) + " bytes, above shared-memory-bytes=" +
              std::to_string(options.sharedMemoryBytes));
      stages = 1;
      bytes = mmaWorkgroupBytes(d, dv, emulate, stages);
      opOptions.keyTile = fitKeyTile(options, 16, bytes);
    }
    assert(opOptions.keyTile > 0 && "no key tile fits");
    emitKeyTileRemark(op, "the tensor-core", opOptions.keyTile, bytes, options,
                      stages);
    MMAAttentionBuilder(rewriter, op, opOptions, emulate, stages).build();
    return success();
  }

  GPUKernelOptions options;
};

} // namespace

void gpu_kernels::populateMMAAttentionPattern(RewritePatternSet &patterns,
                                              const GPUKernelOptions &options,
                                              PatternBenefit benefit) {
  patterns.add<MMAAttentionPattern>(patterns.getContext(), options, benefit);
}
