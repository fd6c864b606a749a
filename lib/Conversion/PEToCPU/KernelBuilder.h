//===- KernelBuilder.h - builder of the generated CPU kernels ---*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The state and the building blocks shared by the kernels of
// convert-pe-to-vector (one file per kernel: AttentionPrefill.cpp,
// AttentionDecode.cpp, Rope.cpp, Sinusoidal.cpp): constants, vector math
// (VectorBuilder.cpp), the RoPE tables and rotation (RopeTables.cpp), the
// attention prologue, bias and mask loads (AttentionPrologue.cpp) and the
// packing of queries, keys and values (AttentionPacking.cpp). Private to
// lib/Conversion/PEToCPU.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CONVERSION_PETOCPU_KERNELBUILDER_H
#define PE_LIB_CONVERSION_PETOCPU_KERNELBUILDER_H

#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/Conversion/PEToCPU/PEToVector.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace pe {
struct PEToVectorOptions;
namespace cpu {

/// The remark category of the kernels (the pass's flag).
constexpr StringLiteral kRemarkCategory = "convert-pe-to-vector";

/// Query rows per register tile, and key/query block sizes. The vector
/// width (f32 lanes) comes from the target (CPUTarget::f32Lanes: 16 for
/// AVX-512, 8 for AVX2, 4 for SSE and NEON).
constexpr int64_t kRows = 4;
constexpr int64_t kBlock = 64;
/// Query rows per block: the rows that share one pass over the packed keys.
constexpr int64_t kQBlock = 64;
/// Softmax terms exp(x) with x below this are flushed to zero.
constexpr double kExpCutoff = -64.0;
/// log2(e) and ln(2): the prefill kernel keeps scores in base 2 (see
/// KernelBuilder::base2).
constexpr double kLog2E = 1.44269504088896340736;
constexpr double kLn2 = 0.69314718055994530942;
/// Results of the RoPE and sinusoidal kernels of at least this many bytes
/// are written with non-temporal (streaming) stores: they exceed the
/// last-level cache of the target class (32 MiB L3), so no consumer finds
/// them there, and a plain store would first read each line it writes
/// (read-for-ownership), a third memory stream.
constexpr int64_t kStreamingStoreBytes = int64_t(32) << 20;
/// Parallel tasks the RoPE kernel aims for: enough to balance the threads.
constexpr int64_t kMinTasks = 16;
/// The sinusoidal kernel rotates each 64-token block's first row to the
/// next rows by the angle-addition formulas when every angle p * w of the
/// block is at most this: the angle p w differs from the f64 angle fl(p w)
/// of the op's semantics by at most 2^20 2^-53, about 1e-10, far below the
/// f32 rounding of the result.
constexpr double kRecurrenceMaxAngle = 1048576.0;
/// Heads (leading rows) the RoPE kernel rotates per pass over a token block:
/// each token's cos/sin vectors are loaded once and serve the group's rows
/// from registers. One head per pass reloaded the block's table (32 KiB for
/// 128 channels) from the L1 or L2 for every head, between the streams'
/// loads; all heads per pass make too many streams for the prefetchers.
constexpr int64_t kRopeHeadGroup = 8;
/// Rows the sinusoidal recurrence advances per pass over a row's channels.
constexpr int64_t kRecurrenceRows = 8;
/// Tokens per parallel task of the sinusoidal kernel on large static shapes.
/// A task evaluates its first row directly (a reduction and two polynomials
/// per pair, the cost of about 3 rows by angle addition), so longer tasks
/// evaluate fewer rows directly: 1 in 256 instead of 1 in 64.
constexpr int64_t kSinusoidalTaskRows = 256;
/// Fast-math flags of the softmax reductions: reassociation (shuffle-tree
/// reductions), but neither NaNs nor infinities are assumed away: masked
/// scores are -inf, and a NaN or infinity in Q, K or the bias must reach the
/// rows whose scores it enters, as in the reference lowering (the maxima
/// are maxnum, which skips a NaN; the NaN then reaches the row through
/// exp and the sum).
constexpr arith::FastMathFlags kFast = arith::FastMathFlags::reassoc |
                                       arith::FastMathFlags::nsz |
                                       arith::FastMathFlags::contract;

/// Why an attention cannot use the generated kernel (empty if it can). Any
/// head dimension up to 512 can: a last, partial vector of channels is read
/// and written with masks.
std::string unsupportedReason(AttentionOp op);

/// Why a bf16 attention (bf16 query, key and value) does not get the bf16
/// dot-product kernel on `target`; empty when it does.
std::string bf16DotReason(const CPUTarget &target, AttentionOp op, bool decode);

/// Points `b` at the insertion point of a nested body builder for the
/// lifetime of the scope (restoring it afterwards).
struct Scope {
  OpBuilder::InsertionGuard guard;
  Scope(ImplicitLocOpBuilder &b, OpBuilder &body) : guard(b) {
    b.setInsertionPoint(body.getInsertionBlock(), body.getInsertionPoint());
  }
};

/// Emits the kernel for one attention op.
class KernelBuilder {
public:
  /// An attention kernel on vectors of `lanes` f32 lanes, built with a copy
  /// of `builder` (its insertion point and listener: a rewriter's listener
  /// is told of every op the kernel creates).
  KernelBuilder(AttentionOp op, OpBuilder &builder, int64_t lanes);
  /// Limits the attention kernels' register tiles to `accumulators` vector
  /// accumulators (CPUTarget::accumulatorVectors): the prefill kernel's
  /// 4-row score tile passes over a key block in column chunks of at most
  /// that many vectors, and the P V chunk of value columns shrinks to fit;
  /// the decode kernel's key-block products take fewer keys per step.
  void limitRegisterTile(int64_t accumulators);
  /// A standalone rotation (buildRope).
  KernelBuilder(RopeOp op, OpBuilder &builder, int64_t lanes)
      : KernelBuilder(op, builder, op.getInput(), op.getRotation(), lanes) {
    qOff = {static_cast<int64_t>(op.getStaticOffset()), op.getOffset()};
    rope = op;
    qPosTensor = op.getPositions();
  }
  /// A standalone sinusoidal encoding (buildSinusoidal).
  KernelBuilder(AddSinusoidalOp op, OpBuilder &builder, int64_t lanes)
      : KernelBuilder(op, builder, op.getInput(), std::nullopt, lanes) {}

  /// Decode kernel: how far ahead of the key or value row in use the cache
  /// rows are prefetched, in bytes; 0: no software prefetch.
  int64_t decodePrefetchBytes = 0;
  /// Decode kernel: a pass over the K or V cache prefetches only if it runs
  /// at least this many vector operations per 64-byte line it reads (see
  /// opsPerLine in the decode kernel).
  int64_t decodePrefetchMinOps = 0;
  /// Decode kernel: a pass that prefetches does so into the L2 if it runs at
  /// least this many vector operations per 64-byte line, else into the L1.
  int64_t decodePrefetchL2MinOps = 0;
  /// Attention kernels: how many bytes of one task's scratch buffers may go
  /// on the stack (see scratch()); 0: all on the heap.
  int64_t stackScratchBytes = 0;

  /// What both attention kernels start with: the operands as memrefs, the
  /// result buffer, the cos/sin tables of the query and key positions, and
  /// the ALiBi slopes.
  struct Prologue {
    Value qMem, kMem, vMem, out;  // [B, heads, T, D] views
    Value outBuffer;              // the result's buffer, in the op's layout
    Value qCos, qSin, kCos, kSin; // null without RoPE (kCos: query_only)
    Value slopes;                 // null without ALiBi
    Value lengths;                // kv_lengths as a memref, or null
    Value lseBuffer;              // [B, H, Tq] f32 for the lse result, or null
    Value causalOffset;           // the causal_offset operand, or 0
    Value bias;                   // the bias as a memref (rank 2-4), or null
    Value mask;                   // the i1 mask as a memref, or null
  };
  /// L[b]: the valid keys of batch `bIdx` (kv_lengths clamped to [0, tk]),
  /// or `tk`.
  Value validKeys(const Prologue &pr, Value bIdx, Value tk);
  /// o[b]: the causal offset (the key column of query row 0's position).
  Value causalShift(const Prologue &pr, Value validKeys, Value tq);
  /// Emits the prologue; `singleQuery` for the decode kernel (Tq = 1).
  Prologue buildPrologue(bool singleQuery);

  /// The score modifications of the op, in its order: softcap (before the
  /// bias), ALiBi `slope * distance(q, j)`, softcap (after the bias). All
  /// operands are f32 scalars, or all are 16-lane vectors.
  Value modifyScore(Value s, Value q, Value j, Value slope);
  /// The explicit bias of query row `i` (of `tq`, clamped) of head `hIdx` of
  /// batch `bIdx` for keys j0 + c * 16 ..., as an f32 vector: a masked load
  /// of the keys below `tk` (zeros beyond), or a splat where the bias
  /// broadcasts along the keys; numpy-style broadcasting of the other
  /// dimensions by index 0.
  Value loadBias(Value bias, Value bIdx, Value hIdx, Value i, Value j,
                 Value keysLeft);
  /// The explicit mask (true = may attend; its i8 copy, see buildPrologue)
  /// of the same row and keys as a vector<16xi1>: a masked byte vector load
  /// (keys past `tk` read as 0, masked anyway), or a splat where it
  /// broadcasts along the keys.
  Value loadMask(Value mask, Value bIdx, Value hIdx, Value i, Value j,
                 Value keysLeft);

  /// The attention kernel.
  Value build();
  /// Makes build() form Q K^T and P V with bf16 dot products (the caller
  /// checked that query, key and value are bf16 and the target has them).
  void setBf16Dot(bool on) { bf16Dot = on; }
  /// Takes the kernel options of `options` (the decode prefetch and stack
  /// scratch budgets).
  void setOptions(const PEToVectorOptions &options);
  /// With bf16 query and key: bf16 dot products where `target` has them
  /// (setBf16Dot), else a missed remark (`bf16-dot`) saying why; `decode`
  /// for the decode kernel, which never uses them.
  void chooseBf16Dot(const CPUTarget &target, bool decode);
  /// Replaces the attention op by `result` (of build() or buildDecode())
  /// and the lse tensor.
  void replaceAttention(PatternRewriter &rewriter, Value result);
  /// The lse result as a tensor, after build() or buildDecode() (null when
  /// the op has none).
  Value getLseTensor() const { return lseTensor; }
  /// Wraps the lse buffer of `pr` into `lseTensor`.
  void finishLse(const Prologue &pr) {
    if (pr.lseBuffer)
      lseTensor = bufferization::ToTensorOp::create(
          b, attn.getLse().getType(), pr.lseBuffer, /*restrict=*/true,
          /*writable=*/true);
  }
  /// The decode kernel (one query per head): no packing, a [group, Tk]
  /// score buffer (the maximum kept in the score pass, the exponentials
  /// taken in the P V pass), K and V each read once per KV head.
  Value buildDecode();
  /// One task of the decode kernel (batch bIdx, KV head kvh): its scratch
  /// buffers, key range and prefetch plan, filled in by buildDecode and
  /// decodeScratch; the softmax state by decodeSoftmaxPV.
  struct DecodeTask;
  /// The task's scratch buffers, their padding zeroed and the maxima at
  /// -inf.
  void decodeScratch(DecodeTask &t, Value tkAll);
  /// Head g's maximum raised to at least each lane of `sc`.
  void raiseMax(const DecodeTask &t, int64_t g, Value sc);
  /// Software prefetch of the cache rows decodePrefetchBytes ahead of the
  /// row in use: the rows that many bytes span.
  int64_t decodeRowsAhead(Value mem, int64_t width) const;
  /// One prefetch per 64-byte line of cache row `row` of `mem`.
  void prefetchLines(const DecodeTask &t, Value mem, Value row, int64_t width,
                     int64_t locality);
  /// The vector operations per 64-byte line that a pass over `mem` runs
  /// (`rotated`: its rows are rotated first).
  int64_t decodeOpsPerLine(Value mem, bool rotated) const;
  /// Whether a pass of `ops` operations per line prefetches (at least
  /// decodePrefetchMinOps), and the locality hint if it does.
  std::optional<int64_t> decodePrefetchOf(int64_t ops) const;
  /// The first decodePrefetchBytes of the rows [jLo, jHi) of `mem`,
  /// prefetched before a pass starts: the pass's own prefetch runs that far
  /// ahead, so the memory does not wait for the hardware prefetchers to
  /// find the new stream.
  void primeRows(const DecodeTask &t, Value mem, int64_t width,
                 std::optional<int64_t> locality);
  /// Prefetches the row decodePrefetchBytes ahead of key row j (clamped to
  /// the last row).
  void prefetchRow(const DecodeTask &t, Value mem, Value j, int64_t width,
                   std::optional<int64_t> locality);
  /// The group's queries, rotated and scaled, into qs.
  void decodeQueries(const DecodeTask &t);
  /// Vector c of head g's query (loaded where used).
  Value decodeQuery(const DecodeTask &t, int64_t g, int64_t c);
  /// The scores of keys [jLo, jHi): 16 at a time, then the last ones one at
  /// a time, each head's maximum kept as they go.
  void decodeScores(const DecodeTask &t);
  /// The products of keys [j0, j0 + 16) with the group's queries into dots.
  void decodeBlockDots(const DecodeTask &t, Value j0);
  /// The 16 scores per head of the key block at j0 from dots, modified,
  /// into sBuf.
  void decodeBlockScores(const DecodeTask &t, Value j0, Value iota64);
  /// The scores of key j for every head of the group.
  void decodeKeyScore(const DecodeTask &t, Value j);
  /// Softmax and O = P V / l of the task.
  void decodeSoftmaxPV(DecodeTask &t);
  /// Lanes j0 + i < jHi.
  Value decodeValidLanes(const DecodeTask &t, Value j0);
  /// P for keys [j0, j0 + 16) of every head, in place of the scores; their
  /// sums into lBuf.
  void decodeExpBlock(const DecodeTask &t, Value j0);
  /// 1 / l per head, once P V is done (0 when no key is visible); the lse.
  SmallVector<Value> decodeInverseSums(const DecodeTask &t);
  /// The P V loop over keys [j0, j1) for the chunk of value columns at e0
  /// (`withExp`: P for each next 16 keys taken at every 16th key).
  scf::ForOp decodePVLoop(const DecodeTask &t, Value j0, Value j1, int64_t e0,
                          ValueRange init, bool withExp);
  /// Vector c of head g's output row: `acc` times `inv`.
  void decodeStoreOut(const DecodeTask &t, int64_t g, int64_t c, Value acc,
                      Value inv);
  /// P V with several chunks of value columns: blocks of 64 keys, every
  /// chunk passing over a block, the accumulators kept in oBuf.
  void decodeChunkedPV(const DecodeTask &t);
  /// A standalone pe.rope (f32, f16 or bf16, computed in f32): `input`
  /// rotated at positions `qOff + t`, or by per-token cache rows.
  Value buildRope();
  /// A standalone pe.add_sinusoidal (f32, f16 or bf16; offset positions or
  /// a positions tensor).
  Value buildSinusoidal(AddSinusoidalOp op);
  /// buildSinusoidal's steps (Sinusoidal.cpp): the tables and buffers, the
  /// rows of a token block, a row evaluated directly, rows by recurrence.
  struct SinusoidalPlan;
  SinusoidalPlan planSinusoidal(AddSinusoidalOp op, Value &out);
  void sinusoidalBlock(const SinusoidalPlan &p, Value n, Value t0, Value t1,
                       bool streaming);
  void sinusoidalRow(const SinusoidalPlan &p, Value n, Value t, bool streaming);
  void sinusoidalRecurrence(const SinusoidalPlan &p, Value n, Value t0,
                            Value t1, Value pos0, bool streaming);
  /// Views a [..., T, C] memref as [N, T, C] (N = product of the leading
  /// dimensions, 1 for rank 2).
  Value view3d(Value m);
  /// Emits `body(n, t0, t1)` for every block of 64 tokens [t0, t1) of an
  /// [N, T, C] memref, in parallel over (n, blocks).
  void forEachBlock(Value x3, int64_t rows,
                    function_ref<void(Value n, Value t0, Value t1)> body);

private:
  KernelBuilder(Operation *op, OpBuilder &builder, Value input,
                std::optional<Rotation> rotation, int64_t lanes)
      : lanes(lanes), blockVecs(kBlock / lanes), scoreChunkVecs(blockVecs),
        input(input), rot(rotation),
        resultType(cast<RankedTensorType>(op->getResult(0).getType())),
        b(op->getLoc(), builder), f32(Float32Type::get(op->getContext())),
        f64(Float64Type::get(op->getContext())),
        vf(VectorType::get({lanes}, f32)),
        vbf(VectorType::get({2 * lanes}, BFloat16Type::get(op->getContext()))) {
    auto type = cast<RankedTensorType>(input.getType());
    headDim = type.getDimSize(type.getRank() - 1);
    headPad = llvm::alignTo(headDim, lanes);
    rotary = rot ? rot->rotaryDim : 0;
  }

  // Scalar and vector constants.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cf(double v) {
    return arith::ConstantOp::create(b, b.getFloatAttr(f32, v));
  }
  Value vsplat(double v) {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vf, b.getFloatAttr(f32, v)));
  }
  /// The lane indices 0, 1, ..., 15 as a vector of `elementType` (f32
  /// unless given; an integer or float type).
  Value iota(Type elementType = {}) {
    if (!elementType)
      elementType = f32;
    SmallVector<Attribute> values;
    for (int64_t i = 0; i < lanes; ++i)
      values.push_back(isa<FloatType>(elementType)
                           ? Attribute(b.getFloatAttr(elementType, double(i)))
                           : Attribute(b.getIntegerAttr(elementType, i)));
    return arith::ConstantOp::create(
        b,
        DenseElementsAttr::get(VectorType::get({lanes}, elementType), values));
  }
  Value bcast(Value scalar) {
    return vector::BroadcastOp::create(b, vf, scalar);
  }
  /// A float vector of type `vt` from `mem` at `indices`; with a `mask`
  /// (tailMask, or a run-time mask), only its lanes, zeros in the others.
  Value loadVector(VectorType vt, Value mem, ValueRange indices,
                   Value mask = {}) {
    if (!mask)
      return vector::LoadOp::create(b, vt, mem, indices);
    Value zeros = arith::ConstantOp::create(
        b,
        DenseElementsAttr::get(vt, b.getFloatAttr(vt.getElementType(), 0.0)));
    return vector::MaskedLoadOp::create(b, vt, mem, indices, mask, zeros);
  }
  /// Loads 16 elements of `mem` (f32, f16 or bf16) as an f32 vector; with
  /// a `mask` (tailMask), only its lanes, zeros in the others.
  Value loadF32(Value mem, ValueRange indices, Value mask = {}) {
    Type et = cast<MemRefType>(mem.getType()).getElementType();
    Value v = loadVector(VectorType::get({lanes}, et), mem, indices, mask);
    return et == f32 ? v : Value(arith::ExtFOp::create(b, vf, v));
  }
  /// The lanes of a vector of `width` elements whose first `valid` exist (a
  /// row's last, partial vector) as a constant mask; null when all do.
  Value tailMask(int64_t valid, int64_t width) {
    if (valid >= width)
      return {};
    return vector::ConstantMaskOp::create(
        b, VectorType::get({width}, b.getI1Type()), ArrayRef<int64_t>{valid});
  }
  /// The mask of the vector at element `c` of a row of `end` elements
  /// (null unless the vector is the row's last, partial one).
  Value rowMask(int64_t c, int64_t end) { return tailMask(end - c, lanes); }
  /// Prefetches the cache line of `mem` at `indices` for reading, into the
  /// L2 (`prefetcht1` on x86), where a prefetch into the L1 would compete
  /// with the loads in use (the decode kernel picks per pass, see
  /// decodePrefetchL2MinOps).
  void prefetchToL2(Value mem, ValueRange indices) {
    prefetchRead(mem, indices, /*locality=*/2);
  }
  /// Prefetches the cache line of `mem` at `indices` for reading, with LLVM's
  /// locality hint (3: `prefetcht0` into the L1 on x86, 2: `prefetcht1`).
  void prefetchRead(Value mem, ValueRange indices, int64_t locality) {
    memref::PrefetchOp::create(b, mem, indices, /*isWrite=*/false, locality,
                               /*isDataCache=*/true);
  }
  /// Stores an f32 vector into `mem`, rounding to its element type; with a
  /// `mask` (tailMask), only its lanes.
  void storeFromF32(Value v, Value mem, ValueRange indices, Value mask = {}) {
    Type et = cast<MemRefType>(mem.getType()).getElementType();
    if (et != f32)
      v = arith::TruncFOp::create(b, VectorType::get({lanes}, et), v);
    storeVector(v, mem, indices, /*streaming=*/false, mask);
  }
  Value indexToF32(Value i) {
    Value i64v = arith::IndexCastOp::create(b, b.getI64Type(), i);
    return arith::SIToFPOp::create(b, f32, i64v);
  }
  Value toIndex(Value v) {
    return v.getType().isIndex()
               ? v
               : Value(arith::IndexCastOp::create(b, b.getIndexType(), v));
  }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  /// The ALiBi slope of head `h` as an f32 (the table may be f64).
  Value slopeOf(Value slopes, Value h) {
    Value s = tensor::ExtractOp::create(b, slopes, ValueRange{h});
    return s.getType() == f32 ? s : Value(arith::TruncFOp::create(b, f32, s));
  }
  Value muli(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value dim(Value memref, int64_t i) {
    return memref::DimOp::create(b, memref, i);
  }
  Value alloc(ArrayRef<int64_t> shape, ValueRange dynamicSizes) {
    auto type = MemRefType::get(shape, f32);
    return memref::AllocOp::create(b, type, dynamicSizes,
                                   b.getI64IntegerAttr(64));
  }
  /// A 64-byte aligned buffer of element type `et`.
  Value allocOf(Type et, ArrayRef<int64_t> shape, ValueRange dynamicSizes) {
    return memref::AllocOp::create(b, MemRefType::get(shape, et), dynamicSizes,
                                   b.getI64IntegerAttr(64));
  }
  /// A task's scratch buffer (64-byte aligned, element type `et`): on the
  /// stack (memref.alloca, released at the end of the task's
  /// memref.alloca_scope, see beginTask) when its shape is static and it
  /// fits in what is left of the task's stackScratchBytes, else on the heap
  /// (allocOf). A heap allocation per buffer and task costs a
  /// malloc and a free, whose bookkeeping is cold in a call that finds the
  /// caches cold.
  Value scratch(Type et, ArrayRef<int64_t> shape, ValueRange dynamicSizes);
  Value scratch(ArrayRef<int64_t> shape, ValueRange dynamicSizes) {
    return scratch(f32, shape, dynamicSizes);
  }
  /// Starts one task of a kernel's scf.parallel: a memref.alloca_scope to
  /// build the task in, so that its stack scratch is released when the task
  /// ends however scf.parallel is lowered, and a fresh stack budget.
  void beginTask();
  /// Ends the task's memref.alloca_scope; building continues after it.
  void endTask();
  /// The stack bytes of scratch() taken in the current task.
  int64_t stackScratchUsed = 0;
  /// Where building continues after the current task's alloca_scope.
  OpBuilder::InsertPoint afterTask;
  // bf16 pairs for the dot-product kernel (bf16Dot).
  /// An f32 vector rounded to bf16 (to nearest even).
  Value toBf16(Value v) {
    return arith::TruncFOp::create(b, VectorType::get({lanes}, b.getBF16Type()),
                                   v);
  }
  /// 16 lanes of `lo` and 16 of `hi` interleaved: [lo0 hi0 lo1 hi1 ...].
  Value interleave(Value lo, Value hi) {
    SmallVector<int64_t> mask;
    for (int64_t i = 0; i < lanes; ++i) {
      mask.push_back(i);
      mask.push_back(i + lanes);
    }
    return vector::ShuffleOp::create(b, lo, hi, mask);
  }
  /// An f32 vector rounded to bf16, as 8 i32 lanes of bf16 pairs.
  Value toBf16Pairs(Value v) {
    return vector::BitCastOp::create(
        b, VectorType::get({lanes / 2}, b.getI32Type()), toBf16(v));
  }
  /// The bf16 pair at `indices` of an i32 buffer, broadcast to 32 lanes.
  Value bcastPair(Value mem, ValueRange indices) {
    Value pair = memref::LoadOp::create(b, mem, indices);
    Value v = vector::BroadcastOp::create(
        b, VectorType::get({lanes}, b.getI32Type()), pair);
    return vector::BitCastOp::create(b, vbf, v);
  }
  /// acc + the products of the bf16 pairs of `x` and `y` (vdpbf16ps).
  Value dotBf16(Value acc, Value x, Value y) {
    return x86vector::DotBF16Op::create(b, vf, acc, x, y);
  }
  Value offsetValue(PositionOffset offset) {
    Value off = idx(offset.staticOffset);
    return offset.dynamicOffset
               ? saturatingAdd(off, toIndex(offset.dynamicOffset))
               : off;
  }
  /// `nonNegative + other` saturated at INT64_MAX instead of wrapping, as the
  /// reference lowering forms positions (a wrapped position would read
  /// cache row 0 instead of the clamped last row). With one term >= 0 the sum
  /// overflows only upwards, and exactly when it is less than the other.
  Value saturatingAdd(Value nonNegative, Value other) {
    Value sum = addi(nonNegative, other);
    Value wrapped =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, sum, other);
    return arith::SelectOp::create(
        b, wrapped, idx(std::numeric_limits<int64_t>::max()), sum);
  }

  /// An i1, true when `mem` holds at least kStreamingStoreBytes (a constant
  /// for a static shape).
  Value isLarge(Value mem) {
    auto type = cast<MemRefType>(mem.getType());
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    if (type.hasStaticShape())
      return arith::ConstantOp::create(
          b,
          b.getBoolAttr(bytes * type.getNumElements() >= kStreamingStoreBytes));
    Value n = idx(bytes);
    for (int64_t i = 0; i < type.getRank(); ++i)
      n = muli(n, dim(mem, i));
    return arith::CmpIOp::create(b, arith::CmpIPredicate::sge, n,
                                 idx(kStreamingStoreBytes));
  }
  /// Emits `body(streaming)`: once when `large` is a constant, else both
  /// versions under an scf.if on it.
  void withStreaming(Value large, function_ref<void(bool)> body) {
    if (std::optional<int64_t> c = getConstantIntValue(large)) {
      body(*c != 0);
      return;
    }
    auto ifOp = scf::IfOp::create(b, large, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body(true);
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    body(false);
  }
  /// Stores a vector; a streaming store is non-temporal and 64-byte aligned
  /// (the kernels' own results: aligned buffers, rows of whole vectors).
  /// Streaming stores are weakly ordered: the kernels issue them inside
  /// `scf.parallel` only, whose end (the OpenMP barrier, locked
  /// instructions) orders them before any later read. With a `mask`
  /// (tailMask: a row's last, partial vector), only its lanes, never
  /// streaming.
  void storeVector(Value v, Value mem, ValueRange indices, bool streaming,
                   Value mask = {}) {
    if (mask)
      vector::MaskedStoreOp::create(b, mem, indices, mask, v);
    else if (streaming)
      vector::StoreOp::create(b, v, mem, indices, /*nontemporal=*/true,
                              llvm::MaybeAlign(64));
    else
      vector::StoreOp::create(b, v, mem, indices);
  }
  /// Stores `v` (an f32 vector, or one of `mem`'s element type) into `mem`,
  /// rounded to its element type: storeVector for an f32 `mem`; for f16 and
  /// bf16 the narrowed vector, a streaming store then aligned to its bytes.
  void storeNarrowed(Value v, Value mem, ValueRange indices, bool streaming,
                     Value mask = {}) {
    Type et = cast<MemRefType>(mem.getType()).getElementType();
    if (et == f32 && getElementTypeOrSelf(v.getType()) == f32) {
      storeVector(v, mem, indices, streaming, mask);
      return;
    }
    auto vt = VectorType::get({lanes}, et);
    if (v.getType() != vt)
      v = arith::TruncFOp::create(b, vt, v);
    if (mask)
      vector::MaskedStoreOp::create(b, mem, indices, mask, v);
    else if (streaming)
      vector::StoreOp::create(
          b, v, mem, indices, /*nontemporal=*/true,
          llvm::MaybeAlign(std::min<int64_t>(
              64, lanes * int64_t(et.getIntOrFloatBitWidth() / 8))));
    else
      vector::StoreOp::create(b, v, mem, indices);
  }
  /// Whether streaming stores into rows of `rowElements` elements of `mem`
  /// (f16 or bf16) can go two adjacent vectors at a time: a pair is at most
  /// 64 bytes and the rows are whole pairs (the buffer is 64-byte aligned),
  /// so a pair at an even vector of a row is aligned to its bytes.
  bool streamsPairs(Value mem, int64_t rowElements) const;
  /// Joins `lo` and `hi`, the vectors of two adjacent chunks (f32, or
  /// already of `mem`'s element type), rounds the pair once to `mem`'s
  /// element type and stores it with one non-temporal store aligned to its
  /// bytes at `indices` (an even vector of a row; see streamsPairs).
  void storeStreamingPair(Value lo, Value hi, Value mem, ValueRange indices);
  /// Streaming stores of f16/bf16 row chunks, two adjacent chunks at a time:
  /// `add` takes the f32 vector of channels [c, c + lanes) of a row; a chunk
  /// at an even multiple of `lanes` waits for its right neighbour, and the
  /// two are rounded and stored as one vector of 2 lanes elements (a whole
  /// register of 2 lanes x 2 bytes: 64 bytes on AVX-512, 32 on AVX2), where
  /// one vector per chunk is half a register and LLVM 22 lowers it on
  /// AVX-512 to a truncating store (vpmovdw to memory) without the
  /// non-temporal hint. The pair's store is aligned to its bytes, so pairs
  /// are formed only where rows and offsets are multiples of them; `flush`
  /// stores what is left one chunk at a time.
  class PairedStreamingStores {
  public:
    PairedStreamingStores(KernelBuilder &k, Value mem, ValueRange prefix,
                          int64_t rowElements)
        : k(k), mem(mem), prefix(prefix.begin(), prefix.end()),
          pairs(k.streamsPairs(mem, rowElements)) {}
    void add(Value v, int64_t c);
    void flush();

  private:
    KernelBuilder &k;
    Value mem;
    SmallVector<Value> prefix;
    bool pairs;
    SmallVector<std::pair<int64_t, Value>> pending;
  };
  /// An f64 vector rounded once to a vector of `et` (f32, f16 or bf16). To
  /// f16 and bf16 it goes through f32 rounded to odd (the f32 value
  /// truncated towards zero, its last bit set when inexact), which keeps the
  /// result that of one correct rounding: f32 has at least two more bits
  /// than either, also among the subnormals.
  Value narrowFromF64(Value v, Type et);
  /// Views a [d0, ..., T, ..., D] memref with tokens along `seqDim` as
  /// [A, T, M, D]: A the product of the dimensions before the tokens, M of
  /// those between them and the channels (1 when there are none).
  Value view4d(Value m, int64_t seqDim);
  /// The pe.rope kernel on [A, T, M, D] views (sequence_dim other than
  /// rank - 2, or per-token caches): tasks of (a, 64-token block), the
  /// block's table rows shared by the M rows of each token.
  Value buildRopeRows(RopeOp op, Value x, Value out);
  /// The cos/sin tables [rows, R/2] of the positions `offset + t`, or, with
  /// `positions` (a 1-D memref of i32/i64), `positions[first + t]`: one f64
  /// angle and one rounding to f32 per entry either way.
  /// With per-token caches ([B, T, R/2]), rows of batch `cacheBatch`.
  Value buildTables(Value rows, Value offset, Value &cosT,
                    Value positions = Value(), Value first = Value(),
                    Value cacheBatch = Value());
  struct RopeTablePlan;
  /// buildTables from cos/sin caches: each row gathered at its position.
  void gatherTables(const RopeTablePlan &p);
  /// buildTables from inverse frequencies: per vector of pairs from `i`,
  /// each row's angle evaluated, or row 0's followed by angle addition.
  void evaluateTableColumn(const RopeTablePlan &p, Value invFreq, Value i);
  /// sin(a + shift * pi/2) and cos(a + shift * pi/2) of an f64 vector, to
  /// about 1 ulp of f64: Cody-Waite reduction to [-pi/4, pi/4] (two FMAs with
  /// a two-term pi/2), fdlibm's kernel polynomials, quadrant selection.
  /// `shift` is an i64 vector of quarter turns, or null for none.
  std::pair<Value, Value> sinCos64(Value a, Value shift);
  /// exp of a 16-lane f32 vector of non-positive values (the softmax terms
  /// x - max): Cody-Waite reduction by ln 2 in two parts, Cephes' expf
  /// polynomial (about 1 ulp), 2^k through the exponent bits. About a third
  /// of the instructions of the general math.exp approximation.
  Value softmaxExp(Value x);
  /// 2^x of a 16-lane f32 vector of non-positive values (the softmax terms
  /// in base 2): k = round(x), r = x - k (exact, |r| <= 1/2), Cephes' exp2f
  /// polynomial of degree 6 for 2^r (about 1 ulp), 2^k through the exponent
  /// bits. Four operations fewer than softmaxExp: no multiply by log2(e),
  /// one-part reduction, no separate r^2.
  Value softmaxExp2(Value x);
  /// The softmax exponential of the prefill kernel: softmaxExp2 on base-2
  /// scores, else softmaxExp.
  Value scoreExp(Value x) { return base2 ? softmaxExp2(x) : softmaxExp(x); }
  /// The flush threshold kExpCutoff in the scores' units.
  double expCutoff() const { return base2 ? kExpCutoff * kLog2E : kExpCutoff; }
  /// r[i] = the sum of the lanes of a[i], for 16 vectors of 16 lanes: four
  /// levels that each add the two halves of every key's lanes of two
  /// vectors, shuffled into one (45 operations instead of 16 reductions).
  Value sumLanesOfEach(ArrayRef<Value> a);
  /// The halving levels of sumLanesOfEach down to `downTo` lanes per
  /// vector of `a` (a power of two count of vectors), each level joining
  /// two vectors' halves with `combine`.
  SmallVector<Value> foldLaneHalves(ArrayRef<Value> a, int64_t downTo,
                                    function_ref<Value(Value, Value)> combine);
  /// max(x, y) as x > y ? x : y (one vmaxps; maxnum would add NaN
  /// handling). A NaN lane may win or lose: the softmax does not depend on
  /// it (see blockStep).
  Value selectMax(Value x, Value y) {
    return arith::SelectOp::create(
        b, arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x, y), x, y);
  }
  /// Reduces each of kRows (4) vectors of 16 lanes with `combine`: lane
  /// 4r .. 4r + 3 of the result hold the reduction of a[r] (two levels that
  /// fold two vectors' halves into one, then two within 4-lane groups;
  /// 13 operations instead of 4 reductions).
  Value rowsOfLanes(ArrayRef<Value> a,
                    function_ref<Value(Value, Value)> combine);
  /// The lanes of one row in the row-state vectors of rowsOfLanes (4 with
  /// 16 lanes, 2 with 8, 1 with 4).
  int64_t rowLanes() const { return lanes / kRows; }
  /// v[4] -> row r in lanes r * rowLanes() ... (16 lanes: v0 v0 v0 v0 v1 ...).
  Value spreadRows(Value v4) {
    SmallVector<int64_t> m;
    for (int64_t i = 0; i < lanes; ++i)
      m.push_back(i / rowLanes());
    return vector::ShuffleOp::create(b, v4, v4, m);
  }
  /// The first lane of each row of a row-state vector, as a vector<4xf32>.
  Value firstOfRows(Value v) {
    SmallVector<int64_t> m;
    for (int64_t r = 0; r < kRows; ++r)
      m.push_back(r * rowLanes());
    return vector::ShuffleOp::create(b, v, v, m);
  }
  /// Lane `l` of `v` broadcast to 16 lanes.
  Value laneOf(Value v, int64_t l) {
    return vector::ShuffleOp::create(b, v, v, SmallVector<int64_t>(lanes, l));
  }
  void packKeys(Value kMem, Value kt, Value bIdx, Value kvHead, Value tk,
                Value cosT, Value sinT);
  void loadQueries(Value qMem, Value qs, Value bIdx, Value hIdx, Value q0,
                   Value tq, Value cosT, Value sinT, double mul);
  /// bf16Dot: Qs [64][D] f32 rounded to bf16 channel pairs qp [64][D/2] i32.
  void packQueryPairs(Value qs, Value qp);
  /// bf16Dot: the value head `kvHead` as key pairs Vp[Tk/2][Dv x 2] bf16
  /// (Vp[p][2e + t] = V[2p + t][e], zero past `tk`).
  void packValuePairs(Value vMem, Value vp, Value bIdx, Value kvHead, Value tk);
  /// The value head `kvHead`'s first `tk` rows as Vs[tk][valuePad] f32 (zero
  /// padding lanes): for a value operand whose rows are not adjacent (bshd),
  /// which P V would otherwise read a page apart, one cache set per row.
  void packValues(Value vMem, Value vs, Value bIdx, Value kvHead, Value tk);
  /// The raw scores S[4][16 vecs] of query rows r0.. of `qs` against the
  /// first 16 vecs keys of key block `kb` of `kt` (times the softmax scale
  /// with bf16Dot, where Qs is not scaled), as 4 vecs vectors, row-major.
  SmallVector<Value> scoreTile(Value qs, Value kt, Value kb, Value r0,
                               int64_t vecs);
  /// The columns c0 .. c0 + vecs - 1 (in vectors) of that tile, in one
  /// pass over the channels.
  SmallVector<Value> scoreTileColumns(Value qs, Value kt, Value kb, Value r0,
                                      int64_t c0, int64_t vecs);
  /// bf16Dot: one key pair step of O[4 rows, chunk at e0] += P V: the
  /// accumulators `acc` plus the dot products of the P pairs (column `jj`
  /// of pBuf) and value pair row `vRow` of Vp; yields the sums. With
  /// `skipZeroWeights`, a key of weight 0 contributes nothing (its value
  /// lanes are zeroed first, so a NaN there stays out of the row).
  void pvPairStep(Value vp, Value pBuf, Value vRow, Value jj, int64_t e0,
                  ValueRange acc, bool skipZeroWeights);
  /// The cos/sin vectors of one table row, as rotateRow applies them: per
  /// vector of channels, the cos and (signed, for interleaved pairs) sin.
  struct RopeRow {
    SmallVector<Value> cos, sin;
  };
  RopeRow loadRopeRow(Value pos, Value cosT, Value sinT);
  void rotateRow(Value src, ValueRange srcPrefix, Value dst,
                 ValueRange dstPrefix, const RopeRow &row, double mul,
                 bool streaming = false);
  void rotateRow(Value src, ValueRange srcPrefix, Value dst,
                 ValueRange dstPrefix, Value pos, Value cosT, Value sinT,
                 double mul, bool streaming = false) {
    rotateRow(src, srcPrefix, dst, dstPrefix, loadRopeRow(pos, cosT, sinT), mul,
              streaming);
  }
  /// One key block of one query block of the prefill kernel (blockStep):
  /// the operands, then what blockStep derives once per block.
  struct BlockStep;
  /// Emits the key block `s.kb` for the query block at `s.q0`: the scores
  /// of every group of 4 rows, then each group's softmax and P V.
  void blockStep(BlockStep &s);
  /// i + o for the last row of the group at row r0: the last key it may see
  /// when causal; minus W, the highest first key of the group's windows.
  Value lastRowLimit(const BlockStep &s, Value r0);
  /// S = Qs Kt of group `g` into sBuf; causal: only the 16-key vectors up
  /// to the group's last row's limit.
  void storeGroupScores(const BlockStep &s, Value g);
  /// Masks, online softmax and O = alpha O + P V of group `g`.
  void finishGroup(const BlockStep &s, Value g);
  /// The 4 rows' scores with softcap, ALiBi and explicit bias applied
  /// (`jFs`: the key positions of each vector as f32).
  SmallVector<Value> modifiedScores(const BlockStep &s, Value r0,
                                    ArrayRef<Value> scores,
                                    ArrayRef<Value> jFs);
  /// An i1: whether some key of the block may be masked for some row of the
  /// group at r0 (tail, causal, window, explicit bias or mask).
  Value needsMask(const BlockStep &s, Value r0);
  /// The scores `raw` with the tail, causal, window and explicit masks
  /// applied (-inf) where `needMask`, else unchanged.
  scf::IfOp maskScores(const BlockStep &s, Value r0, ArrayRef<Value> jFs,
                       ArrayRef<Value> raw, Value needMask);
  /// The online softmax of the 4 rows: P into pBuf, m and l updated; returns
  /// each row's rescale factor alpha.
  SmallVector<Value> onlineSoftmax(const BlockStep &s, Value r0,
                                   ValueRange masked);
  /// O[4 rows] = alpha O + P V over the block's keys, per chunk of value
  /// columns; `skipZeroWeights` in blocks with masked keys.
  void groupPV(const BlockStep &s, Value r0, ArrayRef<Value> alphas,
               bool skipZeroWeights);
  /// One key `jj` of the f32 P V loop: `acc` plus its weight times its
  /// value row chunk at e0; yields the sums.
  void pvStep(const BlockStep &s, Value jj, int64_t e0, ValueRange acc,
              bool skipZeroWeights);
  /// Row r of the query block at q0: O / l (0 for a row without any allowed
  /// key) into `out`, and the lse.
  void finishQueryRow(const Prologue &pr, const BlockStep &s, Value r);

  /// f32 lanes per vector (the target's vector width / 32; a power of two
  /// from 4 to 16), and the vectors of one 64-key row of a block.
  int64_t lanes, blockVecs;
  /// The vectors of a score-tile column chunk (limitRegisterTile).
  int64_t scoreChunkVecs;
  /// The vector accumulators a register tile may keep (limitRegisterTile).
  int64_t tileAccumulators = 16;
  AttentionOp attn; // null for the standalone kernels
  RopeOp rope;      // the standalone pe.rope (buildRope), or null
  Value lseTensor;  // the lse result, when the op has one
  Value biasMem;    // build(): the explicit bias as a memref, or null
  Value maskMem;    // build(): the explicit mask as a memref, or null
  Value input;      // the query, or the standalone kernel's input
  std::optional<Rotation> rot;
  PositionOffset qOff, kOff; // RoPE positions of the first query and key
  /// RoPE positions tensors ([T] or [B, T]) of the queries (the standalone
  /// kernel's tokens) and the keys, or null for the offsets above.
  Value qPosTensor, kPosTensor;
  /// A positions tensor as the kernels read it: `mem`, a 1-D memref of the
  /// positions (a [B, T] tensor flattened to [B * T]), and `rowsPerBatch`,
  /// T for a [B, T] tensor (null for [T]): table row of token t of batch b
  /// is `b * rowsPerBatch + t`, or `t`.
  struct PositionsMem {
    Value mem, rowsPerBatch;
  };
  PositionsMem qPos, kPos; // set by buildPrologue / buildRope
  PositionsMem positionsMem(Value positions);
  /// The table row of token `t` of batch `bIdx` (see PositionsMem).
  Value tableRow(const PositionsMem &p, Value bIdx, Value t) {
    return p.rowsPerBatch ? addi(muli(bIdx, p.rowsPerBatch), t) : t;
  }
  RankedTensorType resultType;
  ImplicitLocOpBuilder b;
  Type f32, f64;
  VectorType vf;
  int64_t heads = 0, group = 1, headDim, valueDim = 0, rotary, valueChunk = 16;
  /// The head and value dimensions rounded up to whole vectors: the rows of
  /// the kernels' own scratch buffers. The operands and the result are read
  /// and written in whole vectors up to the last partial one, which is a
  /// masked load (zeros beyond the row) or a masked store (see tailMask).
  int64_t headPad = 0, valuePad = 0;
  double scale = 1.0;
  bool bf16Dot = false;
  /// build(): the scores are kept times log2(e) (base 2), so that the
  /// softmax evaluates 2^x: the factor joins the softmax scale (on Q, or on
  /// S with bf16Dot), the ALiBi slope and the explicit bias; m is then in
  /// base 2 too (lse = m ln 2 + log l). Off with a softcap, whose tanh takes
  /// the natural-unit score.
  bool base2 = false;
  /// The factor that takes a natural-unit score to the kernel's units.
  double unit() const { return base2 ? kLog2E : 1.0; }
  VectorType vbf; // vector<32xbf16>: one register of bf16 pairs
};

/// The patterns of the kernels (populatePEToVectorPatterns adds all).
void populatePrefillAttentionPattern(RewritePatternSet &patterns,
                                     const PEToVectorOptions &options);
void populateDecodeAttentionPattern(RewritePatternSet &patterns,
                                    const PEToVectorOptions &options);
void populateRopePattern(RewritePatternSet &patterns,
                         const PEToVectorOptions &options);
void populateSinusoidalPattern(RewritePatternSet &patterns,
                               const PEToVectorOptions &options);

} // namespace cpu
} // namespace pe
} // namespace mlir

#endif // PE_LIB_CONVERSION_PETOCPU_KERNELBUILDER_H
