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

#include "KernelBuilder.h"
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

namespace {

/// Builds the tensor-core kernel of one op.
class MMAAttentionBuilder : public KernelBuilder {
public:
  MMAAttentionBuilder(PatternRewriter &rewriter, AttentionOp op,
                      const GPUKernelOptions &options, bool emulate,
                      int64_t stages)
      : KernelBuilder(rewriter, op, op.getRotation(), options), op(op),
        emulate(emulate), stages(stages),
        in(op.getQuery().getType().getElementType()) {}

  /// Replaces the op (and its lse result) by the kernel.
  void build();

private:
  /// The lanes of the kernel and how its mma.sync run.
  struct MmaLanes {
    bool emulate;
    Type input;                         // f16 or bf16
    Value tid, lane, warp, group, quad; // quad: lane % 4, group: lane / 4
    Value ea, eb, ex, ei;               // emulation scratch (workgroup)
  };
  /// One of the lane's two query rows (fragment rows g and g + 8 of its
  /// warp).
  struct QueryRow {
    Value active, h, i, qPos, slope, limit;
  };
  /// What the kernel body knows of its lane.
  struct Lane {
    MmaLanes lanes;
    Value tq, tkAll, ks, vs, qf, sf, of, stat, gq, t2, bIdx, kvh, tk;
    QueryRow rows[2];
    Value negInf, zero;
  };
  /// The online softmax state of one tile: per row half, m_new, the rescale
  /// factor and the exponent base.
  struct TileSoftmax {
    Value mNew[2], alpha[2], safeM[2];
  };

  /// The kernel body of `launch`.
  void emitKernel(const AttentionHost &host, gpu::LaunchOp launch);
  /// The lane's (head, token) rows and their per-row values.
  void initRows(const AttentionHost &host, Lane &l, Value r0, Value rowsTotal,
                Value shift, Value alibiBase);
  /// Q's A fragments, rotated as they are loaded, into `qf`.
  void emitQueryFragments(const AttentionHost &host, const Lane &l);
  /// One key tile, staged from row `row0` of the K/V buffers: returns the
  /// new (m, l) of both rows.
  std::array<Value, 4> emitKeyTile(const AttentionHost &host, const Lane &l,
                                   Value tile, Value row0, ValueRange state);
  /// Starts the copies of key tile `tile` into stage `stage` of the K/V
  /// buffers (rows stage * key-tile ..): cp.async of 16 bytes (keys past L[b]
  /// zero-filled) as one commit group, or, emulated, plain loads and stores.
  /// K is copied as it is: rotateStagedKeys rotates it in place.
  void copyKeyTile(const AttentionHost &host, const Lane &l, Value tile,
                   Value stage);
  /// Waits for this thread's copies (cp.async.wait_group 0; nothing when
  /// emulated: plain stores are complete). A barrier must follow before
  /// other threads' copies are read.
  void waitKeyTile();
  /// With RoPE on the keys: rotates the rotary channels of the K tile of
  /// keys from `j0` staged at row `row0`, in place (each thread its pairs).
  void rotateStagedKeys(const AttentionHost &host, const Lane &l, Value j0,
                        Value row0);
  /// S = Q K^T into `sf`, then the score modifications and the lane's row
  /// maxima.
  void emitScores(const AttentionHost &host, const Lane &l, Value j0,
                  Value row0);
  /// m_new, the rescale factors, P = exp(S - m_new) in place and the lane's
  /// row sums; returns the softmax state.
  TileSoftmax emitSoftmax(const Lane &l, ValueRange state);
  /// O = O alpha + P V.
  void emitPV(const AttentionHost &host, const Lane &l, Value row0,
              const TileSoftmax &softmax);
  /// l summed over the 4 lanes of each row; O / l, lse = m + log l.
  void emitEpilogue(const AttentionHost &host, const Lane &l, scf::ForOp tiles);

  /// One m16n8k16 mma.sync of this warp, C (4 f32 at acc[accBase + 2 i +
  /// j], the lane's c_{2i+j}) += A B: `a(i, j)` gives the lane's A fragment
  /// element {a_{2i+j}} (vector<4x2>), `bOp(i, j)` its B element (vector<2x2>),
  /// both as values of the input type (or f32 holding such values when
  /// emulated).
  void mma(const MmaLanes &lanes, function_ref<Value(int64_t, int64_t)> a,
           function_ref<Value(int64_t, int64_t)> bOp, Value acc, Value accBase);
  /// mma through workgroup memory, in the PTX fragment layouts.
  void emulatedMma(const MmaLanes &lanes,
                   function_ref<Value(int64_t, int64_t)> a,
                   function_ref<Value(int64_t, int64_t)> bOp, Value acc,
                   Value accBase);
  /// `v` of the lane `lane ^ mask` of the same warp (mask < 32).
  Value shuffleXor(const MmaLanes &lanes, Value v, int64_t mask);
  /// The lane's B fragment {b_{2i+j}} (values of the input type) of an
  /// ldmatrix.x2 (.trans with `trans`) from the K/V buffer `buf`: the lane
  /// gives the address [row, col] of row lane % 8 of matrix (lane / 8) % 2;
  /// without .trans lane l receives elements 2 (l % 4) + j of row l / 4 of
  /// matrix i, with .trans element l / 4 of rows 2 (l % 4) + j. Emulated,
  /// the addresses go through the exchange buffer `ei`.
  std::array<Value, 4> ldmatrix(const MmaLanes &lanes, Value buf, Value row,
                                Value col, bool trans);
  /// The physical column of column `c` of K/V buffer row `row` (`channels`
  /// columns): the 16-byte chunks of a row XOR-swizzled by the row, so that
  /// the 8 rows an ldmatrix reads (and the cp.async writes) fall in distinct
  /// banks; the identity when the chunks per row are not a power of two.
  Value swizzle(Value row, Value c, int64_t channels) {
    int64_t chunks = channels / 8;
    if (!llvm::isPowerOf2_64(chunks))
      return c;
    Value key = chunks >= 8 ? remui(row, idx(8))
                            : remui(divui(row, idx(8 / chunks)), idx(chunks));
    Value chunk = arith::XOrIOp::create(b, divui(c, idx(8)), key);
    return addi(muli(chunk, idx(8)), remui(c, idx(8)));
  }
  /// `body(i)` for i < n: unrolled into straight-line code (so that
  /// fragments indexed by i stay in registers), or an scf.for when `rolled`.
  void fragLoop(bool rolled, int64_t n, function_ref<void(Value)> body) {
    if (rolled) {
      forLoop(idx(0), idx(n), idx(1), body);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      body(idx(i));
  }
  /// The input type rounding of an A fragment element: the input type, or
  /// f32 holding exactly such a value when emulated (the emulation needs no
  /// 16-bit arithmetic on the target).
  Value round(Value x) {
    Value r = arith::TruncFOp::create(b, in, x);
    return emulate ? Value(arith::ExtFOp::create(b, f32, r)) : r;
  }

  AttentionOp op;
  bool emulate;
  /// Workgroup-memory stages of the K/V tiles: 2 (the next tile's copies
  /// overlap this tile's mma.sync) or 1.
  int64_t stages;
  /// The input type (f16 or bf16).
  Type in;
};

void MMAAttentionBuilder::emulatedMma(const MmaLanes &lanes,
                                      function_ref<Value(int64_t, int64_t)> a,
                                      function_ref<Value(int64_t, int64_t)> bOp,
                                      Value acc, Value accBase) {
  auto accAt = [&](int64_t i, int64_t j) {
    return addi(accBase, idx(2 * i + j));
  };
  // The PTX fragment layouts of m16n8k16 (g = lane / 4, t = lane % 4):
  //   A (16 x 16, row major)  a_{2i+j}: row g + 8 (i % 2), col 2t + 8 (i / 2)
  //   + j B (16 x 8, k x n)       b_{2i+j}: row 2t + 8 i + j,   col g C, D
  //   (16 x 8)           c_{2i+j}: row g + 8 i,        col 2t + j
  // Each lane writes its A and B elements to its warp's tiles in workgroup
  // memory and computes its own C elements from them.
  Value g = lanes.group, t = lanes.quad, w = lanes.warp;
  auto toF32 = [&](Value x) -> Value {
    return x.getType() == f32 ? x : arith::ExtFOp::create(b, f32, x);
  };
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(
          b, toF32(a(i, j)), lanes.ea,
          ValueRange{w, addi(g, idx(8 * (i % 2))),
                     addi(muli(t, idx(2)), idx(8 * (i / 2) + j))});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(
          b, toF32(bOp(i, j)), lanes.eb,
          ValueRange{w, addi(muli(t, idx(2)), idx(8 * i + j)), g});
  gpu::BarrierOp::create(b);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value row = addi(g, idx(8 * i)), col = addi(muli(t, idx(2)), idx(j));
      Value c = memref::LoadOp::create(b, acc, ValueRange{accAt(i, j)});
      auto dot = scf::ForOp::create(
          b, idx(0), idx(16), idx(1), ValueRange{c},
          [&](OpBuilder &ob, Location, Value k, ValueRange sum) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
            Value x =
                memref::LoadOp::create(b, lanes.ea, ValueRange{w, row, k});
            Value y =
                memref::LoadOp::create(b, lanes.eb, ValueRange{w, k, col});
            scf::YieldOp::create(
                b, ValueRange{math::FmaOp::create(b, x, y, sum[0])});
          });
      memref::StoreOp::create(b, dot.getResult(0), acc,
                              ValueRange{accAt(i, j)});
    }
  // Nobody writes the next operands before every lane has read these.
  gpu::BarrierOp::create(b);
}

void MMAAttentionBuilder::mma(const MmaLanes &lanes,
                              function_ref<Value(int64_t, int64_t)> a,
                              function_ref<Value(int64_t, int64_t)> bOp,
                              Value acc, Value accBase) {
  if (lanes.emulate)
    return emulatedMma(lanes, a, bOp, acc, accBase);
  auto accAt = [&](int64_t i, int64_t j) {
    return addi(accBase, idx(2 * i + j));
  };
  Type in = lanes.input;
  SmallVector<Value> cs;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      cs.push_back(memref::LoadOp::create(b, acc, ValueRange{accAt(i, j)}));
  SmallVector<Value> ds;
  if (in.isF16()) {
    // nvgpu.mma.sync on the fragment vectors.
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 2; ++j)
        as.push_back(a(i, j));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        bs.push_back(bOp(i, j));
    Value av =
        vector::FromElementsOp::create(b, VectorType::get({4, 2}, in), as);
    Value bv =
        vector::FromElementsOp::create(b, VectorType::get({2, 2}, in), bs);
    Value cv =
        vector::FromElementsOp::create(b, VectorType::get({2, 2}, f32), cs);
    Value dv =
        nvgpu::MmaSyncOp::create(b, av, bv, cv, ArrayRef<int64_t>{16, 8, 16});
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        ds.push_back(vector::ExtractOp::create(b, dv, ArrayRef<int64_t>{i, j}));
  } else {
    // bf16: MLIR 22's nvgpu.mma.sync lowering cannot type bf16 operands
    // ("failed to deduce operand PTX types"), so nvvm.mma.sync directly,
    // each pair of bf16 packed into an i32 register.
    auto pack = [&](Value x, Value y) -> Value {
      Value pair =
          vector::FromElementsOp::create(b, VectorType::get({2}, in), {x, y});
      return LLVM::BitcastOp::create(b, b.getI32Type(), pair);
    };
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < 4; ++i)
      as.push_back(pack(a(i, 0), a(i, 1)));
    for (int64_t i = 0; i < 2; ++i)
      bs.push_back(pack(bOp(i, 0), bOp(i, 1)));
    Type result = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                   SmallVector<Type>(4, f32));
    Value d =
        NVVM::MmaOp::create(b, result, as, bs, cs, ArrayRef<int64_t>{16, 8, 16},
                            std::nullopt, std::nullopt,
                            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                                          NVVM::MMATypes::bf16},
                            std::array<NVVM::MMALayout, 2>{
                                NVVM::MMALayout::row, NVVM::MMALayout::col});
    for (int64_t e = 0; e < 4; ++e)
      ds.push_back(LLVM::ExtractValueOp::create(b, d, ArrayRef<int64_t>{e}));
  }
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      memref::StoreOp::create(b, ds[2 * i + j], acc, ValueRange{accAt(i, j)});
}

Value MMAAttentionBuilder::shuffleXor(const MmaLanes &lanes, Value v,
                                      int64_t mask) {
  if (!lanes.emulate) {
    Value offset = arith::ConstantOp::create(b, b.getI32IntegerAttr(mask));
    Value width = arith::ConstantOp::create(b, b.getI32IntegerAttr(kWarpLanes));
    return gpu::ShuffleOp::create(b, v, offset, width, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  // Through workgroup memory, with the warp's lanes as the block's threads
  // 32 w .. 32 w + 31 (whatever the target's subgroup size).
  memref::StoreOp::create(b, v, lanes.ex, ValueRange{lanes.tid});
  gpu::BarrierOp::create(b);
  Value other = arith::XOrIOp::create(b, lanes.tid, idx(mask));
  Value r = memref::LoadOp::create(b, lanes.ex, ValueRange{other});
  gpu::BarrierOp::create(b);
  return r;
}

std::array<Value, 4> MMAAttentionBuilder::ldmatrix(const MmaLanes &lanes,
                                                   Value buf, Value row,
                                                   Value col, bool trans) {
  std::array<Value, 4> frag;
  if (!lanes.emulate) {
    Value m = nvgpu::LdMatrixOp::create(
        b, VectorType::get({2, 2}, lanes.input), buf, ValueRange{row, col},
        b.getBoolAttr(trans), b.getI32IntegerAttr(2));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        frag[2 * i + j] =
            vector::ExtractOp::create(b, m, ArrayRef<int64_t>{i, j});
    return frag;
  }
  // Each lane publishes its row address; the lane of matrix i's row r
  // (lane 8 i + r of the warp) gives the row every receiving lane reads.
  int64_t cols = cast<MemRefType>(buf.getType()).getDimSize(1);
  Value flat = addi(muli(row, idx(cols)), col);
  memref::StoreOp::create(b,
                          arith::IndexCastOp::create(b, b.getI32Type(), flat),
                          lanes.ei, ValueRange{lanes.tid});
  gpu::BarrierOp::create(b);
  Value warpBase = muli(lanes.warp, idx(kWarpLanes));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      Value r = trans ? addi(muli(lanes.quad, idx(2)), idx(j)) : lanes.group;
      Value e = trans ? lanes.group : addi(muli(lanes.quad, idx(2)), idx(j));
      Value from = addi(warpBase, addi(idx(8 * i), r));
      Value addr = arith::IndexCastOp::create(
          b, b.getIndexType(),
          memref::LoadOp::create(b, lanes.ei, ValueRange{from}));
      frag[2 * i + j] = memref::LoadOp::create(
          b, buf,
          ValueRange{divui(addr, idx(cols)), addi(remui(addr, idx(cols)), e)});
    }
  // Nobody publishes the next addresses before every lane has read these.
  gpu::BarrierOp::create(b);
  return frag;
}

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

void MMAAttentionBuilder::copyKeyTile(const AttentionHost &host, const Lane &l,
                                      Value tile, Value stage) {
  int64_t bk = options.keyTile, threads = kMmaWarps * kWarpLanes;
  Value j0 = muli(tile, idx(bk));
  Value row0 = muli(stage, idx(bk));
  if (emulate) {
    // Plain loads and stores, element by element, into the same swizzled
    // places.
    Value zero = cf(0.0);
    auto copyTile = [&](Value dst, Value src, int64_t channels) {
      forLoop(l.lanes.tid, idx(bk * channels), idx(threads), [&](Value e) {
        Value rr = divui(e, idx(channels)), c = remui(e, idx(channels));
        Value j = addi(j0, rr);
        Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
        Value jSafe = select(valid, j, idx(0));
        Value start = rowStart(host, l.bIdx, l.kvh, jSafe, host.kvHeads,
                               l.tkAll, channels);
        Value x = select(valid, loadF32(src, addi(start, c)), zero);
        Value row = addi(row0, rr);
        memref::StoreOp::create(b, arith::TruncFOp::create(b, in, x), dst,
                                ValueRange{row, swizzle(row, c, channels)});
      });
    };
    copyTile(l.ks, host.k, host.d);
    copyTile(l.vs, host.v, host.dv);
    return;
  }
  // 16 bytes (8 elements of the 16-bit input type) per cp.async; D and Dv
  // are multiples of 16, so a row is whole chunks, and the threads take
  // consecutive chunks. A key past L[b] reads 0 bytes (of a valid address)
  // and zero-fills its chunk.
  constexpr int64_t kChunk = 8;
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  auto copyTile = [&](Value dst, Value src, int64_t channels) {
    int64_t perRow = channels / kChunk, chunks = bk * perRow;
    for (int64_t e = 0, n = llvm::divideCeilSigned(chunks, threads); e < n;
         ++e) {
      Value chunk = addi(l.lanes.tid, idx(e * threads));
      auto copyChunk = [&] {
        Value rr = divui(chunk, idx(perRow));
        Value c = muli(remui(chunk, idx(perRow)), idx(kChunk));
        Value j = addi(j0, rr);
        Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
        Value jSafe = select(valid, j, idx(0));
        Value start = rowStart(host, l.bIdx, l.kvh, jSafe, host.kvHeads,
                               l.tkAll, channels);
        Value row = addi(row0, rr);
        nvgpu::DeviceAsyncCopyOp::create(
            b, tokenType, dst, ValueRange{row, swizzle(row, c, channels)}, src,
            ValueRange{addi(start, c)}, b.getIndexAttr(kChunk),
            select(valid, idx(kChunk), idx(0)), b.getUnitAttr());
      };
      if (chunks % threads == 0 || (e + 1) * threads <= chunks)
        copyChunk();
      else
        ifThen(cmpi(arith::CmpIPredicate::ult, chunk, idx(chunks)), copyChunk);
    }
  };
  copyTile(l.ks, host.k, host.d);
  copyTile(l.vs, host.v, host.dv);
  NVVM::CpAsyncCommitGroupOp::create(b);
}

void MMAAttentionBuilder::waitKeyTile() {
  if (!emulate)
    NVVM::CpAsyncWaitGroupOp::create(b, uint32_t{0});
}

void MMAAttentionBuilder::rotateStagedKeys(const AttentionHost &host,
                                           const Lane &l, Value j0,
                                           Value row0) {
  // The rotation of the synchronous staging (stageTile), on the copied
  // input-type values: the same f32 arithmetic and one rounding.
  int64_t pairs = rotary / 2, bk = options.keyTile;
  Value zero = cf(0.0);
  forLoop(l.lanes.tid, idx(bk * pairs), idx(kMmaWarps * kWarpLanes),
          [&](Value e) {
            Value rr = divui(e, idx(pairs)), p = remui(e, idx(pairs));
            Value j = addi(j0, rr);
            Value valid = cmpi(arith::CmpIPredicate::slt, j, l.tk);
            Value jSafe = select(valid, j, idx(0));
            Value row = addi(row0, rr);
            auto load = [&](Value c) -> Value {
              Value x = memref::LoadOp::create(
                  b, l.ks, ValueRange{row, swizzle(row, c, host.d)});
              return arith::ExtFOp::create(b, f32, x);
            };
            rotatePair(
                load, ropeRow(host.kBatched, l.bIdx, jSafe, l.tkAll), p,
                host.kCos, host.kSin, [&](Value y0, Value y1) {
                  auto store = [&](Value y, Value c) {
                    Value x =
                        arith::TruncFOp::create(b, in, select(valid, y, zero));
                    memref::StoreOp::create(
                        b, x, l.ks, ValueRange{row, swizzle(row, c, host.d)});
                  };
                  auto [c0, c1] = pairChannels(p);
                  store(y0, c0);
                  store(y1, c1);
                });
          });
}

std::array<Value, 4> MMAAttentionBuilder::emitKeyTile(const AttentionHost &host,
                                                      const Lane &l, Value tile,
                                                      Value row0,
                                                      ValueRange state) {
  Value j0 = muli(tile, idx(options.keyTile));
  emitScores(host, l, j0, row0);
  TileSoftmax softmax = emitSoftmax(l, state);
  Value lNew[2];
  for (int64_t half = 0; half < 2; ++half)
    lNew[half] =
        addf(mulf(state[2 + half], softmax.alpha[half]),
             memref::LoadOp::create(b, l.stat, ValueRange{idx(2 + half)}));
  emitPV(host, l, row0, softmax);
  return {softmax.mNew[0], softmax.mNew[1], lNew[0], lNew[1]};
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
