//===- PEToVector.cpp - generated CPU kernels for pe ops -------------===//
//
// Part of the pe-mlir project.
//
// Generates kernels in scf/vector/memref: a flash-attention kernel for each
// pe.attention without a bias or mask tensor (reading its encodings through
// the op's accessors),
// specialised at compile time for its encodings: RoPE layout, rotary
// dimension, frequency source, ALiBi distance, causal masking, softcap; a
// decode kernel for one query per head; and kernels for standalone pe.rope
// and pe.add_sinusoidal.
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
//                 over d (broadcast q, load Kt);
//           mask  softcap, ALiBi slope * distance, causal and tail masks,
//                 all from indices; online softmax of the 4 rows together
//                 (running max and sum, rescale factor alpha: one vector
//                 each) with fully masked rows kept at 0;
//           PV    O[4 rows, 64 columns] = alpha O + P V, 16 accumulators.
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

#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/OptionRanges.h"
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

#include <cmath>
#include <limits>

#define DEBUG_TYPE "convert-pe-to-vector"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOVECTOR
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

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

/// Why the rotation `r` has no vector code: caches must be f32. (Any even
/// rotary dimension is rotated in whole vectors of pairs and a masked last
/// one.)
std::string unsupportedRotationReason(const Rotation &r) {
  if (r.cosCache &&
      !cast<RankedTensorType>(r.cosCache.getType()).getElementType().isF32())
    return "cos/sin caches must be f32";
  return "";
}

/// Why an attention cannot use the generated kernel (empty if it can). Any
/// head dimension up to 512 can: a last, partial vector of channels is read
/// and written with masks.
std::string unsupportedReason(AttentionOp op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  auto v = op.getValue().getType();
  if (!q.getElementType().isF32() && !q.getElementType().isF16() &&
      !q.getElementType().isBF16())
    return "element type is not f32, f16 or bf16";
  if (q.isDynamicDim(op.getHeadsAxis()) || k.isDynamicDim(op.getHeadsAxis()))
    return "dynamic head counts";
  if (q.isDynamicDim(3) || v.isDynamicDim(3))
    return "dynamic head dimension";
  int64_t d = q.getDimSize(3), dv = v.getDimSize(3);
  if (d > 512 || dv > 512)
    return "head dimensions must be at most 512";
  std::optional<Rotation> rot = op.getRotation();
  return rot ? unsupportedRotationReason(*rot) : "";
}

/// Points `b` at the insertion point of a nested body builder for the
/// lifetime of the scope (restoring it afterwards).
struct Scope {
  OpBuilder::InsertionGuard guard;
  Scope(ImplicitLocOpBuilder &b, OpBuilder &body) : guard(b) {
    b.setInsertionPoint(body.getInsertionBlock(), body.getInsertionPoint());
  }
};

/// Why a pe.rope cannot use the generated kernel (empty if it can; any head
/// dimension and any even rotary dimension can).
std::string unsupportedRopeReason(RopeOp op) {
  auto type = op.getInput().getType();
  if (!type.getElementType().isF32())
    return "element type is not f32";
  if (op.getPositions())
    return "explicit positions tensor";
  if (op.hasPerTokenCaches())
    return "per-token cos/sin caches";
  if (op.getSequenceDimOrDefault() != type.getRank() - 2)
    return "tokens along a dimension other than -2 (sequence_dim)";
  return unsupportedRotationReason(op.getRotation());
}

/// Emits the kernel for one attention op.
class KernelBuilder {
public:
  /// An attention kernel on vectors of `lanes` f32 lanes.
  KernelBuilder(AttentionOp op, int64_t lanes)
      : KernelBuilder(op, op.getQuery(), op.getRotation(), lanes) {
    attn = op;
    qOff = op.getRopeQueryOffset();
    kOff = op.getRopeKeyOffset();
    auto q = op.getQuery().getType();
    heads = q.getDimSize(op.getHeadsAxis());
    group = heads / op.getKey().getType().getDimSize(op.getHeadsAxis());
    valueDim = op.getValue().getType().getDimSize(3);
    valuePad = llvm::alignTo(valueDim, lanes);
    scale = op.getScaleOrDefault();
    // The widest of 64, 32, 16, ... columns that divides the value row
    // padded to whole vectors (valuePad): a chunk never reaches past it.
    valueChunk = 64;
    while (valueChunk > lanes && valuePad % valueChunk != 0)
      valueChunk /= 2;
  }
  /// A standalone rotation (buildRope).
  KernelBuilder(RopeOp op, int64_t lanes)
      : KernelBuilder(op, op.getInput(), op.getRotation(), lanes) {
    qOff = {static_cast<int64_t>(op.getStaticOffset()), op.getOffset()};
  }
  /// A standalone sinusoidal encoding (buildSinusoidal).
  KernelBuilder(AddSinusoidalOp op, int64_t lanes)
      : KernelBuilder(op, op.getInput(), std::nullopt, lanes) {}

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
  /// A standalone pe.rope: `input` rotated at positions `qOff + t`.
  Value buildRope();
  /// A standalone pe.add_sinusoidal (f32, offset positions).
  Value buildSinusoidal(AddSinusoidalOp op);
  /// Views a [..., T, C] memref as [N, T, C] (N = product of the leading
  /// dimensions, 1 for rank 2).
  Value view3d(Value m);
  /// Emits `body(n, t0, t1)` for every block of 64 tokens [t0, t1) of an
  /// [N, T, C] memref, in parallel over (n, blocks).
  void forEachBlock(Value x3, int64_t rows,
                    function_ref<void(Value n, Value t0, Value t1)> body);

private:
  KernelBuilder(Operation *op, Value input, std::optional<Rotation> rotation,
                int64_t lanes)
      : lanes(lanes), blockVecs(kBlock / lanes), input(input), rot(rotation),
        resultType(cast<RankedTensorType>(op->getResult(0).getType())),
        b(op->getLoc(), op), f32(Float32Type::get(op->getContext())),
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
  Value buildTables(Value rows, Value offset, Value &cosT);
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
  /// The raw scores S[4][16 vecs] of query rows r0.. of `qs` against the
  /// first 16 vecs keys of key block `kb` of `kt` (times the softmax scale
  /// with bf16Dot, where Qs is not scaled), as 4 vecs vectors, row-major.
  SmallVector<Value> scoreTile(Value qs, Value kt, Value kb, Value r0,
                               int64_t vecs);
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
  void blockStep(Value qs, Value kt, Value vMem, Value os, Value sBuf,
                 Value pBuf, Value mBuf, Value lBuf, Value bIdx, Value hIdx,
                 Value q0, Value kb, Value tq, Value tk, Value shift,
                 Value alibiBase, Value slope);

  /// f32 lanes per vector (the target's vector width / 32; a power of two
  /// from 4 to 16), and the vectors of one 64-key row of a block.
  int64_t lanes, blockVecs;
  AttentionOp attn; // null for the standalone kernels
  Value lseTensor;  // the lse result, when the op has one
  Value biasMem;    // build(): the explicit bias as a memref, or null
  Value maskMem;    // build(): the explicit mask as a memref, or null
  Value input;      // the query, or the standalone kernel's input
  std::optional<Rotation> rot;
  PositionOffset qOff, kOff; // RoPE positions of the first query and key
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

/// Computes the cos and sin of every position `offset + t`, t < rows, for
/// each rotated pair, into two [rows, R/2] buffers (times the attention
/// scaling). Returns the sin table and sets `cosT`.
Value KernelBuilder::softmaxExp(Value x) {
  auto iv = VectorType::get({lanes}, b.getI32Type());
  auto ci = [&](int32_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(iv, b.getI32IntegerAttr(v)));
  };
  // Below -87 the result would be denormal; callers flush x < kExpCutoff.
  // The clamp is a compare and select rather than maxnum, so that a NaN x
  // stays NaN (OLT is false for it) and the result is NaN.
  x = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, vsplat(-87.0)),
      vsplat(-87.0), x);
  Value k = math::RoundEvenOp::create(
      b, arith::MulFOp::create(b, x, vsplat(1.44269504088896341)));
  Value r = math::FmaOp::create(b, k, vsplat(-0.693359375), x);
  r = math::FmaOp::create(b, k, vsplat(2.12194440e-4), r);
  Value z = arith::MulFOp::create(b, r, r);
  Value y = vsplat(1.9875691500e-4);
  for (double c : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                   1.6666665459e-1, 5.0000001201e-1})
    y = math::FmaOp::create(b, y, r, vsplat(c));
  y = math::FmaOp::create(b, y, z, arith::AddFOp::create(b, r, vsplat(1.0)));
  // 2^k: (k + 127) << 23 as the bits of an f32. k + 127 + 1.5 * 2^23 holds
  // k + 127 in its low mantissa bits (k is an integer in [-126, 0]), so a
  // float add and a shift form it; fptosi would be poison for a NaN k.
  Value biased = arith::BitcastOp::create(
      b, iv, arith::AddFOp::create(b, k, vsplat(12582912.0 + 127.0)));
  Value bits = arith::ShLIOp::create(b, biased, ci(23));
  return arith::MulFOp::create(b, y, arith::BitcastOp::create(b, vf, bits));
}

Value KernelBuilder::softmaxExp2(Value x) {
  auto iv = VectorType::get({lanes}, b.getI32Type());
  // Below -126 the result would be denormal; callers flush x < expCutoff().
  // A compare and select, so that a NaN x stays NaN (as in softmaxExp).
  x = arith::SelectOp::create(
      b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x, vsplat(-126.0)),
      vsplat(-126.0), x);
  Value k = math::RoundEvenOp::create(b, x);
  Value r = arith::SubFOp::create(b, x, k);
  // Cephes exp2f: 2^r = 1 + r P(r) on [-1/2, 1/2].
  Value y = vsplat(1.535336188319500e-4);
  for (double c :
       {1.339887440266574e-3, 9.618437357674640e-3, 5.550332471162809e-2,
        2.402264791363012e-1, 6.931472028550421e-1})
    y = math::FmaOp::create(b, y, r, vsplat(c));
  y = math::FmaOp::create(b, y, r, vsplat(1.0));
  // 2^k as in softmaxExp (k an integer in [-126, 0]).
  Value biased = arith::BitcastOp::create(
      b, iv, arith::AddFOp::create(b, k, vsplat(12582912.0 + 127.0)));
  Value bits = arith::ShLIOp::create(
      b, biased,
      arith::ConstantOp::create(
          b, DenseElementsAttr::get(iv, b.getI32IntegerAttr(23))));
  return arith::MulFOp::create(b, y, arith::BitcastOp::create(b, vf, bits));
}

SmallVector<Value>
KernelBuilder::foldLaneHalves(ArrayRef<Value> a, int64_t downTo,
                              function_ref<Value(Value, Value)> combine) {
  SmallVector<Value> cur(a.begin(), a.end());
  // Each vector of `cur` holds lanes / width keys of `width` lanes; a level
  // folds each key's lanes in half and joins two vectors' keys in order.
  for (int64_t width = lanes; width > downTo; width /= 2) {
    SmallVector<int64_t> lo, hi;
    for (int64_t src = 0; src < 2; ++src)
      for (int64_t key = 0; key < lanes / width; ++key)
        for (int64_t i = 0; i < width / 2; ++i) {
          lo.push_back(src * lanes + key * width + i);
          hi.push_back(src * lanes + key * width + width / 2 + i);
        }
    SmallVector<Value> next;
    for (size_t v = 0; v < cur.size(); v += 2)
      next.push_back(
          combine(vector::ShuffleOp::create(b, cur[v], cur[v + 1], lo),
                  vector::ShuffleOp::create(b, cur[v], cur[v + 1], hi)));
    cur = next;
  }
  return cur;
}

Value KernelBuilder::sumLanesOfEach(ArrayRef<Value> a) {
  return foldLaneHalves(a, 1,
                        [&](Value x, Value y) -> Value {
                          return arith::AddFOp::create(b, x, y);
                        })
      .front();
}

Value KernelBuilder::rowsOfLanes(ArrayRef<Value> a,
                                 function_ref<Value(Value, Value)> combine) {
  assert(a.size() == kRows && "one vector per row");
  // The levels of sumLanesOfEach down to rowLanes() lanes per row (two
  // levels: 4 vectors into 1; with 16 lanes a[0], a[1] -> 8 lanes each,
  // then 4 lanes per row).
  Value v = foldLaneHalves(a, rowLanes(), combine).front();
  // Within each row's group of lanes: swap pairs, then neighbours (16
  // lanes), so that all the group's lanes end with its reduction.
  for (int64_t d = rowLanes() / 2; d >= 1; d /= 2) {
    SmallVector<int64_t> m;
    for (int64_t i = 0; i < lanes; ++i)
      m.push_back(i ^ d);
    v = combine(v, vector::ShuffleOp::create(b, v, v, m));
  }
  return v;
}

std::pair<Value, Value> KernelBuilder::sinCos64(Value a, Value shift) {
  auto vt = cast<VectorType>(a.getType());
  auto it = VectorType::get(vt.getShape(), b.getI64Type());
  auto c = [&](double v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vt, b.getFloatAttr(f64, v)));
  };
  auto ci = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(it, b.getI64IntegerAttr(v)));
  };
  const double pio2Hi = 1.5707963267948966;
  const double pio2Lo = 6.123233995736766e-17;
  // r = a - k pi/2 with pi/2 in two parts (Cody and Waite), twice. The first
  // k = round(a 2/pi) is the nearest quadrant only while a 2/pi is exact to
  // well under 1/2, that is for |a| below about 2^50; beyond (positions up to
  // 2^63 times frequencies up to 1) its error of up to |a| 2^-53 leaves r
  // outside [-pi/4, pi/4], but r itself is still exact to about 1e-13, so a
  // second reduction of r brings it into range.
  auto reduce = [&](Value x) -> std::pair<Value, Value> {
    Value k = math::RoundEvenOp::create(
        b, arith::MulFOp::create(b, x, c(0.6366197723675814)));
    Value negK = arith::NegFOp::create(b, k);
    Value r = math::FmaOp::create(b, negK, c(pio2Hi), x);
    r = math::FmaOp::create(b, negK, c(pio2Lo), r);
    return {k, r};
  };
  auto [k, r1] = reduce(a);
  // The second step only where some lane needs it (|r1| > pi/4 after
  // rounding): positions of today's models never get there, so the common
  // path pays a compare and a branch instead of seven operations.
  Value outOfRange = vector::ReductionOp::create(
      b, vector::CombiningKind::OR,
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGT,
                            math::AbsFOp::create(b, r1),
                            c(0.78539816339744831 * (1.0 + 0x1p-20))));
  auto second = scf::IfOp::create(b, TypeRange{vt, vt}, outOfRange,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&second.getThenRegion().front());
    auto [kk, rr] = reduce(r1);
    scf::YieldOp::create(b, ValueRange{kk, rr});
    b.setInsertionPointToStart(&second.getElseRegion().front());
    scf::YieldOp::create(b, ValueRange{c(0.0), r1});
  }
  Value k2 = second.getResult(0), r = second.getResult(1);
  Value z = arith::MulFOp::create(b, r, r);
  // fdlibm __kernel_sin / __kernel_cos on [-pi/4, pi/4].
  auto horner = [&](ArrayRef<double> coeffs) {
    Value acc = c(coeffs.back());
    for (int i = int(coeffs.size()) - 2; i >= 0; --i)
      acc = math::FmaOp::create(b, acc, z, c(coeffs[i]));
    return acc;
  };
  Value sinPoly =
      horner({-1.66666666666666324348e-01, 8.33333333332248946124e-03,
              -1.98412698298579493134e-04, 2.75573137070700676789e-06,
              -2.50507602534068634195e-08, 1.58969099521155010221e-10});
  Value sinR =
      math::FmaOp::create(b, arith::MulFOp::create(b, r, z), sinPoly, r);
  Value cosPoly =
      horner({4.16666666666666019037e-02, -1.38888888888741095749e-03,
              2.48015872894767294178e-05, -2.75573143513906633035e-07,
              2.08757232129817482790e-09, -1.13596475577881948265e-11});
  Value z2 = arith::MulFOp::create(b, z, z);
  Value cosR = math::FmaOp::create(b, z2, cosPoly,
                                   math::FmaOp::create(b, z, c(-0.5), c(1.0)));
  Value q = arith::AddIOp::create(b, arith::FPToSIOp::create(b, it, k),
                                  arith::FPToSIOp::create(b, it, k2));
  if (shift)
    q = arith::AddIOp::create(b, q, shift);
  auto pick = [&](Value quadrant) -> Value {
    Value m = arith::AndIOp::create(b, quadrant, ci(3));
    auto is = [&](int64_t v) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, m, ci(v));
    };
    Value odd = arith::OrIOp::create(b, is(1), is(3));
    Value neg = arith::OrIOp::create(b, is(2), is(3));
    Value v = arith::SelectOp::create(b, odd, cosR, sinR);
    return arith::SelectOp::create(b, neg, arith::NegFOp::create(b, v), v);
  };
  return {pick(q), pick(arith::AddIOp::create(b, q, ci(1)))};
}

Value KernelBuilder::scratch(Type et, ArrayRef<int64_t> shape,
                             ValueRange dynamicSizes) {
  int64_t bytes = et.getIntOrFloatBitWidth() / 8;
  for (int64_t size : shape) {
    // Sized at run time, or more than the whole budget (checked before
    // multiplying, so that no product of huge static sizes overflows).
    if (ShapedType::isDynamic(size) ||
        (size != 0 && bytes > stackScratchBytes / size)) {
      bytes = -1;
      break;
    }
    bytes *= size;
  }
  if (bytes < 0 || bytes > stackScratchBytes - stackScratchUsed)
    return allocOf(et, shape, dynamicSizes);
  stackScratchUsed += bytes;
  return memref::AllocaOp::create(b, MemRefType::get(shape, et), ValueRange{},
                                  b.getI64IntegerAttr(64));
}

void KernelBuilder::beginTask() {
  auto scope = memref::AllocaScopeOp::create(b, TypeRange{});
  afterTask = OpBuilder::InsertPoint(scope->getBlock(),
                                     std::next(scope->getIterator()));
  b.createBlock(&scope.getBodyRegion());
  stackScratchUsed = 0;
}

void KernelBuilder::endTask() {
  memref::AllocaScopeReturnOp::create(b, ValueRange{});
  b.restoreInsertionPoint(afterTask);
}

Value KernelBuilder::buildTables(Value rows, Value offset, Value &cosT) {
  int64_t pairs = rotary / 2;
  cosT = alloc({ShapedType::kDynamic, pairs}, rows);
  Value sinT = alloc({ShapedType::kDynamic, pairs}, rows);
  Value scaling = rot->attentionScaling;
  // The widest vector of pairs that divides them (the tables are computed
  // in whole vectors of this width).
  int64_t width = lanes;
  while (pairs % width != 0)
    width /= 2;
  auto vw = VectorType::get({width}, f32);
  auto vw64 = VectorType::get({width}, f64);
  // Rounds f64 cos/sin once to f32, times the attention scaling, into row t.
  auto storeRow = [&](Value t, Value i, Value c, Value s) {
    if (cast<VectorType>(c.getType()).getElementType().isF64()) {
      c = arith::TruncFOp::create(b, vw, c);
      s = arith::TruncFOp::create(b, vw, s);
    }
    if (scaling) {
      Value m = vector::BroadcastOp::create(b, vw, scaling);
      c = arith::MulFOp::create(b, c, m);
      s = arith::MulFOp::create(b, s, m);
    }
    vector::StoreOp::create(b, c, cosT, ValueRange{t, i});
    vector::StoreOp::create(b, s, sinT, ValueRange{t, i});
  };
  auto forRows = [&](Value from, function_ref<void(Value t)> body) {
    scf::ForOp::create(b, from, rows, idx(1), ValueRange{},
                       [&](OpBuilder &ob, Location loc, Value t, ValueRange) {
                         Scope scope(b, ob);
                         body(t);
                         scf::YieldOp::create(b);
                       });
  };
  auto forPairs = [&](function_ref<void(Value i)> body) {
    scf::ForOp::create(b, idx(0), idx(pairs), idx(width), ValueRange{},
                       [&](OpBuilder &ib, Location l2, Value i, ValueRange) {
                         Scope scope(b, ib);
                         body(i);
                         scf::YieldOp::create(b);
                       });
  };
  if (rot->cosCache) {
    // Rows gathered from the caches (positions clamped to the last row).
    auto type = cast<RankedTensorType>(rot->cosCache.getType());
    auto mtype = MemRefType::get(type.getShape(), f32);
    Value cosCache = bufferization::ToBufferOp::create(b, mtype, rot->cosCache,
                                                       /*readOnly=*/true);
    Value sinCache = bufferization::ToBufferOp::create(b, mtype, rot->sinCache,
                                                       /*readOnly=*/true);
    Value last = arith::SubIOp::create(b, dim(cosCache, 0), idx(1));
    forRows(idx(0), [&](Value t) {
      Value pos = saturatingAdd(t, offset);
      Value row = arith::MinSIOp::create(
          b, arith::MaxSIOp::create(b, pos, idx(0)), last);
      forPairs([&](Value i) {
        storeRow(t, i,
                 vector::LoadOp::create(b, vw, cosCache, ValueRange{row, i}),
                 vector::LoadOp::create(b, vw, sinCache, ValueRange{row, i}));
      });
    });
    return sinT;
  }
  auto type = cast<RankedTensorType>(rot->invFreq.getType());
  Value invFreq = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), type.getElementType()), rot->invFreq,
      /*readOnly=*/true);
  auto positionF64 = [&](Value t) -> Value {
    return arith::SIToFPOp::create(
        b, f64,
        arith::IndexCastOp::create(b, b.getI64Type(),
                                   saturatingAdd(t, offset)));
  };
  auto c64 = [&](double v) -> Value {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vw64, b.getFloatAttr(f64, v)));
  };
  // Per vector of pairs, column by column: angle = p * f in f64 and its
  // cos/sin (sinCos64), rounded once to f32. When every angle of the column
  // is at most 2^20, only row 0 is evaluated so and each next row follows
  // from the previous one by the angle-addition formulas (four f64
  // operations instead of a reduction and two polynomials; the difference
  // from the direct evaluation is the rounding of fl(p f), at most 2^20
  // 2^-53, and a few f64 ulps per step, far below the f32 rounding).
  forPairs([&](Value i) {
    Value f = vector::LoadOp::create(
        b,
        VectorType::get({width},
                        cast<MemRefType>(invFreq.getType()).getElementType()),
        invFreq, ValueRange{i});
    if (!cast<VectorType>(f.getType()).getElementType().isF64())
      f = arith::ExtFOp::create(b, vw64, f);
    Value p0 = positionF64(idx(0));
    Value rowsF = arith::SIToFPOp::create(
        b, f64, arith::IndexCastOp::create(b, b.getI64Type(), rows));
    Value reach = arith::MulFOp::create(
        b,
        vector::BroadcastOp::create(
            b, vw64,
            arith::AddFOp::create(b, math::AbsFOp::create(b, p0), rowsF)),
        math::AbsFOp::create(b, f));
    Value small = vector::ReductionOp::create(
        b, vector::CombiningKind::AND,
        arith::CmpFOp::create(b, arith::CmpFPredicate::OLE, reach,
                              c64(kRecurrenceMaxAngle)));
    auto ifSmall = scf::IfOp::create(b, small, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifSmall.getThenRegion().front());
    {
      auto [s0, c0] = sinCos64(
          arith::MulFOp::create(b, vector::BroadcastOp::create(b, vw64, p0), f),
          Value());
      auto [sw, cw] = sinCos64(f, Value());
      scf::ForOp::create(
          b, idx(0), rows, idx(1), ValueRange{s0, c0},
          [&](OpBuilder &ob, Location loc, Value t, ValueRange sc) {
            Scope scope(b, ob);
            Value s = sc[0], c = sc[1];
            storeRow(t, i, c, s);
            Value sn =
                math::FmaOp::create(b, c, sw, arith::MulFOp::create(b, s, cw));
            Value cs = math::FmaOp::create(b, arith::NegFOp::create(b, s), sw,
                                           arith::MulFOp::create(b, c, cw));
            scf::YieldOp::create(b, ValueRange{sn, cs});
          });
    }
    b.setInsertionPointToStart(&ifSmall.getElseRegion().front());
    forRows(idx(0), [&](Value t) {
      Value angle = arith::MulFOp::create(
          b, vector::BroadcastOp::create(b, vw64, positionF64(t)), f);
      auto [sin64, cos64] = sinCos64(angle, Value());
      storeRow(t, i, cos64, sin64);
    });
  });
  return sinT;
}

/// Loads table row `pos` of cosT / sinT as rotateRow applies it: for the
/// half layout one cos and one sin vector per 16 pairs; for interleaved
/// pairs, per 16 channels, cos expanded to [c0 c0 c1 c1 ...] and sin to
/// [-s0 s0 -s1 s1 ...].
KernelBuilder::RopeRow KernelBuilder::loadRopeRow(Value pos, Value cosT,
                                                  Value sinT) {
  RopeRow row;
  if (!rotary)
    return row;
  // A last, partial vector of pairs reads zeros past the table row.
  if (rot->layout == RopeLayout::Half) {
    for (int64_t i = 0; i < rotary / 2; i += lanes) {
      Value mask = rowMask(i, rotary / 2);
      row.cos.push_back(loadF32(cosT, ValueRange{pos, idx(i)}, mask));
      row.sin.push_back(loadF32(sinT, ValueRange{pos, idx(i)}, mask));
    }
    return row;
  }
  auto half = VectorType::get({lanes / 2}, f32);
  SmallVector<int64_t> dup;
  for (int64_t i = 0; i < lanes; ++i)
    dup.push_back(i / 2);
  SmallVector<float> signs;
  for (int64_t i = 0; i < lanes; ++i)
    signs.push_back(i % 2 ? 1.0f : -1.0f);
  Value sign = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vf, ArrayRef<float>(signs)));
  auto loadHalf = [&](Value table, int64_t ch) -> Value {
    return loadVector(half, table, ValueRange{pos, idx(ch / 2)},
                      tailMask((rotary - ch) / 2, lanes / 2));
  };
  for (int64_t ch = 0; ch < rotary; ch += lanes) {
    Value c8 = loadHalf(cosT, ch);
    Value s8 = loadHalf(sinT, ch);
    row.cos.push_back(vector::ShuffleOp::create(b, c8, c8, dup));
    row.sin.push_back(arith::MulFOp::create(
        b, vector::ShuffleOp::create(b, s8, s8, dup), sign));
  }
  return row;
}

/// Rotates one row of `src` (prefix indices + channel) by the table row
/// `row`, multiplies it by `mul`, and stores it into `dst` (prefix +
/// channel). Channels beyond the rotary dimension are copied (times `mul`).
/// `streaming`: non-temporal stores (see storeVector). A pair count or a
/// head dimension that is not a whole number of vectors ends each of its
/// runs of channels with a masked vector: only the row's own channels are
/// read and written (the padding of a scratch row is left as it was).
void KernelBuilder::rotateRow(Value src, ValueRange srcPrefix, Value dst,
                              ValueRange dstPrefix, const RopeRow &row,
                              double mul, bool streaming) {
  auto at = [&](ValueRange prefix, int64_t c) {
    SmallVector<Value> ix(prefix.begin(), prefix.end());
    ix.push_back(idx(c));
    return ix;
  };
  Value factor = mul == 1.0 ? Value() : vsplat(mul);
  auto load = [&](int64_t c, Value mask) -> Value {
    return loadF32(src, at(srcPrefix, c), mask);
  };
  auto store = [&](Value v, int64_t c, Value mask) {
    if (factor)
      v = arith::MulFOp::create(b, v, factor);
    storeVector(v, dst, at(dstPrefix, c), streaming, mask);
  };
  int64_t pairs = rotary / 2;
  if (rotary) {
    if (rot->layout == RopeLayout::Half) {
      // (x[i], x[i + R/2]) -> (x_lo c - x_hi s, x_hi c + x_lo s).
      for (int64_t i = 0; i < pairs; i += lanes) {
        Value c = row.cos[i / lanes], s = row.sin[i / lanes];
        Value mask = rowMask(i, pairs);
        Value lo = load(i, mask), hi = load(i + pairs, mask);
        Value newLo = arith::SubFOp::create(b, arith::MulFOp::create(b, lo, c),
                                            arith::MulFOp::create(b, hi, s));
        Value newHi =
            math::FmaOp::create(b, lo, s, arith::MulFOp::create(b, hi, c));
        store(newLo, i, mask);
        store(newHi, i + pairs, mask);
      }
    } else {
      // (x[2i], x[2i+1]): per 16 channels, 8 pairs; swap neighbours of x.
      SmallVector<int64_t> swap;
      for (int64_t i = 0; i < lanes; ++i)
        swap.push_back(i ^ 1);
      for (int64_t ch = 0; ch < rotary; ch += lanes) {
        Value c = row.cos[ch / lanes], s = row.sin[ch / lanes];
        Value mask = rowMask(ch, rotary);
        Value x = load(ch, mask);
        Value xs = vector::ShuffleOp::create(b, x, x, swap);
        Value y = math::FmaOp::create(b, xs, s, arith::MulFOp::create(b, x, c));
        store(y, ch, mask);
      }
    }
  }
  for (int64_t ch = rotary; ch < headDim; ch += lanes) {
    Value mask = rowMask(ch, headDim);
    store(load(ch, mask), ch, mask);
  }
}

/// Packs key head `kvHead`, rotated, into Kt[Tk/64][D][64] (zero tail), or
/// with bf16Dot into Kt[Tk/64][D/2][64 x 2] bf16: per channel pair, the
/// pairs of the block's 64 keys (the rotated keys rounded to bf16).
void KernelBuilder::packKeys(Value kMem, Value kt, Value bIdx, Value kvHead,
                             Value tk, Value cosT, Value sinT) {
  // 16 keys at a time: rotate (or copy) them into rows[16][D], then transpose
  // each 16 x 16 tile with shuffles and store it as 16 channel rows of the
  // key block. With a partial last vector of channels, the rows are padded
  // to whole vectors (zeros) and only the head's channels are stored.
  Value rows = scratch({lanes, headPad}, {});
  Value blocks = dim(kt, 0);
  Value padded = muli(blocks, idx(kBlock));
  auto tileType = VectorType::get({lanes, lanes}, f32);
  scf::ForOp::create(
      b, idx(0), padded, idx(lanes), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value j0, ValueRange) {
        Scope outer(b, ob);
        scf::ForOp::create(
            b, idx(0), idx(lanes), idx(1), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value r, ValueRange) {
              Scope inner(b, ib);
              Value j = addi(j0, r);
              Value inside =
                  arith::CmpIOp::create(b, arith::CmpIPredicate::slt, j, tk);
              auto ifOp = scf::IfOp::create(b, inside, /*withElse=*/true);
              OpBuilder::InsertionGuard g(b);
              b.setInsertionPointToStart(&ifOp.getThenRegion().front());
              if (rotary && attn.rotatesKey())
                rotateRow(kMem, ValueRange{bIdx, kvHead, j}, rows,
                          ValueRange{r}, j, cosT, sinT, 1.0);
              else
                for (int64_t c = 0; c < headDim; c += lanes)
                  vector::StoreOp::create(
                      b,
                      loadF32(kMem, ValueRange{bIdx, kvHead, j, idx(c)},
                              rowMask(c, headDim)),
                      rows, ValueRange{r, idx(c)});
              b.setInsertionPointToStart(&ifOp.getElseRegion().front());
              for (int64_t c = 0; c < headPad; c += lanes)
                vector::StoreOp::create(b, vsplat(0.0), rows,
                                        ValueRange{r, idx(c)});
              b.setInsertionPointAfter(ifOp);
              scf::YieldOp::create(b);
            });
        Value blk = arith::DivUIOp::create(b, j0, idx(kBlock));
        Value col = arith::RemUIOp::create(b, j0, idx(kBlock));
        Value zero = arith::ConstantOp::create(
            b, DenseElementsAttr::get(tileType, b.getFloatAttr(f32, 0.0)));
        for (int64_t c = 0; c < headDim; c += lanes) {
          Value tile = zero;
          for (int64_t r = 0; r < lanes; ++r)
            tile = vector::InsertOp::create(
                b,
                vector::LoadOp::create(b, vf, rows, ValueRange{idx(r), idx(c)}),
                tile, r);
          Value t = vector::TransposeOp::create(b, tile, {1, 0});
          if (bf16Dot) {
            Value col2 = muli(col, idx(2));
            for (int64_t l = 0; l < lanes; l += 2)
              vector::StoreOp::create(
                  b,
                  interleave(toBf16(vector::ExtractOp::create(b, t, l)),
                             toBf16(vector::ExtractOp::create(b, t, l + 1))),
                  kt, ValueRange{blk, idx((c + l) / 2), col2});
            continue;
          }
          for (int64_t l = 0; l < lanes && c + l < headDim; ++l)
            vector::StoreOp::create(b, vector::ExtractOp::create(b, t, l), kt,
                                    ValueRange{blk, idx(c + l), col});
        }
        scf::YieldOp::create(b);
      });
}

/// Loads query rows [q0, q0 + 64) of head (bIdx, hIdx), rotated and times
/// `mul` (the softmax scale, or 1), into Qs[64][D]; rows past Tq are zero.
void KernelBuilder::loadQueries(Value qMem, Value qs, Value bIdx, Value hIdx,
                                Value q0, Value tq, Value cosT, Value sinT,
                                double mul) {
  scf::ForOp::create(
      b, idx(0), idx(kQBlock), idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value r, ValueRange) {
        Scope scope_nb(b, ob);
        Value i = addi(q0, r);
        Value inside =
            arith::CmpIOp::create(b, arith::CmpIPredicate::slt, i, tq);
        auto ifOp = scf::IfOp::create(b, inside, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          if (rotary) {
            rotateRow(qMem, ValueRange{bIdx, hIdx, i}, qs, ValueRange{r}, i,
                      cosT, sinT, mul);
          } else {
            Value s = vsplat(mul);
            for (int64_t c = 0; c < headDim; c += lanes) {
              Value v = loadF32(qMem, ValueRange{bIdx, hIdx, i, idx(c)},
                                rowMask(c, headDim));
              vector::StoreOp::create(b, arith::MulFOp::create(b, v, s), qs,
                                      ValueRange{r, idx(c)});
            }
          }
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          for (int64_t c = 0; c < headPad; c += lanes)
            vector::StoreOp::create(b, vsplat(0.0), qs, ValueRange{r, idx(c)});
        }
        scf::YieldOp::create(b);
      });
}

void KernelBuilder::packQueryPairs(Value qs, Value qp) {
  scf::ForOp::create(b, idx(0), idx(kQBlock), idx(1), ValueRange{},
                     [&](OpBuilder &ob, Location loc, Value r, ValueRange) {
                       Scope scope_nb(b, ob);
                       for (int64_t c = 0; c < headDim; c += lanes)
                         vector::StoreOp::create(
                             b,
                             toBf16Pairs(vector::LoadOp::create(
                                 b, vf, qs, ValueRange{r, idx(c)})),
                             qp, ValueRange{r, idx(c / 2)});
                       scf::YieldOp::create(b);
                     });
}

void KernelBuilder::packValuePairs(Value vMem, Value vp, Value bIdx,
                                   Value kvHead, Value tk) {
  auto half = VectorType::get({lanes}, b.getBF16Type());
  SmallVector<Type> rowTypes(valueDim / lanes, half);
  scf::ForOp::create(
      b, idx(0), dim(vp, 0), idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value p, ValueRange) {
        Scope scope_nb(b, ob);
        SmallVector<Value> rows[2];
        for (int64_t t = 0; t < 2; ++t) {
          Value j = addi(muli(p, idx(2)), idx(t));
          Value inside =
              arith::CmpIOp::create(b, arith::CmpIPredicate::slt, j, tk);
          auto ifOp = scf::IfOp::create(b, rowTypes, inside, /*withElse=*/true);
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          SmallVector<Value> loaded;
          for (int64_t e = 0; e < valueDim; e += lanes)
            loaded.push_back(vector::LoadOp::create(
                b, half, vMem, ValueRange{bIdx, kvHead, j, idx(e)}));
          scf::YieldOp::create(b, loaded);
          b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          Value zero = arith::ConstantOp::create(
              b, DenseElementsAttr::get(
                     half, b.getFloatAttr(half.getElementType(), 0.0)));
          scf::YieldOp::create(b, SmallVector<Value>(rowTypes.size(), zero));
          b.setInsertionPointAfter(ifOp);
          rows[t] = SmallVector<Value>(ifOp.getResults());
        }
        for (int64_t e = 0; e < valueDim / lanes; ++e)
          vector::StoreOp::create(b, interleave(rows[0][e], rows[1][e]), vp,
                                  ValueRange{p, idx(2 * e * lanes)});
        scf::YieldOp::create(b);
      });
}

SmallVector<Value> KernelBuilder::scoreTile(Value qs, Value kt, Value kb,
                                            Value r0, int64_t vecs) {
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
                b, vbf, kt, ValueRange{kb, p, idx(2 * c * lanes)}));
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
              b, vf, kt, ValueRange{kb, d, idx(c * lanes)}));
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

/// One key block for one query block, in two passes over its 16 groups of 4
/// rows: first S = Qs Kt of every group into sBuf, then per group the
/// masks, the online softmax and O = alpha O + P V.
void KernelBuilder::blockStep(Value qs, Value kt, Value vMem, Value os,
                              Value sBuf, Value pBuf, Value mBuf, Value lBuf,
                              Value bIdx, Value hIdx, Value q0, Value kb,
                              Value tq, Value tk, Value shift, Value alibiBase,
                              Value slope) {
  Value kvHead = arith::DivUIOp::create(b, hIdx, idx(group));
  Value j0 = muli(kb, idx(kBlock));
  // i + o for the last row of the group at row r0: the last key it may see
  // when causal; minus W, the highest first key of the group's windows.
  auto lastRowLimit = [&](Value r0) {
    return addi(addi(q0, addi(r0, idx(kRows - 1))), shift);
  };
  // Keys of this block that exist: min(64, Tk - j0).
  Value keys =
      arith::MinSIOp::create(b, idx(kBlock), arith::SubIOp::create(b, tk, j0));
  // Query rows of this block that exist, rounded up to groups of 4.
  Value rows =
      arith::MinSIOp::create(b, idx(kQBlock), arith::SubIOp::create(b, tq, q0));
  Value groups =
      arith::DivUIOp::create(b, addi(rows, idx(kRows - 1)), idx(kRows));
  Value negInf = cf(-std::numeric_limits<double>::infinity());
  Value laneIndex = iota();
  Value j0f = indexToF32(j0);
  Value tkF = indexToF32(tk);

  // The scores of all groups first, then the softmax and P V of each: the
  // S loops then read the key block (D x 64 keys) from the L1 cache, and
  // the P V loops the value block (64 x Dv), where alternating S and P V
  // per group made each evict the other's block and read it from the L2
  // (at D = Dv = 128 in f32 the two take 64 KiB, more than the 32-48 KiB L1
  // of current x86 cores).
  int64_t tileVecs = kRows * blockVecs;
  scf::ForOp::create(
      b, idx(0), groups, idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value g, ValueRange) {
        Scope scope_nb(b, ob);
        Value r0 = muli(g, idx(kRows));
        auto storeTile = [&](int64_t vecs) {
          SmallVector<Value> tile = scoreTile(qs, kt, kb, r0, vecs);
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t c = 0; c < vecs; ++c)
              vector::StoreOp::create(
                  b, tile[r * vecs + c], sBuf,
                  ValueRange{g, idx(r * blockVecs + c), idx(0)});
        };
        if (!attn.getCausal()) {
          storeTile(blockVecs);
          scf::YieldOp::create(b);
          return;
        }
        // Causal: the 16-key vectors past the causal limit of the group's
        // last row are masked in all 4 rows (the mask path, which such a
        // group always takes, puts -inf there whatever sBuf holds), so only
        // the first `vecs` are computed: on a diagonal block 2.5 of 4 in the
        // mean, none where the diagonal crosses the block at an offset and
        // the group's rows end before it.
        Value lastLimit = lastRowLimit(r0);
        Value need = arith::SubIOp::create(b, addi(lastLimit, idx(lanes)), j0);
        Value vecs = arith::MinSIOp::create(
            b, idx(blockVecs),
            arith::MaxSIOp::create(
                b, idx(0), arith::FloorDivSIOp::create(b, need, idx(lanes))));
        SmallVector<int64_t> cases;
        for (int64_t v = 0; v < blockVecs; ++v)
          cases.push_back(v);
        auto sw = scf::IndexSwitchOp::create(b, TypeRange{}, vecs, cases,
                                             cases.size());
        for (auto [i, region] : llvm::enumerate(sw.getCaseRegions())) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&region.emplaceBlock());
          if (i > 0)
            storeTile(i);
          scf::YieldOp::create(b);
        }
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&sw.getDefaultRegion().emplaceBlock());
          storeTile(blockVecs);
          scf::YieldOp::create(b);
        }
        scf::YieldOp::create(b);
      });
  scf::ForOp::create(
      b, idx(0), groups, idx(1), ValueRange{},
      [&](OpBuilder &ob, Location loc, Value g, ValueRange) {
        Scope scope_nb(b, ob);
        Value r0 = muli(g, idx(kRows));
        // S[4][64].
        SmallVector<Value> scores;
        for (int64_t v = 0; v < tileVecs; ++v)
          scores.push_back(vector::LoadOp::create(
              b, vf, sBuf, ValueRange{g, idx(v), idx(0)}));
        // Softcap and ALiBi on every score; causal and tail masks only where
        // some key of the block may be masked for some row of the group (the
        // first row is the most restricted), so interior blocks skip them.
        SmallVector<Value> raw;
        SmallVector<Value> jFs;
        for (int64_t c = 0; c < blockVecs; ++c)
          jFs.push_back(arith::AddFOp::create(
              b, bcast(arith::AddFOp::create(b, j0f, cf(double(c * lanes)))),
              laneIndex));
        bool biasFirst = attn.getSoftcapOrder() == SoftcapOrder::AfterBias;
        for (int64_t r = 0; r < kRows; ++r) {
          Value i = addi(q0, addi(r0, idx(r)));
          Value qPosF =
              attn.getAlibiAttr() ? indexToF32(addi(alibiBase, i)) : Value();
          // Rows past Tq (the group's padding) read the last row's bias.
          Value biasRow = biasMem
                              ? Value(arith::MinSIOp::create(
                                    b, i, arith::SubIOp::create(b, tq, idx(1))))
                              : Value();
          for (int64_t c = 0; c < blockVecs; ++c) {
            Value v = scores[r * blockVecs + c];
            Value jF = jFs[c];
            // The explicit bias sits where ALiBi would (they are
            // exclusive): after a before_bias softcap, before an
            // after_bias one; modifyScore applies the softcap.
            Value bias =
                biasMem
                    ? loadBias(biasMem, bIdx, hIdx, biasRow,
                               addi(j0, idx(c * lanes)),
                               arith::SubIOp::create(b, keys, idx(c * lanes)))
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
                            attn.getAlibiAttr() ? bcast(slope) : Value());
            if (bias && !biasFirst)
              v = addBias(v);
            raw.push_back(v);
          }
        }
        Value blockEnd = addi(j0, idx(kBlock));
        Value needMask =
            arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, blockEnd, tk);
        // A bias may disallow any key (-inf): every block then takes the
        // path that keeps the value rows of weight-0 keys out of P V.
        if (biasMem || maskMem)
          needMask = arith::ConstantIntOp::create(b, 1, 1);
        std::optional<uint64_t> window = attn.getWindow();
        if (attn.getCausal()) {
          Value firstLimit = addi(addi(q0, r0), shift);
          needMask = arith::OrIOp::create(
              b, needMask,
              arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                    arith::SubIOp::create(b, blockEnd, idx(1)),
                                    addi(firstLimit, idx(1))));
        }
        if (window) {
          // The last row of the group has the highest window start.
          Value lastLimit = lastRowLimit(r0);
          needMask = arith::OrIOp::create(
              b, needMask,
              arith::CmpIOp::create(
                  b, arith::CmpIPredicate::sle, j0,
                  arith::SubIOp::create(b, lastLimit,
                                        idx(static_cast<int64_t>(*window)))));
        }
        SmallVector<Type> rawTypes(raw.size(), vf);
        auto masked =
            scf::IfOp::create(b, rawTypes, needMask, /*withElse=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&masked.getThenRegion().front());
          SmallVector<Value> out;
          for (int64_t r = 0; r < kRows; ++r) {
            Value i = addi(q0, addi(r0, idx(r)));
            Value limitF = indexToF32(addi(i, shift));
            // Per row: the causal limit and the window's lower bound.
            Value limitV = bcast(limitF);
            Value windowLowV =
                window ? bcast(arith::SubFOp::create(
                             b, limitF, cf(static_cast<double>(*window))))
                       : Value();
            for (int64_t c = 0; c < blockVecs; ++c) {
              Value jF = jFs[c];
              Value ok = arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, jF,
                                               bcast(tkF));
              if (attn.getCausal())
                ok = arith::AndIOp::create(
                    b, ok,
                    arith::CmpFOp::create(b, arith::CmpFPredicate::OLE, jF,
                                          limitV));
              if (window)
                ok = arith::AndIOp::create(
                    b, ok,
                    arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, jF,
                                          windowLowV));
              if (maskMem)
                ok = arith::AndIOp::create(
                    b, ok,
                    loadMask(maskMem, bIdx, hIdx,
                             arith::MinSIOp::create(
                                 b, i, arith::SubIOp::create(b, tq, idx(1))),
                             addi(j0, idx(c * lanes)),
                             arith::SubIOp::create(b, keys, idx(c * lanes))));
              out.push_back(arith::SelectOp::create(
                  b, ok, raw[r * blockVecs + c], bcast(negInf)));
            }
          }
          scf::YieldOp::create(b, out);
          b.setInsertionPointToStart(&masked.getElseRegion().front());
          scf::YieldOp::create(b, raw);
        }
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
          Value maxV = masked.getResult(r * blockVecs);
          for (int64_t c = 1; c < blockVecs; ++c)
            maxV = selectMax(maxV, masked.getResult(r * blockVecs + c));
          partialMax.push_back(maxV);
        }
        Value rowMax = rowsOfLanes(
            partialMax, [&](Value x, Value y) { return selectMax(x, y); });
        Value mOld = spreadRows(vector::LoadOp::create(
            b, VectorType::get({kRows}, f32), mBuf, ValueRange{r0}));
        Value mNew = arith::MaxNumFOp::create(b, mOld, rowMax, kFast);
        // A row with no allowed key so far keeps m = -inf; subtract 0 then
        // so that exp gives 0 instead of NaN.
        Value empty = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew,
                                            bcast(negInf));
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
            Value x = arith::SubFOp::create(
                b, masked.getResult(r * blockVecs + c), rowM);
            Value e = scoreExp(x);
            e = arith::SelectOp::create(
                b,
                arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x,
                                      vsplat(expCutoff())),
                vsplat(0.0), e);
            if (bf16Dot)
              vector::StoreOp::create(b, toBf16Pairs(e), pBuf,
                                      ValueRange{idx(r), idx(c * lanes / 2)});
            else
              vector::StoreOp::create(b, e, pBuf,
                                      ValueRange{idx(r), idx(c * lanes)});
            sumV =
                sumV ? arith::AddFOp::create(b, sumV, e, kFast).getResult() : e;
          }
          sums.push_back(sumV);
          alphas.push_back(laneOf(alphaAll, r * rowLanes()));
        }
        Value rowSum = rowsOfLanes(sums, [&](Value x, Value y) -> Value {
          return arith::AddFOp::create(b, x, y, kFast);
        });
        Value lOld = spreadRows(vector::LoadOp::create(
            b, VectorType::get({kRows}, f32), lBuf, ValueRange{r0}));
        vector::StoreOp::create(
            b, firstOfRows(math::FmaOp::create(b, lOld, alphaAll, rowSum)),
            lBuf, ValueRange{r0});
        vector::StoreOp::create(b, firstOfRows(mNew), mBuf, ValueRange{r0});
        // O[4 rows, chunk] = alpha O + P V, per chunk of value columns. In a
        // block with masked keys, a key of weight 0 is skipped rather than
        // multiplied: a NaN or infinity in the value row of a key that a row
        // does not see must not reach that row (0 * NaN is NaN). Interior
        // blocks, which have no masked key, keep the plain multiply-add.
        int64_t chunkVecs = valueChunk / lanes;
        auto buildPV = [&](bool skipZeroWeights) {
          for (int64_t e0 = 0; e0 < valuePad; e0 += valueChunk) {
            SmallVector<Value> acc;
            for (int64_t r = 0; r < kRows; ++r)
              for (int64_t c = 0; c < chunkVecs; ++c) {
                Value o = vector::LoadOp::create(
                    b, vf, os,
                    ValueRange{addi(r0, idx(r)), idx(e0 + c * lanes)});
                acc.push_back(arith::MulFOp::create(b, o, alphas[r]));
              }
            // Causal: keys past the group's last row's limit have weight 0
            // in all 4 rows, so a block with masked keys stops before them
            // (half of the P V work of a diagonal block).
            Value used = keys;
            if (skipZeroWeights && attn.getCausal()) {
              Value lastLimit = lastRowLimit(r0);
              Value seen = arith::MaxSIOp::create(
                  b, idx(0),
                  addi(arith::SubIOp::create(b, lastLimit, j0), idx(1)));
              used = arith::MinSIOp::create(b, keys, seen);
            }
            // bf16Dot: per step a key pair (the odd tail key's partner has
            // weight 0 and a zero value row).
            Value steps = bf16Dot ? Value(arith::DivUIOp::create(
                                        b, addi(used, idx(1)), idx(2)))
                                  : used;
            auto pv = scf::ForOp::create(
                b, idx(0), steps, idx(1), acc,
                [&](OpBuilder &ib, Location l2, Value jj, ValueRange a) {
                  Scope scope_inner(b, ib);
                  if (bf16Dot) {
                    pvPairStep(vMem, pBuf, addi(muli(kb, idx(kBlock / 2)), jj),
                               jj, e0, a, skipZeroWeights);
                    return;
                  }
                  Value j = addi(j0, jj);
                  SmallVector<Value> vv, next;
                  for (int64_t c = 0; c < chunkVecs; ++c)
                    vv.push_back(loadF32(
                        vMem, ValueRange{bIdx, kvHead, j, idx(e0 + c * lanes)},
                        rowMask(e0 + c * lanes, valueDim)));
                  for (int64_t r = 0; r < kRows; ++r) {
                    Value p =
                        memref::LoadOp::create(b, pBuf, ValueRange{idx(r), jj});
                    Value pr = bcast(p);
                    // The lanes to update (p != 0, or NaN) as a lane mask
                    // of the broadcast weight, selecting the sum where set:
                    // x86 then merge-masks the multiply-add. A scalar
                    // condition was lowered to two branches and a copy per
                    // multiply-add, and a mask of the lanes to keep to a
                    // multiply-add into a copy and a masked move.
                    Value update;
                    if (skipZeroWeights)
                      update = arith::CmpFOp::create(
                          b, arith::CmpFPredicate::UNE, pr, vsplat(0.0));
                    for (int64_t c = 0; c < chunkVecs; ++c) {
                      Value sum = vector::FMAOp::create(b, pr, vv[c],
                                                        a[r * chunkVecs + c]);
                      if (update)
                        sum = arith::SelectOp::create(b, update, sum,
                                                      a[r * chunkVecs + c]);
                      next.push_back(sum);
                    }
                  }
                  scf::YieldOp::create(b, next);
                });
            for (int64_t r = 0; r < kRows; ++r)
              for (int64_t c = 0; c < chunkVecs; ++c)
                vector::StoreOp::create(
                    b, pv.getResult(r * chunkVecs + c), os,
                    ValueRange{addi(r0, idx(r)), idx(e0 + c * lanes)});
          }
        };
        auto pvIf = scf::IfOp::create(b, TypeRange{}, needMask,
                                      /*withElse=*/true);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&pvIf.getThenRegion().front());
          buildPV(/*skipZeroWeights=*/true);
          b.setInsertionPointToStart(&pvIf.getElseRegion().front());
          buildPV(/*skipZeroWeights=*/false);
        }
        scf::YieldOp::create(b);
      });
}

Value KernelBuilder::modifyScore(Value s, Value q, Value j, Value slope) {
  return attn.buildScoreModifiers(b, b.getLoc(), s, q, j, slope);
}

/// The indices of [B, H, Tq, Tk] position (bIdx, hIdx, i, j) in an operand
/// that broadcasts numpy-style to it: a static 1 is read at index 0.
static SmallVector<Value> broadcastIndices(MemRefType type, Value zero,
                                           ArrayRef<Value> target) {
  int64_t rank = type.getRank();
  SmallVector<Value> indices;
  for (int64_t d = 0; d < rank; ++d)
    indices.push_back(type.getDimSize(d) == 1 ? zero : target[4 - rank + d]);
  return indices;
}

Value KernelBuilder::loadMask(Value mask, Value bIdx, Value hIdx, Value i,
                              Value j, Value keysLeft) {
  auto type = cast<MemRefType>(mask.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> at = broadcastIndices(type, idx(0), {bIdx, hIdx, i, j});
  auto vi1 = VectorType::get({lanes}, b.getI1Type());
  Value zero = arith::ConstantIntOp::create(b, 0, 8);
  if (type.getDimSize(rank - 1) == 1) {
    Value byte = memref::LoadOp::create(b, mask, at);
    return vector::BroadcastOp::create(
        b, vi1, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, byte, zero));
  }
  auto vi8 = VectorType::get({lanes}, b.getI8Type());
  Value valid = vector::CreateMaskOp::create(b, vi1, ValueRange{keysLeft});
  Value zeros = arith::ConstantOp::create(
      b, DenseElementsAttr::get(vi8, b.getI8IntegerAttr(0)));
  Value bytes = vector::MaskedLoadOp::create(b, vi8, mask, at, valid, zeros);
  return arith::CmpIOp::create(b, arith::CmpIPredicate::ne, bytes,
                               vector::BroadcastOp::create(b, vi8, zero));
}

Value KernelBuilder::loadBias(Value bias, Value bIdx, Value hIdx, Value i,
                              Value j, Value keysLeft) {
  auto type = cast<MemRefType>(bias.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> indices =
      broadcastIndices(type, idx(0), {bIdx, hIdx, i, j});
  Type et = type.getElementType();
  auto toF32 = [&](Value v) -> Value {
    Type vt = getElementTypeOrSelf(v.getType());
    Type want = isa<VectorType>(v.getType()) ? Type(vf) : Type(f32);
    if (vt == f32)
      return v;
    if (vt.getIntOrFloatBitWidth() < 32)
      return arith::ExtFOp::create(b, want, v);
    return arith::TruncFOp::create(b, want, v);
  };
  if (type.getDimSize(rank - 1) == 1)
    return bcast(toF32(memref::LoadOp::create(b, bias, indices)));
  Value mask = vector::CreateMaskOp::create(
      b, VectorType::get({lanes}, b.getI1Type()), ValueRange{keysLeft});
  return toF32(loadVector(VectorType::get({lanes}, et), bias, indices, mask));
}

KernelBuilder::Prologue KernelBuilder::buildPrologue(bool singleQuery) {
  Prologue pr;
  auto toMemref = [&](Value t) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    return bufferization::ToBufferOp::create(
        b, MemRefType::get(type.getShape(), type.getElementType()), t,
        /*readOnly=*/true);
  };
  // The kernels index [B, heads, T, D]; a [B, T, heads, D] operand is read
  // in place through a transposed (strided) view, channels still unit-stride.
  bool bshd = attn.getLayout() == AttentionLayout::BSHD;
  auto view = [&](Value m) -> Value {
    if (!bshd)
      return m;
    AffineMap perm = AffineMap::getPermutationMap(
        ArrayRef<unsigned>{0, 2, 1, 3}, b.getContext());
    return memref::TransposeOp::create(b, m, AffineMapAttr::get(perm));
  };
  pr.qMem = view(toMemref(attn.getQuery()));
  pr.kMem = view(toMemref(attn.getKey()));
  pr.vMem = view(toMemref(attn.getValue()));
  // Result buffer, in the op's layout: [B, H, Tq, Dv] or [B, Tq, H, Dv].
  auto outType =
      MemRefType::get(resultType.getShape(), resultType.getElementType());
  SmallVector<int64_t> perm = attn.getOperandPermutation();
  SmallVector<Value> outDyn;
  for (int64_t i = 0; i < 4; ++i)
    if (outType.isDynamicDim(i))
      outDyn.push_back(dim(perm[i] == 3 ? pr.vMem : pr.qMem, perm[i]));
  pr.outBuffer =
      memref::AllocOp::create(b, outType, outDyn, b.getI64IntegerAttr(64));
  pr.out = view(pr.outBuffer);
  if (Value lengths = attn.getKvLengths())
    pr.lengths = toMemref(lengths);
  if (Value lse = attn.getLse()) {
    // [B, H, Tq] by meaning; the views index [B, H, T, D].
    auto type = cast<RankedTensorType>(lse.getType());
    auto mtype = MemRefType::get(type.getShape(), type.getElementType());
    SmallVector<Value> lseDyn;
    for (int64_t i = 0; i < 3; ++i)
      if (mtype.isDynamicDim(i))
        lseDyn.push_back(dim(pr.qMem, i));
    pr.lseBuffer =
        memref::AllocOp::create(b, mtype, lseDyn, b.getI64IntegerAttr(64));
  }
  pr.causalOffset =
      attn.getCausalOffset() ? toIndex(attn.getCausalOffset()) : idx(0);
  if (Value bias = attn.getBias())
    pr.bias = toMemref(bias);
  if (Value mask = attn.getMask()) {
    // An i1 memref holds a byte per element, but a vector load of
    // vector<16xi1> reads 16 packed bits: copy the mask once per call into
    // an i8 buffer of its own (broadcast) shape, which the score tiles then
    // read with byte vector loads.
    Value bits = toMemref(mask);
    auto type = cast<MemRefType>(bits.getType());
    SmallVector<Value> sizes, dynamicSizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      sizes.push_back(dim(bits, d));
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(sizes.back());
    }
    Value bytes = memref::AllocOp::create(
        b, MemRefType::get(type.getShape(), b.getI8Type()), dynamicSizes,
        b.getI64IntegerAttr(64));
    SmallVector<Value> zeros(sizes.size(), idx(0)), ones(sizes.size(), idx(1));
    scf::buildLoopNest(b, b.getLoc(), zeros, sizes, ones,
                       [&](OpBuilder &nb, Location l, ValueRange ivs) {
                         Value bit = memref::LoadOp::create(nb, l, bits, ivs);
                         Value byte =
                             arith::ExtUIOp::create(nb, l, nb.getI8Type(), bit);
                         memref::StoreOp::create(nb, l, byte, bytes, ivs);
                       });
    pr.mask = bytes;
  }
  if (rotary) {
    Value queryRows = singleQuery ? idx(1) : dim(pr.qMem, 2);
    pr.qSin = buildTables(queryRows, offsetValue(qOff), pr.qCos);
    if (attn.rotatesKey())
      pr.kSin = buildTables(dim(pr.kMem, 2), offsetValue(kOff), pr.kCos);
  }
  if (Value slopes = attn.getAlibiSlopes()) {
    pr.slopes = slopes;
  } else if (AlibiEncodingAttr alibi = attn.getAlibiAttr()) {
    SmallVector<float> values;
    for (double s :
         formula::alibiSlopes(heads, alibi.getMaxBias().convertToDouble()))
      values.push_back(float(s));
    pr.slopes = arith::ConstantOp::create(
        b, DenseElementsAttr::get(RankedTensorType::get({heads}, f32),
                                  ArrayRef<float>(values)));
  }
  return pr;
}

Value KernelBuilder::validKeys(const Prologue &pr, Value bIdx, Value tk) {
  Value len;
  if (pr.lengths)
    len = memref::LoadOp::create(b, pr.lengths, ValueRange{bIdx});
  return kernels::AttentionPlan(attn).buildValidKeys(b, b.getLoc(), len, tk);
}

Value KernelBuilder::causalShift(const Prologue &pr, Value validKeys,
                                 Value tq) {
  return kernels::AttentionPlan(attn).buildCausalShift(b, b.getLoc(), validKeys,
                                                       tq, pr.causalOffset);
}

Value KernelBuilder::buildDecode() {
  auto kType = attn.getKey().getType();
  Prologue pr = buildPrologue(/*singleQuery=*/true);
  Value qMem = pr.qMem, kMem = pr.kMem, vMem = pr.vMem, out = pr.out;
  Value qCos = pr.qCos, qSin = pr.qSin, kCos = pr.kCos, kSin = pr.kSin;
  Value slopes = pr.slopes;
  Value batch = dim(qMem, 0), tkAll = dim(kMem, 2);
  // The one query sees keys [jLo, jHi): below L[b], up to o[b] when causal
  // (bottom-right: every valid key), above o[b] - W with a window. ALiBi puts
  // the query at alibi_offset (+ row 0).
  Value alibiQ;
  if (attn.getAlibiAttr())
    alibiQ = indexToF32(offsetValue(attn.getAlibiQueryOffset()));
  int64_t kvHeads = kType.getDimSize(attn.getHeadsAxis());
  int64_t dVecs = headPad / lanes;
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
        Value bIdx = ivs[0], kvh = ivs[1];
        Value tk = validKeys(pr, bIdx, tkAll);
        Value shift;
        if (attn.getCausal())
          shift = causalShift(pr, tk, idx(1));
        auto [jLo, jHi] = kernels::AttentionPlan(attn).buildKeyRange(
            b, b.getLoc(), idx(0), idx(0), shift, tk);
        // The small buffers first, so that a long cache's scores are the
        // ones left to the heap when the stack budget runs out.
        // Rows padded to whole vectors: the score products read whole
        // vectors of qs and of the rotated keys, so their padding is zeroed
        // once (rotateRow writes only the head's channels).
        Value qs = scratch({group, headPad}, {});
        Value krow = scratch({headPad}, {});
        // Each head's running maximum score, 16 lanes (the softmax's max
        // taken in the score pass, not in a pass of its own).
        Value mBuf = scratch({group, lanes}, {});
        Value lBuf = scratch({group, lanes}, {});
        Value dots = scratch({group * lanes, lanes}, {});
        Value kBlk = rotary && attn.rotatesKey() ? scratch({lanes, headPad}, {})
                                                 : Value();
        if (headPad != headDim) {
          Value last = idx(headPad - lanes);
          for (int64_t g = 0; g < group; ++g)
            vector::StoreOp::create(b, vsplat(0.0), qs,
                                    ValueRange{idx(g), last});
          vector::StoreOp::create(b, vsplat(0.0), krow, ValueRange{last});
          if (kBlk)
            for (int64_t r = 0; r < lanes; ++r)
              vector::StoreOp::create(b, vsplat(0.0), kBlk,
                                      ValueRange{idx(r), last});
        }
        int64_t chunkWidth = chunkVecs * lanes;
        Value oBuf =
            valuePad == chunkWidth ? Value() : scratch({group, valuePad}, {});
        // 16 columns of padding: the softmax loads whole vectors. Static
        // when the cache length is.
        int64_t tkStatic = cast<MemRefType>(kMem.getType()).getDimSize(2);
        Value sBuf = ShapedType::isDynamic(tkStatic)
                         ? scratch({group, ShapedType::kDynamic},
                                   addi(tkAll, idx(lanes)))
                         : scratch({group, tkStatic + lanes}, {});
        for (int64_t g = 0; g < group; ++g)
          vector::StoreOp::create(
              b, vsplat(-std::numeric_limits<double>::infinity()), mBuf,
              ValueRange{idx(g), idx(0)});
        // Head g's maximum raised to at least each lane of `sc`.
        auto raiseMax = [&](int64_t g, Value sc) {
          Value mx =
              vector::LoadOp::create(b, vf, mBuf, ValueRange{idx(g), idx(0)});
          vector::StoreOp::create(b, arith::MaxNumFOp::create(b, mx, sc, kFast),
                                  mBuf, ValueRange{idx(g), idx(0)});
        };
        Value lastRow = arith::SubIOp::create(b, tkAll, idx(1));
        // Software prefetch of the cache rows decodePrefetchBytes ahead of
        // the row in use: the rows that many bytes span, and one prefetch
        // per 64-byte line of a row, with the pass's locality hint.
        auto rowsAhead = [&](Value mem, int64_t width) {
          int64_t rowBytes =
              width * cast<MemRefType>(mem.getType()).getElementTypeBitWidth() /
              8;
          return std::max<int64_t>(1, (decodePrefetchBytes + rowBytes - 1) /
                                          rowBytes);
        };
        auto prefetchLines = [&](Value mem, Value row, int64_t width,
                                 int64_t locality) {
          int64_t bits =
              cast<MemRefType>(mem.getType()).getElementTypeBitWidth();
          for (int64_t c = 0; c < width; c += 512 / bits)
            prefetchRead(mem, ValueRange{bIdx, kvh, row, idx(c)}, locality);
        };
        // Whether the pass over `mem` prefetches: only if it runs at least
        // decodePrefetchMinOps vector operations per 64-byte line it reads
        // (per 16-lane vector a multiply-add for each query head of the
        // group, a conversion from f16/bf16, and the multiply and
        // multiply-add of rotating a key). With one multiply-add per line
        // (f32 rows, one query head per KV head) the out-of-order window
        // alone keeps the lines in flight, and one prefetch instruction per
        // load made the pass slower (W4 f32 on Zen 5: 0.74-0.85 of the read
        // roof with the prefetch, 1.02-1.15 without; see
        // docs/CodegenCPU.md).
        auto opsPerLine = [&](Value mem, bool rotated) {
          int64_t bits =
              cast<MemRefType>(mem.getType()).getElementTypeBitWidth();
          int64_t perVector = group + (bits < 32 ? 1 : 0) + (rotated ? 2 : 0);
          return perVector * std::max<int64_t>(1, 512 / bits / lanes);
        };
        int64_t kOps = opsPerLine(kMem, static_cast<bool>(kBlk)),
                vOps = opsPerLine(vMem, false);
        // Each pass's prefetch: none (above), else into the L2 (locality 2)
        // for a pass with at least decodePrefetchL2MinOps operations per
        // line and into the L1 (locality 3) for a lighter one: the f32 GQA
        // step (four multiply-adds per line) read at 0.76-0.97 of the roof
        // prefetching into the L1 against 0.56-0.84 into the L2, faster in
        // 14 of 15 rounds on Zen 5, while the f16 GQA step (ten per line)
        // was slower into the L1 in 9 of 11 rounds (docs/CodegenCPU.md).
        auto prefetchOf = [&](int64_t ops) -> std::optional<int64_t> {
          if (decodePrefetchBytes <= 0 || ops < decodePrefetchMinOps)
            return std::nullopt;
          return ops >= decodePrefetchL2MinOps ? 2 : 3;
        };
        std::optional<int64_t> prefetchK = prefetchOf(kOps),
                               prefetchV = prefetchOf(vOps);
        // The first decodePrefetchBytes of the K rows, then (after the
        // scores) of the V rows, prefetched before each pass starts: the
        // passes' own prefetch runs that far ahead of the row in use, so
        // the memory does not wait for the hardware prefetchers to find
        // the new stream.
        auto primeRows = [&](Value mem, int64_t width,
                             std::optional<int64_t> locality) {
          if (!locality)
            return;
          Value end = arith::MinSIOp::create(
              b, addi(jLo, idx(rowsAhead(mem, width))), jHi);
          scf::ForOp::create(
              b, jLo, end, idx(1), ValueRange{},
              [&](OpBuilder &ib, Location l2, Value j, ValueRange) {
                Scope inner(b, ib);
                prefetchLines(mem, j, width, *locality);
                scf::YieldOp::create(b);
              });
        };
        primeRows(kMem, headDim, prefetchK);
        // The group's queries, rotated and scaled.
        for (int64_t g = 0; g < group; ++g) {
          Value h = addi(muli(kvh, idx(group)), idx(g));
          if (rotary)
            rotateRow(qMem, ValueRange{bIdx, h, idx(0)}, qs, ValueRange{idx(g)},
                      idx(0), qCos, qSin, scale);
          else
            for (int64_t c = 0; c < headDim; c += lanes)
              vector::StoreOp::create(
                  b,
                  arith::MulFOp::create(
                      b,
                      loadF32(qMem, ValueRange{bIdx, h, idx(0), idx(c)},
                              rowMask(c, headDim)),
                      vsplat(scale)),
                  qs, ValueRange{idx(g), idx(c)});
        }
        // The group's query vectors, loaded where used (see below).
        auto qAt = [&](int64_t g, int64_t c) -> Value {
          return vector::LoadOp::create(b, vf, qs,
                                        ValueRange{idx(g), idx(c * lanes)});
        };
        // Scores, 16 keys at a time: per query head, the 16 dot products as
        // vectors, summed together by a transposing shuffle tree into one
        // vector of 16 scores (instead of a reduction per key). The keys go
        // four at a time, channel vector by channel vector: the four keys'
        // vectors of a channel block are loaded (and converted from
        // f16/bf16) once into registers and serve up to four query heads,
        // whose vectors come from memory, each load feeding four products.
        // That is 16 accumulators and 21 registers whatever D is; a group of
        // more than four heads goes in chunks of four, each reloading the
        // keys' vectors from the L1. Whole key rows in pairs (D / 16
        // vectors per key in registers, each query vector feeding two
        // products) took up to 15% longer on L2-resident GQA steps (W4g
        // f16/bf16 7-11%, D = 256 15%), with the same results bit for bit
        // (docs/CodegenCPU.md). Rotated keys are
        // first rotated row by row into a [16, D] block.
        int64_t keysPerStep = 4;
        int64_t headsPerChunk = std::min<int64_t>(group, 4);
        Value jMain = addi(
            jLo, muli(arith::DivUIOp::create(
                          b, arith::SubIOp::create(b, jHi, jLo), idx(lanes)),
                      idx(lanes)));
        auto iv64 = VectorType::get({lanes}, b.getI64Type());
        Value iota64 = iota(b.getI64Type());
        // In the loops, the row decodePrefetchBytes ahead of key row j
        // (clamped to the last row): the hardware prefetchers alone keep
        // too few lines in flight while the group's products run (see
        // docs/CodegenCPU.md).
        auto prefetchRow = [&](Value mem, Value j, int64_t width,
                               std::optional<int64_t> locality) {
          if (!locality)
            return;
          prefetchLines(mem,
                        arith::MinSIOp::create(
                            b, addi(j, idx(rowsAhead(mem, width))), lastRow),
                        width, *locality);
        };
        scf::ForOp::create(
            b, jLo, jMain, idx(lanes), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value j0, ValueRange) {
              Scope inner(b, ib);
              if (kBlk)
                for (int64_t r = 0; r < lanes; ++r) {
                  Value j = addi(j0, idx(r));
                  rotateRow(kMem, ValueRange{bIdx, kvh, j}, kBlk,
                            ValueRange{idx(r)}, j, kCos, kSin, 1.0);
                }
              auto keyVec = [&](int64_t r, int64_t c) -> Value {
                if (kBlk)
                  return vector::LoadOp::create(
                      b, vf, kBlk, ValueRange{idx(r), idx(c * lanes)});
                return loadF32(
                    kMem,
                    ValueRange{bIdx, kvh, addi(j0, idx(r)), idx(c * lanes)},
                    rowMask(c * lanes, headDim));
              };
              for (int64_t r0 = 0; r0 < lanes; r0 += keysPerStep) {
                for (int64_t k = 0; k < keysPerStep; ++k)
                  prefetchRow(kMem, addi(j0, idx(r0 + k)), headDim, prefetchK);
                for (int64_t g0 = 0; g0 < group; g0 += headsPerChunk) {
                  int64_t heads = std::min(headsPerChunk, group - g0);
                  // acc[h][k]: head g0 + h's products with key r0 + k.
                  SmallVector<SmallVector<Value>> acc(
                      heads, SmallVector<Value>(keysPerStep));
                  for (int64_t c = 0; c < dVecs; ++c) {
                    SmallVector<Value> keys;
                    for (int64_t k = 0; k < keysPerStep; ++k)
                      keys.push_back(keyVec(r0 + k, c));
                    for (int64_t h = 0; h < heads; ++h) {
                      Value q = qAt(g0 + h, c);
                      for (int64_t k = 0; k < keysPerStep; ++k)
                        acc[h][k] =
                            c == 0 ? Value(arith::MulFOp::create(b, q, keys[k]))
                                   : Value(vector::FMAOp::create(b, q, keys[k],
                                                                 acc[h][k]));
                    }
                  }
                  for (int64_t h = 0; h < heads; ++h)
                    for (int64_t k = 0; k < keysPerStep; ++k)
                      vector::StoreOp::create(
                          b, acc[h][k], dots,
                          ValueRange{idx((g0 + h) * lanes + r0 + k), idx(0)});
                }
              }
              // Key positions as f32, exactly as the per-key conversion.
              Value jV = arith::SIToFPOp::create(
                  b, vf,
                  arith::AddIOp::create(
                      b,
                      vector::BroadcastOp::create(
                          b, iv64,
                          arith::IndexCastOp::create(b, b.getI64Type(), j0)),
                      iota64));
              for (int64_t g = 0; g < group; ++g) {
                SmallVector<Value> sums;
                for (int64_t r = 0; r < lanes; ++r)
                  sums.push_back(vector::LoadOp::create(
                      b, vf, dots, ValueRange{idx(g * lanes + r), idx(0)}));
                Value sc = sumLanesOfEach(sums);
                Value slope, q;
                if (attn.getAlibiAttr()) {
                  slope = bcast(
                      slopeOf(slopes, addi(muli(kvh, idx(group)), idx(g))));
                  q = bcast(alibiQ);
                }
                sc = modifyScore(sc, q, jV, slope);
                vector::StoreOp::create(b, sc, sBuf, ValueRange{idx(g), j0});
                raiseMax(g, sc);
              }
              scf::YieldOp::create(b);
            });
        // The last keys one at a time.
        scf::ForOp::create(
            b, jMain, jHi, idx(1), ValueRange{},
            [&](OpBuilder &ib, Location l2, Value j, ValueRange) {
              Scope inner(b, ib);
              Value src = kMem;
              SmallVector<Value> prefix = {bIdx, kvh, j};
              if (rotary && attn.rotatesKey()) {
                rotateRow(kMem, prefix, krow, ValueRange{}, j, kCos, kSin, 1.0);
                src = krow;
                prefix.clear();
              }
              SmallVector<Value> kv;
              for (int64_t c = 0; c < dVecs; ++c) {
                SmallVector<Value> ix(prefix);
                ix.push_back(idx(c * lanes));
                kv.push_back(loadF32(src, ix,
                                     src == kMem ? rowMask(c * lanes, headDim)
                                                 : Value()));
              }
              Value jF = indexToF32(j);
              for (int64_t g = 0; g < group; ++g) {
                Value acc = arith::MulFOp::create(b, qAt(g, 0), kv[0]);
                for (int64_t c = 1; c < dVecs; ++c)
                  acc = vector::FMAOp::create(b, qAt(g, c), kv[c], acc);
                Value sc = vector::ReductionOp::create(
                    b, vector::CombiningKind::ADD, acc, kFast);
                Value slope;
                if (attn.getAlibiAttr())
                  slope = slopeOf(slopes, addi(muli(kvh, idx(group)), idx(g)));
                sc = modifyScore(sc, alibiQ, jF, slope);
                memref::StoreOp::create(b, sc, sBuf, ValueRange{idx(g), j});
                raiseMax(g, bcast(sc));
              }
              scf::YieldOp::create(b);
            });
        primeRows(vMem, valueDim, prefetchV);
        // Softmax: each head's maximum is known from the score pass; the
        // exponentials are taken 16 keys at a time in the P V pass, just
        // before those keys' rows (lanes at or past jHi masked), and summed
        // per head in lBuf. No pass of its own: the V rows keep streaming
        // while they are computed.
        auto iv32 = VectorType::get({lanes}, b.getI32Type());
        Value iota32 = iota(b.getI32Type());
        // Lanes j0 + i < jHi.
        auto validLanes = [&](Value j0) -> Value {
          Value left = arith::MinSIOp::create(
              b, arith::SubIOp::create(b, jHi, j0), idx(lanes));
          return arith::CmpIOp::create(
              b, arith::CmpIPredicate::slt, iota32,
              vector::BroadcastOp::create(
                  b, iv32,
                  arith::IndexCastOp::create(b, b.getI32Type(), left)));
        };
        // Each head's maximum, as a scalar (for lse) and broadcast once
        // (for the exponentials).
        SmallVector<Value> maxOf, maxVec;
        for (int64_t g = 0; g < group; ++g) {
          maxOf.push_back(vector::ReductionOp::create(
              b, vector::CombiningKind::MAXNUMF,
              vector::LoadOp::create(b, vf, mBuf, ValueRange{idx(g), idx(0)}),
              kFast));
          maxVec.push_back(bcast(maxOf.back()));
          vector::StoreOp::create(b, vsplat(0.0), lBuf,
                                  ValueRange{idx(g), idx(0)});
        }
        // P for keys [j0, j0 + 16) of every head, in place of the scores.
        auto expBlock = [&](Value j0) {
          Value valid = validLanes(j0);
          for (int64_t g = 0; g < group; ++g) {
            Value x = arith::SubFOp::create(
                b, vector::LoadOp::create(b, vf, sBuf, ValueRange{idx(g), j0}),
                maxVec[g]);
            Value e = math::ExpOp::create(b, x);
            e = arith::SelectOp::create(
                b,
                arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, x,
                                      vsplat(kExpCutoff)),
                vsplat(0.0), e);
            e = arith::SelectOp::create(b, valid, e, vsplat(0.0));
            vector::StoreOp::create(b, e, sBuf, ValueRange{idx(g), j0});
            Value l =
                vector::LoadOp::create(b, vf, lBuf, ValueRange{idx(g), idx(0)});
            vector::StoreOp::create(b, arith::AddFOp::create(b, l, e), lBuf,
                                    ValueRange{idx(g), idx(0)});
          }
        };
        // 1 / l per head, once P V is done (0 when no key is visible).
        auto inverseSums = [&]() {
          SmallVector<Value> inv;
          for (int64_t g = 0; g < group; ++g) {
            Value l = vector::ReductionOp::create(
                b, vector::CombiningKind::ADD,
                vector::LoadOp::create(b, vf, lBuf, ValueRange{idx(g), idx(0)}),
                kFast);
            if (pr.lseBuffer)
              memref::StoreOp::create(
                  b,
                  arith::AddFOp::create(b, maxOf[g], math::LogOp::create(b, l)),
                  pr.lseBuffer,
                  ValueRange{bIdx, addi(muli(kvh, idx(group)), idx(g)),
                             idx(0)});
            inv.push_back(arith::SelectOp::create(
                b,
                arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0)),
                cf(0.0), arith::DivFOp::create(b, cf(1.0), l)));
          }
          return inv;
        };
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
        auto pvLoop = [&](Value j0, Value j1, int64_t e0, ValueRange init,
                          bool withExp) -> scf::ForOp {
          return scf::ForOp::create(
              b, j0, j1, idx(1), init,
              [&](OpBuilder &ib, Location l2, Value j, ValueRange a) {
                Scope inner(b, ib);
                if (withExp) {
                  Value blockStart = arith::CmpIOp::create(
                      b, arith::CmpIPredicate::eq,
                      arith::RemUIOp::create(
                          b, arith::SubIOp::create(b, j, jLo), idx(lanes)),
                      idx(0));
                  scf::IfOp::create(b, blockStart,
                                    [&](OpBuilder &tb, Location l3) {
                                      Scope then(b, tb);
                                      expBlock(j);
                                      scf::YieldOp::create(b);
                                    });
                }
                if (e0 == 0)
                  prefetchRow(vMem, j, valueDim, prefetchV);
                SmallVector<Value> vv, next;
                for (int64_t c = 0; c < chunkVecs; ++c)
                  vv.push_back(loadF32(
                      vMem, ValueRange{bIdx, kvh, j, idx(e0 + c * lanes)},
                      rowMask(e0 + c * lanes, valueDim)));
                for (int64_t g = 0; g < group; ++g) {
                  Value pj = bcast(
                      memref::LoadOp::create(b, sBuf, ValueRange{idx(g), j}));
                  for (int64_t c = 0; c < chunkVecs; ++c)
                    next.push_back(vector::FMAOp::create(b, pj, vv[c],
                                                         a[g * chunkVecs + c]));
                }
                scf::YieldOp::create(b, next);
              });
        };
        auto storeOut = [&](int64_t g, int64_t c, Value acc, Value inv) {
          Value h = addi(muli(kvh, idx(group)), idx(g));
          storeFromF32(arith::MulFOp::create(b, acc, bcast(inv)), out,
                       ValueRange{bIdx, h, idx(0), idx(c * lanes)},
                       rowMask(c * lanes, valueDim));
        };
        if (valuePad == chunkWidth) {
          SmallVector<Value> init(group * chunkVecs, vsplat(0.0));
          auto pv = pvLoop(jLo, jHi, 0, init, /*withExp=*/true);
          SmallVector<Value> inv = inverseSums();
          for (int64_t g = 0; g < group; ++g)
            for (int64_t c = 0; c < chunkVecs; ++c)
              storeOut(g, c, pv.getResult(g * chunkVecs + c), inv[g]);
        } else {
          for (int64_t g = 0; g < group; ++g)
            for (int64_t c = 0; c < valuePad; c += lanes)
              vector::StoreOp::create(b, vsplat(0.0), oBuf,
                                      ValueRange{idx(g), idx(c)});
          scf::ForOp::create(
              b, jLo, jHi, idx(kBlock), ValueRange{},
              [&](OpBuilder &ib, Location l2, Value j0, ValueRange) {
                Scope inner(b, ib);
                Value j1 =
                    arith::MinSIOp::create(b, addi(j0, idx(kBlock)), jHi);
                scf::ForOp::create(
                    b, j0, j1, idx(lanes), ValueRange{},
                    [&](OpBuilder &eb, Location l3, Value e, ValueRange) {
                      Scope inner2(b, eb);
                      expBlock(e);
                      scf::YieldOp::create(b);
                    });
                for (int64_t e0 = 0; e0 < valuePad; e0 += chunkWidth) {
                  SmallVector<Value> init;
                  for (int64_t g = 0; g < group; ++g)
                    for (int64_t c = 0; c < chunkVecs; ++c)
                      init.push_back(vector::LoadOp::create(
                          b, vf, oBuf,
                          ValueRange{idx(g), idx(e0 + c * lanes)}));
                  auto pv = pvLoop(j0, j1, e0, init, /*withExp=*/false);
                  for (int64_t g = 0; g < group; ++g)
                    for (int64_t c = 0; c < chunkVecs; ++c)
                      vector::StoreOp::create(
                          b, pv.getResult(g * chunkVecs + c), oBuf,
                          ValueRange{idx(g), idx(e0 + c * lanes)});
                }
                scf::YieldOp::create(b);
              });
          SmallVector<Value> inv = inverseSums();
          for (int64_t g = 0; g < group; ++g)
            for (int64_t c = 0; c < valuePad / lanes; ++c)
              storeOut(g, c,
                       vector::LoadOp::create(
                           b, vf, oBuf, ValueRange{idx(g), idx(c * lanes)}),
                       inv[g]);
        }
        endTask();
        scf::ReduceOp::create(b);
      });
  finishLse(pr);
  return bufferization::ToTensorOp::create(b, resultType, pr.outBuffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

Value KernelBuilder::build() {
  base2 = !attn.getSoftcap();
  Prologue pr = buildPrologue(/*singleQuery=*/false);
  biasMem = pr.bias;
  maskMem = pr.mask;
  Value qMem = pr.qMem, kMem = pr.kMem, vMem = pr.vMem, out = pr.out;
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
              scf::ForOp::create(
                  b, kbBegin, kbEnd, idx(1), ValueRange{},
                  [&](OpBuilder &ib, Location l3, Value kb, ValueRange) {
                    Scope scope_inner(b, ib);
                    blockStep(bf16Dot ? qp : qs, kt, bf16Dot ? vp : vMem, os,
                              sBuf, pBuf, mBuf, lBuf, bIdx, hIdx, q0, kb, tq,
                              tk, shift, alibiBase, slope);
                    scf::YieldOp::create(b);
                  });
              // O / l, 0 for rows without any allowed key.
              Value rows = arith::MinSIOp::create(
                  b, idx(kQBlock), arith::SubIOp::create(b, tq, q0));
              scf::ForOp::create(
                  b, idx(0), rows, idx(1), ValueRange{},
                  [&](OpBuilder &ib, Location l3, Value r, ValueRange) {
                    Scope scope_inner(b, ib);
                    Value l = memref::LoadOp::create(b, lBuf, ValueRange{r});
                    if (pr.lseBuffer) {
                      // log sum exp = m + log l (-inf for an empty row),
                      // m ln 2 + log l with base-2 scores.
                      Value m = memref::LoadOp::create(b, mBuf, ValueRange{r});
                      Value logL = math::LogOp::create(b, l);
                      memref::StoreOp::create(
                          b,
                          base2
                              ? Value(math::FmaOp::create(b, m, cf(kLn2), logL))
                              : Value(arith::AddFOp::create(b, m, logL)),
                          pr.lseBuffer, ValueRange{bIdx, hIdx, addi(q0, r)});
                    }
                    Value empty = arith::CmpFOp::create(
                        b, arith::CmpFPredicate::OEQ, l, cf(0.0));
                    Value inv = arith::SelectOp::create(
                        b, empty, cf(0.0),
                        arith::DivFOp::create(b, cf(1.0), l));
                    Value invV = bcast(inv);
                    for (int64_t c = 0; c < valueDim; c += lanes) {
                      Value o = vector::LoadOp::create(b, vf, os,
                                                       ValueRange{r, idx(c)});
                      storeFromF32(arith::MulFOp::create(b, o, invV), out,
                                   ValueRange{bIdx, hIdx, addi(q0, r), idx(c)},
                                   rowMask(c, valueDim));
                    }
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

Value KernelBuilder::view3d(Value m) {
  auto mt = cast<MemRefType>(m.getType());
  int64_t rank = mt.getRank();
  if (rank == 3)
    return m;
  if (rank == 2)
    return memref::ExpandShapeOp::create(
        b, MemRefType::get({1, mt.getDimSize(0), mt.getDimSize(1)}, f32), m,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1),
                               memref::getMixedSize(b, b.getLoc(), m, 0),
                               b.getIndexAttr(mt.getDimSize(1))});
  ReassociationIndices lead;
  for (int64_t i = 0; i < rank - 2; ++i)
    lead.push_back(i);
  return memref::CollapseShapeOp::create(
      b, m, ArrayRef<ReassociationIndices>{lead, {rank - 2}, {rank - 1}});
}

void KernelBuilder::forEachBlock(
    Value x3, int64_t rows,
    function_ref<void(Value n, Value t0, Value t1)> body) {
  Value tokens = dim(x3, 1);
  Value blocks =
      arith::DivUIOp::create(b, addi(tokens, idx(rows - 1)), idx(rows));
  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{dim(x3, 0), blocks},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        Value t0 = muli(ivs[1], idx(rows));
        Value t1 = arith::MinSIOp::create(b, addi(t0, idx(rows)), tokens);
        body(ivs[0], t0, t1);
        scf::ReduceOp::create(b);
      });
}

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

Value KernelBuilder::buildRope() {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Value x = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), f32), input, /*readOnly=*/true);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(dim(x, i));
  Value out = memref::AllocOp::create(b, MemRefType::get(type.getShape(), f32),
                                      dynamicSizes, b.getI64IntegerAttr(64));
  Value x3 = view3d(x), out3 = view3d(out);
  Value offset = offsetValue(qOff);
  // Tasks of (64-token block, chunk of the leading rows): the cos/sin rows
  // of a block are computed once per task, in parallel, and serve every row
  // of its chunk. The chunk is all leading rows (every head) unless there
  // are too few token blocks to keep the threads busy.
  Value lead = dim(x3, 0), tokens = dim(x3, 1);
  auto ceilDiv = [&](Value n, Value d) {
    return arith::DivUIOp::create(
        b, addi(n, arith::SubIOp::create(b, d, idx(1))), d);
  };
  Value tBlocks = ceilDiv(tokens, idx(kBlock));
  Value chunks = arith::MinSIOp::create(
      b, lead,
      arith::MaxSIOp::create(
          b, idx(1),
          ceilDiv(idx(kMinTasks), arith::MaxSIOp::create(b, tBlocks, idx(1)))));
  Value perChunk = ceilDiv(lead, arith::MaxSIOp::create(b, chunks, idx(1)));
  chunks = ceilDiv(lead, arith::MaxSIOp::create(b, perChunk, idx(1)));
  // Streaming stores need rows of whole vectors (aligned vector stores).
  Value large = headDim % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{tBlocks, chunks},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        Value t0 = muli(ivs[0], idx(kBlock));
        Value rows = arith::MinSIOp::create(
            b, idx(kBlock), arith::SubIOp::create(b, tokens, t0));
        Value cosT;
        Value sinT = buildTables(rows, saturatingAdd(t0, offset), cosT);
        Value n0 = muli(ivs[1], perChunk);
        Value n1 = arith::MinSIOp::create(b, addi(n0, perChunk), lead);
        // Groups of kRopeHeadGroup leading rows; per token, the table row
        // is loaded once and rotates the group's rows.
        withStreaming(large, [&](bool streaming) {
          scf::ForOp::create(
              b, n0, n1, idx(kRopeHeadGroup), ValueRange{},
              [&](OpBuilder &gb, Location l1, Value g0, ValueRange) {
                Scope groupScope(b, gb);
                Value g1 = arith::MinSIOp::create(
                    b, addi(g0, idx(kRopeHeadGroup)), n1);
                scf::ForOp::create(
                    b, idx(0), rows, idx(1), ValueRange{},
                    [&](OpBuilder &ib, Location l2, Value r, ValueRange) {
                      Scope rowScope(b, ib);
                      Value t = addi(t0, r);
                      RopeRow row = loadRopeRow(r, cosT, sinT);
                      scf::ForOp::create(
                          b, g0, g1, idx(1), ValueRange{},
                          [&](OpBuilder &nb, Location l3, Value n, ValueRange) {
                            Scope inner(b, nb);
                            rotateRow(x3, ValueRange{n, t}, out3,
                                      ValueRange{n, t}, row, 1.0, streaming);
                            scf::YieldOp::create(b);
                          });
                      scf::YieldOp::create(b);
                    });
                scf::YieldOp::create(b);
              });
        });
        scf::ReduceOp::create(b);
      });
  return bufferization::ToTensorOp::create(b, type, out, /*restrict=*/true,
                                           /*writable=*/true);
}

struct ConvertPEToVectorPass
    : public pe::impl::ConvertPEToVectorBase<ConvertPEToVectorPass> {
  using ConvertPEToVectorBase::ConvertPEToVectorBase;

  /// Why a bf16 attention (bf16 query, key and value) does not get the bf16
  /// dot-product kernel on `target`; empty when it does.
  static std::string bf16DotReason(const CPUTarget &target, AttentionOp op,
                                   bool decode) {
    if (decode)
      return "one query per head: the decode kernel, which is bound by "
             "reading K and V, widens them to f32";
    if (!target.hasFeature("avx512bf16") || target.f32Lanes() != 16)
      return "the target has no AVX512-BF16 (" + target.triple +
             (target.cpu.empty() ? "" : " cpu=" + target.cpu) +
             (target.features.empty() ? "" : " features=" + target.features) +
             ")";
    int64_t lanes = target.f32Lanes();
    if (op.getQuery().getType().getDimSize(3) % lanes != 0 ||
        op.getValue().getType().getDimSize(3) % lanes != 0)
      return "head dimensions must be multiples of " + std::to_string(lanes) +
             " (the bf16 channel and key pairs fill whole vectors)";
    return "";
  }

  /// The integer options: byte counts and pass counts, at least 0, where 0
  /// means the note.
  static ArrayRef<IntegerOptionRange> optionRanges() {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    static const IntegerOptionRange ranges[] = {
        {"decode-prefetch-bytes", 0, kMax, " (0: no prefetch)"},
        {"decode-prefetch-min-ops", 0, kMax, " (0: every pass prefetches)"},
        {"decode-prefetch-l2-min-ops", 0, kMax, " (0: every pass into the L2)"},
        {"stack-scratch-bytes", 0, kMax, " (0: all scratch on the heap)"},
    };
    return ranges;
  }

  /// Checks the integer options' text before LLVM's option parser reads it
  /// (which reports a value the type cannot hold without an `error:`).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (std::optional<std::string> error =
            checkIntegerOptionText(getArgument(), options, optionRanges()))
      return errorHandler(*error);
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    StringRef category = getArgument();
    // (Also where the options were set in C++, e.g. by pe-cpu-pipeline.)
    const int64_t values[] = {decodePrefetchBytes, decodePrefetchMinOps,
                              decodePrefetchL2MinOps, stackScratchBytes};
    for (auto [range, value] : llvm::zip_equal(optionRanges(), values))
      if (std::optional<std::string> error =
              checkIntegerOption(category, range, value)) {
        getOperation()->emitError() << *error;
        return signalPassFailure();
      }
    SmallVector<AttentionOp> attentions;
    getOperation()->walk([&](AttentionOp op) { attentions.push_back(op); });
    bool anyKernel =
        !attentions.empty() || getOperation()
                                   ->walk([](Operation *op) {
                                     return isa<RopeOp, AddSinusoidalOp>(op)
                                                ? WalkResult::interrupt()
                                                : WalkResult::advance();
                                   })
                                   .wasInterrupted();
    if (!anyKernel)
      return;
    // The vector width and the feature-gated paths come from the module's
    // target (CPUTarget.h), never from the machine running the pass.
    FailureOr<CPUTarget> target = lookupCPUTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    int64_t lanes = target->f32Lanes();
    for (AttentionOp op : attentions) {
      std::string reason = unsupportedReason(op);
      if (!reason.empty()) {
        emitMissedRemark(op, category, "attention-kernel",
                         "no generated attention kernel (the reference "
                         "lowering with a materialised score tensor is "
                         "used): " +
                             reason);
        continue;
      }
      KernelBuilder kernel(op, lanes);
      kernel.decodePrefetchBytes = decodePrefetchBytes;
      kernel.decodePrefetchMinOps = decodePrefetchMinOps;
      kernel.decodePrefetchL2MinOps = decodePrefetchL2MinOps;
      kernel.stackScratchBytes = stackScratchBytes;
      // One query per head: the decode kernel.
      bool decode =
          op.getQuery().getType().getDimSize(op.getSequenceAxis()) == 1;
      if (decode && (op.getBias() || op.getMask())) {
        emitMissedRemark(op, category, "decode-kernel",
                         "one query per head with an explicit bias or mask: "
                         "the prefill kernel is used (the decode kernel takes "
                         "neither)");
        decode = false;
      }
      if (op.getQuery().getType().getElementType().isBF16() &&
          op.getKey().getType().getElementType().isBF16()) {
        std::string why = bf16DotReason(*target, op, decode);
        if (why.empty())
          kernel.setBf16Dot(true);
        else
          emitMissedRemark(op, category, "bf16-dot",
                           "bf16 attention without bf16 dot products (the "
                           "f32 kernel on widened operands is used): " +
                               why);
      }
      Value result = decode ? kernel.buildDecode() : kernel.build();
      op.getResult().replaceAllUsesWith(result);
      if (Value lse = op.getLse())
        lse.replaceAllUsesWith(kernel.getLseTensor());
      op->erase();
    }
    SmallVector<RopeOp> ropes;
    getOperation()->walk([&](RopeOp op) { ropes.push_back(op); });
    for (RopeOp op : ropes) {
      std::string reason = unsupportedRopeReason(op);
      if (!reason.empty()) {
        emitMissedRemark(op, category, "rope-kernel",
                         "no generated RoPE kernel (the reference lowering "
                         "is used): " +
                             reason);
        continue;
      }
      KernelBuilder kernel(op, lanes);
      Value result = kernel.buildRope();
      op.getResult().replaceAllUsesWith(result);
      op->erase();
    }
    SmallVector<AddSinusoidalOp> adds;
    getOperation()->walk([&](AddSinusoidalOp op) { adds.push_back(op); });
    for (AddSinusoidalOp op : adds) {
      auto type = op.getInput().getType();
      std::string reason;
      if (!type.getElementType().isF32())
        reason = "element type is not f32";
      else if (op.getPositions())
        reason = "explicit positions tensor";
      if (!reason.empty()) {
        emitMissedRemark(op, category, "sinusoidal-kernel",
                         "no generated sinusoidal kernel (the reference "
                         "lowering is used): " +
                             reason);
        continue;
      }
      KernelBuilder kernel(op, lanes);
      Value result = kernel.buildSinusoidal(op);
      op.getResult().replaceAllUsesWith(result);
      op->erase();
    }
  }
};

} // namespace
