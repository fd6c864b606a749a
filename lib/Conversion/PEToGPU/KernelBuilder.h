//===- KernelBuilder.h - shared parts of the GPU kernels -------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// What the GPU kernel patterns of convert-pe-to-gpu share: the limits and
// workgroup memory budgets of the kernels, the reasons a kernel does not
// apply (Preconditions.cpp), and KernelBuilder, the base of every kernel's
// builder: index and float helpers, flat host buffers, the packed scalars,
// the RoPE tables, and the host part, score, masks and key tiles of an
// attention kernel (KernelBuilder.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CONVERSION_PETOGPU_KERNELBUILDER_H
#define PE_LIB_CONVERSION_PETOGPU_KERNELBUILDER_H

#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Conversion/PEToGPU/PEToGPU.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>
#include <string>

namespace mlir {
namespace pe {
namespace gpu_kernels {

/// The remark category of the kernels (the pass's flag).
constexpr StringLiteral kRemarkCategory = "convert-pe-to-gpu";

/// Query rows (and threads / 2) per block of the tensor-core kernel: 4 warps
/// of 16 rows.
constexpr int64_t kMmaWarps = 4;
constexpr int64_t kWarpLanes = 32;
/// The largest head dimension (D and Dv) of the tensor-core kernel.
constexpr int64_t kMmaMaxHeadDim = 128;
/// The most key splits of a split-KV decode attention: longer key ranges get
/// longer splits, so that the partial results stay small.
constexpr int64_t kMaxKeySplits = 64;
/// The most accumulators (rows of the GQA group x value channels per
/// thread) the decode kernel keeps per thread.
constexpr int64_t kDecodeMaxAccumulators = 128;

/// The static workgroup memory of an attention kernel: `perKey` bytes per
/// key of its K/V tiles and `fixed` bytes of other buffers.
struct WorkgroupBytes {
  int64_t perKey, fixed;
  /// With key tiles of `bk` keys (saturated, for a huge key-tile option).
  uint64_t operator()(int64_t bk) const {
    return llvm::SaturatingMultiplyAdd<uint64_t>(bk, perKey, fixed);
  }
};

/// The SIMT attention kernel's: K and V tiles of f32.
WorkgroupBytes simtWorkgroupBytes(int64_t d, int64_t dv);
/// The tensor-core attention kernel's: `stages` stages of K and V tiles of
/// the (16-bit) input type, and the emulation's A, B and exchange buffers
/// when emulated.
WorkgroupBytes mmaWorkgroupBytes(int64_t d, int64_t dv, bool emulate,
                                 int64_t stages);
/// The decode attention kernel's, for a GQA group of `g` query heads: K
/// tiles of f32 rows padded to D + 1, V tiles, the group's scores per key;
/// Q of the group and 4 values per row.
WorkgroupBytes decodeWorkgroupBytes(int64_t g, int64_t d, int64_t dv);
/// Bytes of the static-shape memrefs `types` (the workgroup attributions of a
/// launch): what simtWorkgroupBytes / mmaWorkgroupBytes must account for.
int64_t staticBytes(TypeRange types);
/// The largest key tile of at most `options.keyTile` keys, a multiple of
/// `multiple`, whose workgroup memory `bytes` is within
/// `options.sharedMemoryBytes`; 0 if there is none.
int64_t fitKeyTile(const GPUKernelOptions &options, int64_t multiple,
                   WorkgroupBytes bytes);
/// The compute capability of an NVVM chip name (`sm_80`, `sm_90a`: 80, 90),
/// 0 if it is not one.
int64_t parseSmVersion(StringRef chip);

/// Why an attention has no GPU kernel (empty if it has one).
std::string unsupportedReason(AttentionOp op, const GPUKernelOptions &options);
/// Why an attention that has a GPU kernel does not get the tensor-core
/// kernel, or std::nullopt if it does. Only f16/bf16 attention is reported
/// (an empty reason: f32 attention, which runs on the FMA units by design).
std::optional<std::string> noTensorCoreReason(AttentionOp op,
                                              const GPUKernelOptions &options);
/// The key tile of the decode attention kernel for `op`: the largest up to
/// `key-tile` whose workgroup buffers fit the budget; none for an op with
/// more than one query token, or (with the reason in `whyNot`) when even one
/// key does not fit or the accumulators would not.
std::optional<int64_t> decodeKeyTile(AttentionOp op,
                                     const GPUKernelOptions &options,
                                     std::string &whyNot);
/// Why a pe.rope has no GPU kernel (empty if it has one).
std::string unsupportedRopeReason(RopeOp op, const GPUKernelOptions &options);
/// Why a pe.add_sinusoidal has no GPU kernel (empty if it has one).
std::string unsupportedSinusoidalReason(AddSinusoidalOp op,
                                        const GPUKernelOptions &options);
/// The `key-tile` remark of an attention kernel (`kernel`: "the SIMT", ...)
/// that stages K/V tiles of `tile` keys (in `stages` workgroup-memory
/// stages), below the key-tile option.
void emitKeyTileRemark(AttentionOp op, StringRef kernel, int64_t tile,
                       WorkgroupBytes bytes, const GPUKernelOptions &options,
                       int64_t stages = 1);

/// The base of the kernel builders: emits at the position of `op` through
/// `rewriter` (its listener sees every op), with the op's rotation if any.
class KernelBuilder {
public:
  KernelBuilder(PatternRewriter &rewriter, Operation *op,
                std::optional<Rotation> rotation,
                const GPUKernelOptions &options)
      : b(op->getLoc(), rewriter), rewriter(rewriter), rot(rotation),
        options(options), f32(Float32Type::get(op->getContext())),
        f64(Float64Type::get(op->getContext())) {
    b.setInsertionPoint(op);
    rotary = rot ? rot->rotaryDim : 0;
  }

protected:
  // Constants and scalar helpers.
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cf(double v) {
    return arith::ConstantOp::create(b, b.getFloatAttr(f32, v));
  }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  /// x * y, folded when both are constants (so that buffer sizes of static
  /// shapes stay static).
  Value muli(Value x, Value y) {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return idx(*cx * *cy);
    return arith::MulIOp::create(b, x, y);
  }
  Value divui(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value remui(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, c, x, y);
  }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value ceilDiv(Value x, int64_t d) {
    return divui(addi(x, idx(d - 1)), idx(d));
  }
  Value toIndex(Value v) {
    return v.getType().isIndex()
               ? v
               : Value(arith::IndexCastOp::create(b, b.getIndexType(), v));
  }
  Value indexToF32(Value i) {
    return arith::SIToFPOp::create(
        b, f32, arith::IndexCastOp::create(b, b.getI64Type(), i));
  }
  /// `nonNegative + other`, saturated at INT64_MAX instead of wrapping (the
  /// reference lowering's positions).
  Value saturatingAdd(Value nonNegative, Value other) {
    Value sum = addi(nonNegative, other);
    return select(cmpi(arith::CmpIPredicate::slt, sum, other),
                  idx(std::numeric_limits<int64_t>::max()), sum);
  }
  Value offsetValue(PositionOffset offset) {
    Value off = idx(offset.staticOffset);
    return offset.dynamicOffset
               ? saturatingAdd(off, toIndex(offset.dynamicOffset))
               : off;
  }
  /// A for loop [lb, ub) step `step` whose body `body(iv)` yields nothing.
  void forLoop(Value lb, Value ub, Value step, function_ref<void(Value)> body) {
    scf::ForOp::create(b, lb, ub, step, ValueRange{},
                       [&](OpBuilder &ob, Location, Value iv, ValueRange) {
                         OpBuilder::InsertionGuard g(b);
                         b.setInsertionPoint(ob.getInsertionBlock(),
                                             ob.getInsertionPoint());
                         body(iv);
                         scf::YieldOp::create(b);
                       });
  }
  /// A for loop [lb, ub) step 1 carrying one value from `init`: `body(iv,
  /// acc)` returns the next value; returns the last.
  Value foldLoop(Value lb, Value ub, Value init,
                 function_ref<Value(Value, Value)> body) {
    auto loop = scf::ForOp::create(
        b, lb, ub, idx(1), ValueRange{init},
        [&](OpBuilder &ob, Location, Value iv, ValueRange acc) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          scf::YieldOp::create(b, ValueRange{body(iv, acc[0])});
        });
    return loop.getResult(0);
  }
  /// Opens an scf.if on `nonEmpty` around a kernel launch (a grid with no
  /// blocks is an error for CUDA) and returns it; the caller resumes after
  /// it with `b.setInsertionPointAfter`.
  scf::IfOp guardLaunch(Value nonEmpty) {
    auto ifOp = scf::IfOp::create(b, nonEmpty, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    return ifOp;
  }
  /// `then()` when `cond` holds.
  void ifThen(Value cond, function_ref<void()> then) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    then();
  }

  /// The tensor `t` as a flat identity-layout memref (a copy is made by
  /// bufferization only where the tensor's buffer is not contiguous).
  Value flatBuffer(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    Value m = bufferization::ToBufferOp::create(
        b, MemRefType::get(type.getShape(), type.getElementType()), t,
        /*readOnly=*/true);
    return flatten(m);
  }
  /// flatBuffer for a buffer a kernel reads: a rank-1 buffer is copied into
  /// a new one, so that no canonicalization between this pass and kernel
  /// outlining can fold the kernel's loads from it into a tensor.extract of
  /// the host tensor (the rank-1 buffers are small: lengths, slopes).
  Value kernelBuffer(Value t) {
    Value m = flatBuffer(t);
    if (cast<RankedTensorType>(t.getType()).getRank() != 1)
      return m;
    auto type = cast<MemRefType>(m.getType());
    Value copy = allocLike(type, memref::DimOp::create(b, m, 0).getResult());
    memref::CopyOp::create(b, m, copy);
    return copy;
  }
  /// kernelBuffer with elements of type `to` (f32, or i32 for a mask): the
  /// buffer itself when it has that type already, else a flat copy converted
  /// on the host (f64 rounded to f32 as the CPU kernels round the slopes,
  /// f16/bf16 widened, i1 zero-extended), so that kernels need neither f64
  /// nor 16-bit floats nor i1 storage buffers (SPIR-V has none).
  Value kernelBufferAs(Value t, Type to) {
    auto type = cast<RankedTensorType>(t.getType());
    Type from = type.getElementType();
    if (from == to)
      return kernelBuffer(t);
    Value m = flatBuffer(t);
    Value n = memref::DimOp::create(b, m, 0);
    Value copy = allocLike(
        MemRefType::get(cast<MemRefType>(m.getType()).getShape(), to), n);
    forLoop(idx(0), n, idx(1), [&](Value e) {
      Value x = memref::LoadOp::create(b, m, ValueRange{e});
      if (isa<IntegerType>(to))
        x = arith::ExtUIOp::create(b, to, x);
      else if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
        x = arith::ExtFOp::create(b, to, x);
      else
        x = arith::TruncFOp::create(b, to, x);
      memref::StoreOp::create(b, x, copy, ValueRange{e});
    });
    return copy;
  }
  Value flatten(Value m) {
    auto type = cast<MemRefType>(m.getType());
    if (type.getRank() == 1)
      return m;
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    return memref::CollapseShapeOp::create(b, m,
                                           ArrayRef<ReassociationIndices>{all});
  }
  /// A new buffer of `type` whose dynamic sizes are `dims` (one per
  /// dimension; only the dynamic ones are used).
  Value allocLike(MemRefType type, ArrayRef<Value> dims) {
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(dims[i]);
    return memref::AllocOp::create(b, type, dyn, b.getI64IntegerAttr(64));
  }
  Value dimOf(Value tensor, int64_t i) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(i))
      return idx(type.getDimSize(i));
    return tensor::DimOp::create(b, tensor, i);
  }
  /// Loads element `i` of a flat memref as f32.
  Value loadF32(Value mem, Value i) {
    Value v = memref::LoadOp::create(b, mem, ValueRange{i});
    if (v.getType() == f32)
      return v;
    if (v.getType().getIntOrFloatBitWidth() > 32)
      return arith::TruncFOp::create(b, f32, v);
    return arith::ExtFOp::create(b, f32, v);
  }
  /// The f32 `v` rounded to `type` when that is f16 or bf16 (as f32), else
  /// `v`: the kernels round rotated queries and keys to the input type, as
  /// the composition's pe.rope rounds them.
  Value roundThrough(Type type, Value v) {
    if (!isa<Float16Type, BFloat16Type>(type))
      return v;
    Value rounded = arith::TruncFOp::create(b, type, v);
    return arith::ExtFOp::create(b, f32, rounded);
  }
  /// Stores the f32 `v` into element `i` of a flat memref, rounding to its
  /// element type.
  void storeFromF32(Value v, Value mem, Value i) {
    Type et = cast<MemRefType>(mem.getType()).getElementType();
    if (et != f32)
      v = arith::TruncFOp::create(b, et, v);
    memref::StoreOp::create(b, v, mem, ValueRange{i});
  }

  /// Kernels take only memrefs (a convention the Vulkan runtime relies on:
  /// every kernel parameter is a buffer): the index scalars a kernel needs
  /// travel in one i64 buffer, written on the host and read in the kernel.
  Value packScalars(ArrayRef<Value> scalars) {
    auto type = MemRefType::get({int64_t(scalars.size())}, b.getI64Type());
    Value params = memref::AllocOp::create(b, type);
    for (auto [k, v] : llvm::enumerate(scalars))
      memref::StoreOp::create(b,
                              arith::IndexCastOp::create(b, b.getI64Type(), v),
                              params, ValueRange{idx(k)});
    return params;
  }
  Value unpackScalar(Value params, int64_t k) {
    return arith::IndexCastOp::create(
        b, b.getIndexType(),
        memref::LoadOp::create(b, params, ValueRange{idx(k)}));
  }

  /// The flat [rows, R/2] cos and sin tables of positions `offset + t`,
  /// t < rows, computed on the host: f64 angles p * inv_freq[i] and their
  /// cos/sin rounded once to f32, or rows of the caches (clamped); times the
  /// attention scaling.
  /// The cos/sin tables [rows, R/2] (flat) of the positions `offset + t`,
  /// or, with `positions` (a flat i32/i64 buffer), `positions[t]`.
  std::pair<Value, Value> buildTables(Value rows, Value offset,
                                      Value positions = Value());
  /// The table row of token `t` of batch `bIdx`: `bIdx * rows + t` for
  /// tables of [B, T] positions (`batched`, T = `rows`), else `t`.
  Value ropeRow(bool batched, Value bIdx, Value t, Value rows) {
    return batched ? addi(muli(bIdx, rows), t) : t;
  }
  /// Rotates pair `p` of a row: `x(c)` loads channel c of the row as f32;
  /// `emit(c, value)` receives the two rotated channels.
  void rotatePair(function_ref<Value(Value)> x, Value tableRow, Value p,
                  Value cosT, Value sinT,
                  function_ref<void(Value, Value)> emit);
  /// The channels (c0, c1) of pair `p`.
  std::pair<Value, Value> pairChannels(Value p) {
    if (rot->layout == RopeLayout::Half)
      return {p, addi(p, idx(rotary / 2))};
    Value c0 = muli(p, idx(2));
    return {c0, addi(c0, idx(1))};
  }

  /// The score modifications of the attention, in its order.
  Value modifyScore(AttentionOp op, Value s, Value qPos, Value j, Value slope);

  /// The host side of an attention kernel: sizes, flat operand views,
  /// result buffers, RoPE tables, ALiBi slopes and the packed scalars.
  struct AttentionHost {
    int64_t heads, kvHeads, group, d, dv;
    bool bshd;
    Value batch, tq, tkAll, q, k, v, outBuffer, out, lseBuffer, lse, lengths;
    Value qCos, qSin, kCos, kSin, slopes, params;
    // The tables hold one row per batch and token ([B, T] positions).
    bool qBatched = false, kBatched = false;
    // Explicit bias (f32 copy) and mask (i32 copy: SPIR-V storage buffers
    // hold no i1), flat, with their static broadcast shapes.
    Value bias, mask;
    SmallVector<int64_t, 4> biasShape, maskShape;
  };
  AttentionHost prepareAttention(AttentionOp op);
  /// The score of query token `i` of head `h` of batch `bIdx` and key `j`
  /// from its raw value `s` (scale applied): the op's modifications with the
  /// explicit bias between the softcap positions, then -inf unless the key
  /// is allowed (index masks: valid length `tk`, causal `limit`, window; and
  /// the explicit mask). Both attention kernels use it.
  Value finalScore(AttentionOp op, const AttentionHost &host, Value s,
                   Value qPos, Value slope, Value bIdx, Value h, Value i,
                   Value j, Value tk, Value tq, Value tkAll, Value limit);
  /// The flat offset of [B, H, Tq, Tk] position (bIdx, hIdx, i, j) in a
  /// bias or mask of static shape `shape` that broadcasts to it.
  Value broadcastOffset(ArrayRef<int64_t> shape, ArrayRef<Value> sizesHTqTk,
                        Value bIdx, Value hIdx, Value i, Value j);
  /// Replaces the results of `op` by the kernel's buffers and erases it.
  void finishAttention(AttentionOp op, const AttentionHost &host);
  /// Element offset of (batch, head, token, 0) in an operand of the op's
  /// layout with `h` heads, `t` tokens and `c` channels.
  Value rowStart(const AttentionHost &host, Value bIdx, Value hIdx, Value tIdx,
                 int64_t h, Value t, int64_t c) {
    Value outer =
        host.bshd ? addi(muli(bIdx, t), tIdx) : addi(muli(bIdx, idx(h)), hIdx);
    Value inner = host.bshd ? addi(muli(outer, idx(h)), hIdx)
                            : addi(muli(outer, t), tIdx);
    return muli(inner, idx(c));
  }
  /// The scalars every attention kernel reads back: (tq, tkAll,
  /// causalOffset, alibiBase or null).
  std::array<Value, 4> unpackAttentionScalars(const AttentionHost &host) {
    return {unpackScalar(host.params, 0), unpackScalar(host.params, 1),
            unpackScalar(host.params, 2),
            host.slopes ? unpackScalar(host.params, 3) : Value()};
  }
  /// The valid key count L[b] (AttentionPlan::buildValidKeys on
  /// kv_lengths[b]; its 64-bit clamp matters here: SPIR-V lowers index to 32
  /// bits).
  Value validKeys(AttentionOp op, const AttentionHost &host, Value bIdx,
                  Value tkAll) {
    Value len;
    if (host.lengths)
      len = memref::LoadOp::create(b, host.lengths, ValueRange{bIdx});
    return kernels::AttentionPlan(op).buildValidKeys(b, b.getLoc(), len, tkAll);
  }
  /// The causal shift o[b]: query token i sees keys j <= i + o[b].
  Value causalShift(AttentionOp op, Value tk, Value tq, Value causalOffset) {
    return kernels::AttentionPlan(op).buildCausalShift(b, b.getLoc(), tk, tq,
                                                       causalOffset);
  }
  /// The key tiles [begin, end) a block of rows [r0, r0 + bq) (of
  /// `rowsTotal` (head, token) rows) needs (AttentionPlan::buildKeyTileRange
  /// for its first and last token).
  std::pair<Value, Value> keyTileRange(AttentionOp op, Value r0, int64_t bq,
                                       Value rowsTotal, Value tq, Value tk,
                                       Value shift, int64_t bk);
  /// Whether the query row with causal limit `limit` (= i + o[b]) sees key
  /// `j`: j < L[b], and the causal and window masks of the op.
  Value keyAllowed(AttentionOp op, Value j, Value tk, Value limit);
  /// Stages a [rows][channels] tile into the workgroup buffer `dst`, the
  /// `threads` threads of a block (this one: `tid`) on consecutive
  /// elements: `source(rr)` gives (valid, the flat start of tile row rr in
  /// `src` (in bounds even when not valid), its RoPE table row); the first
  /// `rotated` channels are rotated pair by pair with (cosT, sinT); rows that
  /// are not valid are zeros; `round` turns each f32 value into what `dst`
  /// holds.
  void stageTile(Value dst, int64_t rows, int64_t channels, int64_t rotated,
                 Value src, Value cosT, Value sinT, Value tid, int64_t threads,
                 function_ref<std::tuple<Value, Value, Value>(Value)> source,
                 function_ref<Value(Value)> round);

  /// Stages key tile [j0, j0 + rows of `ks`) of KV head `kvh`: K (rotated as
  /// it is loaded) into `ks`, V into `vs`; keys past L[b] (`tk`) are zeros.
  void stageKeyTile(AttentionOp op, const AttentionHost &host, Value ks,
                    Value vs, Value bIdx, Value kvh, Value j0, Value tk,
                    Value tkAll, Value tid, int64_t threads,
                    function_ref<Value(Value)> round) {
    auto keyRow = [&](int64_t channels) {
      return [&, channels](Value jj) {
        Value j = addi(j0, jj);
        Value valid = cmpi(arith::CmpIPredicate::slt, j, tk);
        Value jSafe = select(valid, j, idx(0));
        return std::make_tuple(
            valid,
            rowStart(host, bIdx, kvh, jSafe, host.kvHeads, tkAll, channels),
            ropeRow(host.kBatched, bIdx, jSafe, tkAll));
      };
    };
    int64_t bk = cast<MemRefType>(ks.getType()).getDimSize(0);
    stageTile(ks, bk, host.d, op.rotatesKey() ? rotary : 0, host.k, host.kCos,
              host.kSin, tid, threads, keyRow(host.d), round);
    stageTile(vs, bk, host.dv, 0, host.v, Value(), Value(), tid, threads,
              keyRow(host.dv), round);
  }

  ImplicitLocOpBuilder b;
  PatternRewriter &rewriter;
  std::optional<Rotation> rot;
  GPUKernelOptions options;
  Type f32, f64;
  int64_t rotary = 0;
};

} // namespace gpu_kernels
} // namespace pe
} // namespace mlir

#endif // PE_LIB_CONVERSION_PETOGPU_KERNELBUILDER_H
