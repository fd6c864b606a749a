//===- PEToGPU.cpp - generated GPU kernels for pe ops ---------------------===//
//
// Part of the pe-mlir project.
//
// Replaces pe.attention, pe.rope and pe.add_sinusoidal by `gpu.launch`
// kernels on memrefs, specialised at compile time for the op's encodings,
// which the generator reads through the op's accessors (getRotation,
// getRopeQueryOffset, getAlibiQueryOffset, getScaleOrDefault, ...), exactly
// as the CPU kernels do. The launch is target-neutral gpu dialect: workgroup
// and private memory are launch attributions, and the rest of
// pe-gpu-pipeline lowers it to NVVM or SPIR-V.
//
// Attention (docs/CodegenGPU.md):
//
//   host          cos/sin of every query and key position ([T, R/2], f64
//                 angles rounded once to f32, or cache rows), the ALiBi
//                 slopes, and flat views of every operand.
//   grid          (ceil(G * Tq / BQ), Hkv, B); block: BQ threads. The rows
//                 of a block are (query head of the KV group, query token)
//                 pairs, so the query heads that share a KV head share its
//                 key/value tiles (GQA/MQA, and decode: Tq = 1).
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
// Tensor-core attention (f16/bf16 prefill, head dimensions multiples of 16,
// chip sm_80 and above, or tensor-cores=emulate): the same host part, grid,
// key tiles, staging, masks and score modifications, but 4 warps of 16 rows
// per block; per lane Q's mma.sync A fragments (rotated as loaded), S's and
// O's f32 accumulators in registers; S = Q K^T and O += P V with m16n8k16
// mma.sync (P reused from S's accumulators as A fragments), the score
// modifications per accumulator element from its (row, key), and the row
// max/sum over the 4 lanes of a fragment row with gpu.shuffle xor. Emulated,
// each mma.sync and shuffle goes through workgroup memory in the exact PTX
// fragment layouts, so the kernel runs on targets without tensor cores
// (SPIR-V on lavapipe).
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToGPU/PEToGPU.h"
#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/OptionRanges.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

#define DEBUG_TYPE "convert-pe-to-gpu"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOGPU
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// How f16/bf16 attention uses tensor cores (convert-pe-to-gpu{tensor-cores}).
enum class TensorCores { Auto, Off, Emulate };

/// What the kernels may assume of the target.
struct KernelOptions {
  int64_t blockRows = 64;
  /// Keys per K/V tile: the pass option, at most (fitKeyTile gives the tile
  /// a kernel takes).
  int64_t keyTile = 32;
  /// Static workgroup memory a kernel may use (convert-pe-to-gpu
  /// {shared-memory-bytes}).
  int64_t sharedMemoryBytes = 49152;
  int64_t ropeBlock = 128;
  /// Keys per split of a decode attention's key range (split-KV); 0: none.
  int64_t decodeSplitKeys = 128;
  bool allowF16 = true;
  bool allowBF16 = true;
  bool staticBuffersOnly = false;
  TensorCores tensorCores = TensorCores::Auto;
  /// The NVVM chip's compute capability (80 for sm_80), 0 if none is known.
  int64_t smVersion = 0;
  std::string chip;
};

/// Query rows (and threads / 2) per block of the tensor-core kernel: 4 warps
/// of 16 rows.
constexpr int64_t kMmaWarps = 4;
constexpr int64_t kWarpSize = 32;
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
WorkgroupBytes simtWorkgroupBytes(int64_t d, int64_t dv) {
  return {(d + dv) * 4, 0};
}

/// The tensor-core attention kernel's: K and V tiles of the (16-bit) input
/// type, and the emulation's A, B and exchange buffers when emulated.
WorkgroupBytes mmaWorkgroupBytes(int64_t d, int64_t dv, bool emulate) {
  return {(d + dv) * 2, emulate ? (kMmaWarps * 16 * 16 + kMmaWarps * 16 * 8 +
                                   kMmaWarps * kWarpSize) *
                                      4
                                : 0};
}

/// The decode attention kernel's, for a GQA group of `g` query heads: K
/// tiles of f32 rows padded to D + 1, V tiles, the group's scores per key;
/// Q of the group and 4 values per row.
WorkgroupBytes decodeWorkgroupBytes(int64_t g, int64_t d, int64_t dv) {
  return {(d + 1 + dv + g) * 4, (g * d + 4 * g) * 4};
}

/// Bytes of the static-shape memrefs `types` (the workgroup attributions of a
/// launch): what simtWorkgroupBytes / mmaWorkgroupBytes must account for.
[[maybe_unused]] int64_t staticBytes(TypeRange types) {
  int64_t bytes = 0;
  for (Type t : types) {
    auto m = cast<MemRefType>(t);
    bytes += m.getNumElements() * m.getElementTypeBitWidth() / 8;
  }
  return bytes;
}

/// The largest key tile of at most `options.keyTile` keys, a multiple of
/// `multiple`, whose workgroup memory `bytes` is within
/// `options.sharedMemoryBytes`; 0 if there is none.
int64_t fitKeyTile(const KernelOptions &options, int64_t multiple,
                   WorkgroupBytes bytes) {
  if (bytes.fixed > options.sharedMemoryBytes)
    return 0;
  int64_t fits = bytes.perKey
                     ? (options.sharedMemoryBytes - bytes.fixed) / bytes.perKey
                     : options.keyTile;
  return std::min(options.keyTile, fits) / multiple * multiple;
}

/// The compute capability of an NVVM chip name (`sm_80`, `sm_90a`: 80, 90),
/// 0 if it is not one.
int64_t parseSmVersion(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return 0;
  int64_t v = 0;
  StringRef digits = chip.take_while([](char c) { return isdigit(c); });
  if (digits.empty() || digits.getAsInteger(10, v))
    return 0;
  return v;
}

/// Why element type `t` has no GPU kernel under `options` (empty if it has).
std::string unsupportedElementReason(Type t, const KernelOptions &options) {
  if (t.isF32())
    return "";
  if (t.isF16())
    return options.allowF16 ? ""
                            : "f16 operands on a target without f16 "
                              "(allow-f16=false)";
  if (t.isBF16())
    return options.allowBF16 ? ""
                             : "bf16 operands on a target without bf16 "
                               "(allow-bf16=false)";
  return "element type is not f32, f16 or bf16";
}

/// Why `op` has no kernel because one of its tensors is statically empty
/// (empty if none is). A zero-size buffer has no SPIR-V type, and there is
/// nothing to launch: the reference lowering on the host gives the result
/// (an empty result, or for no keys the zeros of fully masked rows), as on
/// the CPU.
std::string emptyTensorReason(Operation *op) {
  auto isEmpty = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && shaped.hasRank() &&
           llvm::is_contained(shaped.getShape(), 0);
  };
  if (llvm::any_of(op->getOperandTypes(), isEmpty) ||
      llvm::any_of(op->getResultTypes(), isEmpty))
    return "a statically empty tensor (a size of 0): no kernel to launch";
  return "";
}

/// Why an attention has no GPU kernel (empty if it has one).
std::string unsupportedReason(AttentionOp op, const KernelOptions &options) {
  if (std::string why = emptyTensorReason(op); !why.empty())
    return why;
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  auto v = op.getValue().getType();
  for (Type t : {q.getElementType(), k.getElementType(), v.getElementType()})
    if (std::string why = unsupportedElementReason(t, options); !why.empty())
      return why;
  if (q.isDynamicDim(op.getHeadsAxis()) || k.isDynamicDim(op.getHeadsAxis()))
    return "dynamic head counts";
  if (q.isDynamicDim(3) || v.isDynamicDim(3))
    return "dynamic head dimension";
  if (q.getDimSize(3) > 512 || v.getDimSize(3) > 512)
    return "head dimensions above 512 (per-thread private arrays)";
  // (The tensor-core kernel's smallest tiles, 16 keys of 2 bytes, are larger
  // than this one.)
  if (uint64_t bytes = simtWorkgroupBytes(q.getDimSize(3), v.getDimSize(3))(1);
      bytes > static_cast<uint64_t>(options.sharedMemoryBytes))
    return "a K/V tile of one key takes " + std::to_string(bytes) +
           " bytes of workgroup memory, above shared-memory-bytes=" +
           std::to_string(options.sharedMemoryBytes);
  if (options.staticBuffersOnly &&
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto shaped = dyn_cast<ShapedType>(t);
        return !shaped || shaped.hasStaticShape();
      }))
    return "dynamic shapes on a target whose kernels take static-size "
           "buffers (static-buffers-only=true)";
  return "";
}

/// Why an attention that has a GPU kernel does not get the tensor-core
/// kernel, or std::nullopt if it does. Only f16/bf16 attention is reported
/// (an empty reason: f32 attention, which runs on the FMA units by design).
std::optional<std::string> noTensorCoreReason(AttentionOp op,
                                              const KernelOptions &options) {
  Type et = op.getQuery().getType().getElementType();
  if (!et.isF16() && !et.isBF16())
    return std::string();
  if (options.tensorCores == TensorCores::Off)
    return std::string("tensor-cores=off");
  // (The verifier gives an f16/bf16 query f16/bf16 keys and values of the
  // same type.)
  int64_t d = op.getQuery().getType().getDimSize(3);
  int64_t dv = op.getValue().getType().getDimSize(3);
  if (d % 16 != 0 || dv % 16 != 0)
    return "head dimensions " + std::to_string(d) + " and " +
           std::to_string(dv) +
           " are not both multiples of 16 (mma.sync m16n8k16)";
  // Q's A fragments and O's accumulators are registers: D = Dv = 256 spills
  // (40 bytes on sm_80 with the default key tile).
  if (d > kMmaMaxHeadDim || dv > kMmaMaxHeadDim)
    return "head dimensions " + std::to_string(d) + " and " +
           std::to_string(dv) + " above " + std::to_string(kMmaMaxHeadDim) +
           " (the lane's fragments would not fit in registers)";
  if (op.getQuery().getType().getDimSize(op.getSequenceAxis()) == 1)
    return std::string("decode (one query token): the decode kernel splits "
                       "the keys over blocks and threads instead");
  if (options.keyTile % 16 != 0)
    return "key-tile " + std::to_string(options.keyTile) +
           " is not a multiple of 16";
  bool emulate = options.tensorCores == TensorCores::Emulate;
  if (!emulate && options.chip.empty())
    return std::string("no NVVM chip (chip=; pe-gpu-pipeline target=spirv "
                       "has no mma.sync: tensor-cores=emulate builds the "
                       "fragment kernel with emulated mma.sync)");
  if (!emulate && options.smVersion < 80)
    return "chip " + options.chip +
           " is below sm_80 (mma.sync m16n8k16 with f32 accumulators)";
  if (uint64_t bytes = mmaWorkgroupBytes(d, dv, emulate)(16);
      bytes > static_cast<uint64_t>(options.sharedMemoryBytes))
    return "its workgroup memory with key tiles of 16 keys, " +
           std::to_string(bytes) + " bytes, is above shared-memory-bytes=" +
           std::to_string(options.sharedMemoryBytes);
  return std::nullopt;
}

/// Why a pe.rope has no GPU kernel (empty if it has one).
std::string unsupportedRopeReason(RopeOp op, const KernelOptions &options) {
  if (std::string why = emptyTensorReason(op); !why.empty())
    return why;
  auto type = op.getInput().getType();
  if (std::string why =
          unsupportedElementReason(type.getElementType(), options);
      !why.empty())
    return why;
  if (op.getPositions())
    return "explicit positions tensor";
  if (op.hasPerTokenCaches())
    return "per-token cos/sin caches";
  if (op.getSequenceDimOrDefault() != type.getRank() - 2)
    return "tokens along a dimension other than -2 (sequence_dim)";
  if (type.isDynamicDim(type.getRank() - 1))
    return "dynamic channel dimension";
  if (options.staticBuffersOnly &&
      !llvm::all_of(op->getOperandTypes(), [](Type t) {
        auto shaped = dyn_cast<ShapedType>(t);
        return !shaped || shaped.hasStaticShape();
      }))
    return "dynamic shapes on a target whose kernels take static-size "
           "buffers (static-buffers-only=true)";
  return "";
}

/// Why a pe.add_sinusoidal has no GPU kernel (empty if it has one).
std::string unsupportedSinusoidalReason(AddSinusoidalOp op,
                                        const KernelOptions &options) {
  if (std::string why = emptyTensorReason(op); !why.empty())
    return why;
  auto type = op.getInput().getType();
  if (std::string why =
          unsupportedElementReason(type.getElementType(), options);
      !why.empty())
    return why;
  if (op.getPositions())
    return "explicit positions tensor";
  if (options.staticBuffersOnly && !type.hasStaticShape())
    return "dynamic shapes on a target whose kernels take static-size "
           "buffers (static-buffers-only=true)";
  return "";
}

/// Emits the GPU kernel of one op at its position.
class GPUKernelBuilder {
public:
  GPUKernelBuilder(Operation *op, std::optional<Rotation> rotation,
                   const KernelOptions &options)
      : b(op->getLoc(), op), rot(rotation), options(options),
        f32(Float32Type::get(op->getContext())),
        f64(Float64Type::get(op->getContext())) {
    rotary = rot ? rot->rotaryDim : 0;
  }

  /// Replaces `op` (and its lse result) by the attention kernel (one query
  /// row per thread).
  void buildAttention(AttentionOp op);
  /// Replaces `op` (f16/bf16, head dimensions multiples of 16) by the
  /// tensor-core attention kernel: mma.sync, or its emulation through
  /// workgroup memory when `emulate`.
  void buildAttentionMMA(AttentionOp op, bool emulate);
  /// The decode attention kernel (one query token, static): blocks (key
  /// split, KV head, batch), the threads spread over the (query head, key)
  /// pairs of a key tile for the scores and over the value channels for
  /// P V; writes each split's partial result for buildSplitCombine.
  void buildDecodeAttention(AttentionOp op, int64_t keyTile);
  /// Replaces `op` by the RoPE kernel.
  void buildRope(RopeOp op);
  /// Replaces `op` by the sinusoidal-encoding kernel.
  void buildSinusoidal(AddSinusoidalOp op);

private:
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
  std::pair<Value, Value> buildTables(Value rows, Value offset);
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
  /// The split count and tiles per split of a decode attention with key
  /// tiles of `bk` keys (decode-split-keys, at most kMaxKeySplits splits):
  /// constants for a static key length, host values otherwise.
  std::pair<Value, Value> keySplits(const AttentionHost &host, int64_t bk);
  /// The second kernel of a split-KV attention: one thread per (batch,
  /// head, token) row merges the splits' partial (O, m, l) into the result
  /// (and lse). `splitParams` holds (tiles per split, splits, rows).
  void buildSplitCombine(const AttentionHost &host, Value splitParams,
                         Value oPart, Value mPart, Value lPart);
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
            jSafe);
      };
    };
    int64_t bk = cast<MemRefType>(ks.getType()).getDimSize(0);
    stageTile(ks, bk, host.d, op.rotatesKey() ? rotary : 0, host.k, host.kCos,
              host.kSin, tid, threads, keyRow(host.d), round);
    stageTile(vs, bk, host.dv, 0, host.v, Value(), Value(), tid, threads,
              keyRow(host.dv), round);
  }

  /// The lanes of the tensor-core kernel and how its mma.sync run.
  struct MmaLanes {
    bool emulate;
    Type input;                   // f16 or bf16
    Value tid, warp, group, quad; // quad: lane % 4, group: lane / 4
    Value ea, eb, ex;             // emulation scratch (workgroup)
  };
  /// One m16n8k16 mma.sync of this warp, C (4 f32 at acc[accBase + 2 i +
  /// j], the lane's c_{2i+j}) += A B: `a(i, j)` gives the lane's A fragment
  /// element {a_{2i+j}} (vector<4x2>), `bOp(i, j)` its B element (vector<2x2>),
  /// both as values of the input type (or f32 holding such values when
  /// emulated).
  void mma(const MmaLanes &lanes, function_ref<Value(int64_t, int64_t)> a,
           function_ref<Value(int64_t, int64_t)> bOp, Value acc, Value accBase);
  /// `v` of the lane `lane ^ mask` of the same warp (mask < 32).
  Value shuffleXor(const MmaLanes &lanes, Value v, int64_t mask);
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

  ImplicitLocOpBuilder b;
  std::optional<Rotation> rot;
  KernelOptions options;
  Type f32, f64;
  int64_t rotary = 0;
};

std::pair<Value, Value> GPUKernelBuilder::buildTables(Value rows,
                                                      Value offset) {
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
    Value pos = saturatingAdd(t, offset);
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

void GPUKernelBuilder::rotatePair(function_ref<Value(Value)> x, Value tableRow,
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

Value GPUKernelBuilder::modifyScore(AttentionOp op, Value s, Value qPos,
                                    Value j, Value slope) {
  Value jF = op.getAlibiAttr() ? indexToF32(j) : Value();
  return op.buildScoreModifiers(b, b.getLoc(), s, qPos, jF, slope);
}

GPUKernelBuilder::AttentionHost
GPUKernelBuilder::prepareAttention(AttentionOp op) {
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
    std::tie(host.qCos, host.qSin) =
        buildTables(tq, offsetValue(op.getRopeQueryOffset()));
    if (op.rotatesKey())
      std::tie(host.kCos, host.kSin) =
          buildTables(tkAll, offsetValue(op.getRopeKeyOffset()));
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

Value GPUKernelBuilder::finalScore(AttentionOp op, const AttentionHost &host,
                                   Value s, Value qPos, Value slope, Value bIdx,
                                   Value h, Value i, Value j, Value tk,
                                   Value tq, Value tkAll, Value limit) {
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

Value GPUKernelBuilder::broadcastOffset(ArrayRef<int64_t> shape,
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

void GPUKernelBuilder::finishAttention(AttentionOp op,
                                       const AttentionHost &host) {
  auto toTensor = [&](Type type, Value buffer) -> Value {
    return bufferization::ToTensorOp::create(b, type, buffer,
                                             /*restrict=*/true,
                                             /*writable=*/true);
  };
  op.getResult().replaceAllUsesWith(
      toTensor(op.getResult().getType(), host.outBuffer));
  if (Value lseResult = op.getLse())
    lseResult.replaceAllUsesWith(toTensor(lseResult.getType(), host.lseBuffer));
  op->erase();
}

std::pair<Value, Value>
GPUKernelBuilder::keyTileRange(AttentionOp op, Value r0, int64_t bq,
                               Value rowsTotal, Value tq, Value tk, Value shift,
                               int64_t bk) {
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

Value GPUKernelBuilder::keyAllowed(AttentionOp op, Value j, Value tk,
                                   Value limit) {
  return kernels::AttentionPlan(op).buildKeyAllowedAtLimit(b, b.getLoc(), j,
                                                           limit, tk);
}

void GPUKernelBuilder::stageTile(
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

void GPUKernelBuilder::buildAttention(AttentionOp op) {
  AttentionHost host = prepareAttention(op);
  int64_t heads = host.heads, kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv;
  int64_t bq = options.blockRows, bk = options.keyTile;
  double scale = op.getScaleOrDefault();
  Value batch = host.batch, tq = host.tq;
  Value q = host.q, out = host.out, lse = host.lse, slopes = host.slopes;
  Value qCos = host.qCos, qSin = host.qSin;
  auto rowStart = [&](Value bIdx, Value hIdx, Value tIdx, int64_t h, Value t,
                      int64_t c) {
    return this->rowStart(host, bIdx, hIdx, tIdx, h, t, c);
  };

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
    // The host scalars, read back in the kernel.
    std::array<Value, 4> scalars = unpackAttentionScalars(host);
    Value tq = scalars[0], tkAll = scalars[1], causalOffset = scalars[2],
          alibiBase = scalars[3];
    Value rowsTotal = muli(idx(group), tq);
    Value ks = launch.getWorkgroupAttributions()[0];
    Value vs = launch.getWorkgroupAttributions()[1];
    Value qp = launch.getPrivateAttributions()[0];
    Value acc = launch.getPrivateAttributions()[1];
    Value sp = launch.getPrivateAttributions()[2];
    Value tx = launch.getThreadIds().x;
    Value bIdx = launch.getBlockIds().z, kvh = launch.getBlockIds().y;
    Value r0 = muli(launch.getBlockIds().x, idx(bq));
    Value r = addi(r0, tx);
    Value active = cmpi(arith::CmpIPredicate::ult, r, rowsTotal);
    // Inactive threads (past the last row) work on row 0 and store nothing:
    // they still load their share of every tile and reach every barrier.
    Value row = select(active, r, idx(0));
    Value i = remui(row, tq);
    Value h = addi(muli(kvh, idx(group)), divui(row, tq));
    // L[b] and the causal offset o[b].
    Value tk = validKeys(op, host, bIdx, tkAll);
    Value shift = causalShift(op, tk, tq, causalOffset);
    Value tileBegin, tileEnd;
    std::tie(tileBegin, tileEnd) =
        keyTileRange(op, r0, bq, rowsTotal, tq, tk, shift, bk);

    // This thread's query row, rotated and times the scale.
    Value qRow = rowStart(bIdx, h, i, heads, tq, d);
    auto loadQ = [&](Value c) { return loadF32(q, addi(qRow, c)); };
    Value scaleV = cf(scale);
    auto storeQ = [&](Value c, Value x) {
      memref::StoreOp::create(b, mulf(x, scaleV), qp, ValueRange{c});
    };
    // f16/bf16 inputs: the rotated queries and keys rounded to the input
    // type, as the composition's pe.rope rounds them (the op allows keeping
    // them in f32, but a bf16 rounding step moves scores by up to 2^-9 of
    // |q||k|, more than the other differences between the two forms).
    auto roundTo = [&](Type type) {
      return [&, type](Value v) { return roundThrough(type, v); };
    };
    auto asInput = roundTo(op.getQuery().getType().getElementType());
    // Keys (and values, exact in their type already) in the key's type.
    auto asKey = roundTo(op.getKey().getType().getElementType());
    if (rotary) {
      forLoop(idx(0), idx(rotary / 2), idx(1), [&](Value p) {
        rotatePair(loadQ, i, p, qCos, qSin, [&](Value y0, Value y1) {
          auto [c0, c1] = pairChannels(p);
          storeQ(c0, asInput(y0));
          storeQ(c1, asInput(y1));
        });
      });
    }
    forLoop(idx(rotary), idx(d), idx(1), [&](Value c) { storeQ(c, loadQ(c)); });
    forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
      memref::StoreOp::create(b, cf(0.0), acc, ValueRange{c});
    });
    Value slope;
    if (slopes)
      slope = loadF32(slopes, h);
    Value qPos = alibiBase ? indexToF32(addi(alibiBase, i)) : Value();
    Value limit = addi(i, shift);
    Value negInf = cf(-std::numeric_limits<double>::infinity());

    auto tiles = scf::ForOp::create(
        b, tileBegin, tileEnd, idx(1), ValueRange{negInf, cf(0.0)},
        [&](OpBuilder &ob, Location, Value tile, ValueRange state) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          Value j0 = muli(tile, idx(bk));
          // Stage K (rotated as loaded, f16/bf16: rounded to the input
          // type like the queries) and V; keys past L[b] are zero.
          stageKeyTile(op, host, ks, vs, bIdx, kvh, j0, tk, tkAll, tx, bq,
                       asKey);
          gpu::BarrierOp::create(b);

          // Scores of this thread's row against the tile, and their max.
          auto scores = scf::ForOp::create(
              b, idx(0), idx(bk), idx(1), ValueRange{negInf},
              [&](OpBuilder &sb, Location, Value jj, ValueRange mx) {
                OpBuilder::InsertionGuard g2(b);
                b.setInsertionPoint(sb.getInsertionBlock(),
                                    sb.getInsertionPoint());
                Value j = addi(j0, jj);
                auto dot = scf::ForOp::create(
                    b, idx(0), idx(d), idx(1), ValueRange{cf(0.0)},
                    [&](OpBuilder &db, Location, Value c, ValueRange sum) {
                      OpBuilder::InsertionGuard g3(b);
                      b.setInsertionPoint(db.getInsertionBlock(),
                                          db.getInsertionPoint());
                      Value qc = memref::LoadOp::create(b, qp, ValueRange{c});
                      Value kc =
                          memref::LoadOp::create(b, ks, ValueRange{jj, c});
                      scf::YieldOp::create(b, ValueRange{math::FmaOp::create(
                                                  b, qc, kc, sum[0])});
                    });
                Value s = finalScore(op, host, dot.getResult(0), qPos, slope,
                                     bIdx, h, i, j, tk, tq, tkAll, limit);
                memref::StoreOp::create(b, s, sp, ValueRange{jj});
                scf::YieldOp::create(
                    b, ValueRange{arith::MaximumFOp::create(b, mx[0], s)});
              });
          // Online softmax: m_new, the rescale factor, then P V.
          Value mOld = state[0], lOld = state[1];
          Value mNew = arith::MaximumFOp::create(b, mOld, scores.getResult(0));
          // A row without an allowed key so far keeps m = -inf; exponents
          // are taken against 0 then, which gives exp(-inf) = 0, not NaN.
          Value safeM = select(
              arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, mNew, negInf),
              cf(0.0), mNew);
          Value alpha =
              math::ExpOp::create(b, arith::SubFOp::create(b, mOld, safeM));
          forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
            Value o = memref::LoadOp::create(b, acc, ValueRange{c});
            memref::StoreOp::create(b, mulf(o, alpha), acc, ValueRange{c});
          });
          auto pv = scf::ForOp::create(
              b, idx(0), idx(bk), idx(1), ValueRange{mulf(lOld, alpha)},
              [&](OpBuilder &pb, Location, Value jj, ValueRange sum) {
                OpBuilder::InsertionGuard g2(b);
                b.setInsertionPoint(pb.getInsertionBlock(),
                                    pb.getInsertionPoint());
                Value s = memref::LoadOp::create(b, sp, ValueRange{jj});
                Value p =
                    math::ExpOp::create(b, arith::SubFOp::create(b, s, safeM));
                // A key the row does not see (score -inf) adds nothing, not
                // 0 * v: a NaN or infinity in its value row must not reach
                // this row (pe.attention's NaN semantics). UNE keeps NaN
                // scores, which must reach it.
                Value seen = arith::CmpFOp::create(b, arith::CmpFPredicate::UNE,
                                                   s, negInf);
                ifThen(seen, [&] {
                  forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
                    Value o = memref::LoadOp::create(b, acc, ValueRange{c});
                    Value vc = memref::LoadOp::create(b, vs, ValueRange{jj, c});
                    memref::StoreOp::create(b, math::FmaOp::create(b, p, vc, o),
                                            acc, ValueRange{c});
                  });
                });
                scf::YieldOp::create(b, ValueRange{addf(sum[0], p)});
              });
          // Every thread is done with the tile before the next one is staged.
          gpu::BarrierOp::create(b);
          scf::YieldOp::create(b, ValueRange{mNew, pv.getResult(0)});
        });

    // Epilogue: O / l, 0 for a row without allowed keys; lse = m + log l.
    Value m = tiles.getResult(0), l = tiles.getResult(1);
    ifThen(active, [&] {
      Value empty =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
      Value inv = select(empty, cf(0.0), arith::DivFOp::create(b, cf(1.0), l));
      Value oRow = rowStart(bIdx, h, i, heads, tq, dv);
      forLoop(idx(0), idx(dv), idx(1), [&](Value c) {
        Value o = memref::LoadOp::create(b, acc, ValueRange{c});
        storeFromF32(mulf(o, inv), out, addi(oRow, c));
      });
      if (lse) {
        Value at = addi(muli(addi(muli(bIdx, idx(heads)), h), tq), i);
        memref::StoreOp::create(b, addf(m, math::LogOp::create(b, l)), lse,
                                ValueRange{at});
      }
    });
    gpu::TerminatorOp::create(b);
  }

  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

std::pair<Value, Value> GPUKernelBuilder::keySplits(const AttentionHost &host,
                                                    int64_t bk) {
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

/// The key tile of the decode attention kernel for `op`: the largest up to
/// `key-tile` whose workgroup buffers fit the budget; none for an op with
/// more than one query token, or (with the reason in `whyNot`) when even one
/// key does not fit or the accumulators would not.
std::optional<int64_t> decodeKeyTile(AttentionOp op,
                                     const KernelOptions &options,
                                     std::string &whyNot) {
  auto qType = op.getQuery().getType();
  if (qType.getDimSize(op.getSequenceAxis()) != 1)
    return std::nullopt;
  int64_t hAx = op.getHeadsAxis();
  int64_t g = qType.getDimSize(hAx) / op.getKey().getType().getDimSize(hAx);
  int64_t d = qType.getDimSize(3), dv = op.getValue().getType().getDimSize(3);
  int64_t threads = options.blockRows;
  // The accumulators of the group's rows, Dv / threads channels each, are
  // the thread's own (private) array.
  int64_t accumulators = g * ((dv + threads - 1) / threads);
  if (accumulators > kDecodeMaxAccumulators) {
    whyNot = std::to_string(accumulators) +
             " accumulators per thread (GQA group " + std::to_string(g) +
             " x ceil(Dv " + std::to_string(dv) + " / block-rows " +
             std::to_string(threads) + ")), more than " +
             std::to_string(kDecodeMaxAccumulators);
    return std::nullopt;
  }
  WorkgroupBytes bytes = decodeWorkgroupBytes(g, d, dv);
  if (int64_t bk = fitKeyTile(options, 1, bytes))
    return bk;
  whyNot = "its workgroup buffers need " + std::to_string(bytes(1)) +
           " bytes with one key per tile, more than shared-memory-bytes=" +
           std::to_string(options.sharedMemoryBytes);
  return std::nullopt;
}

void GPUKernelBuilder::buildDecodeAttention(AttentionOp op, int64_t bk) {
  AttentionHost host = prepareAttention(op);
  int64_t heads = host.heads, kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv;
  int64_t threads = options.blockRows;
  // Channels of each row's accumulator per thread: c = tx + k * threads.
  int64_t cpt = (dv + threads - 1) / threads;
  double scale = op.getScaleOrDefault();
  Value batch = host.batch, tq = host.tq;

  // Split-KV: blocks (split, KV head, batch); partial (O, m, l) per split,
  // merged by buildSplitCombine.
  // One split known at compile time: the kernel writes the result itself.
  auto [splits, tilesPerSplit] = keySplits(host, bk);
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
    std::array<Value, 4> scalars = unpackAttentionScalars(host);
    Value tq = scalars[0], tkAll = scalars[1], causalOffset = scalars[2],
          alibiBase = scalars[3];
    Value qs = launch.getWorkgroupAttributions()[0];
    Value ks = launch.getWorkgroupAttributions()[1];
    Value vs = launch.getWorkgroupAttributions()[2];
    Value ps = launch.getWorkgroupAttributions()[3];
    Value rowState = launch.getWorkgroupAttributions()[4];
    Value acc = launch.getPrivateAttributions()[0];
    Value tx = launch.getThreadIds().x;
    Value split = launch.getBlockIds().x, kvh = launch.getBlockIds().y,
          bIdx = launch.getBlockIds().z;
    // Per-row state in rowState: m (running max), l (running sum), the
    // tile's rescale factor alpha, and the tile's exponent base.
    enum { kMax, kSum, kAlpha, kBase };
    auto rowAt = [&](int64_t what, Value gRow) -> SmallVector<Value, 2> {
      return {idx(what), gRow};
    };
    Value tk = validKeys(op, host, bIdx, tkAll);
    Value shift = causalShift(op, tk, tq, causalOffset);
    Value tileBegin, tileEnd;
    std::tie(tileBegin, tileEnd) =
        keyTileRange(op, idx(0), group, idx(group), tq, tk, shift, bk);
    Value perSplit = unpackScalar(splitParams, 0);
    Value first = muli(split, perSplit);
    tileBegin = maxsi(tileBegin, first);
    tileEnd = minsi(tileEnd, addi(first, perSplit));

    // f16/bf16: the rotated queries and keys rounded to the input type, as
    // in the one-row-per-thread kernel.
    auto roundTo = [&](Type type) {
      return [&, type](Value v) { return roundThrough(type, v); };
    };
    auto asInput = roundTo(op.getQuery().getType().getElementType());
    auto asKey = roundTo(op.getKey().getType().getElementType());
    Value scaleV = cf(scale);
    // The group's query rows (token 0), rotated and times the scale.
    stageTile(
        qs, group, d, rotary, host.q, host.qCos, host.qSin, tx, threads,
        [&](Value g) {
          Value h = addi(muli(kvh, idx(group)), g);
          return std::make_tuple(Value(arith::ConstantIntOp::create(b, 1, 1)),
                                 rowStart(host, bIdx, h, idx(0), heads, tq, d),
                                 idx(0));
        },
        [&](Value v) { return mulf(asInput(v), scaleV); });
    Value negInf = cf(-std::numeric_limits<double>::infinity());
    forLoop(tx, idx(group), idx(threads), [&](Value g) {
      memref::StoreOp::create(b, negInf, rowState, rowAt(kMax, g));
      memref::StoreOp::create(b, cf(0.0), rowState, rowAt(kSum, g));
    });
    forLoop(idx(0), idx(group * cpt), idx(1), [&](Value e) {
      memref::StoreOp::create(b, cf(0.0), acc, ValueRange{e});
    });
    Value qPos = alibiBase ? indexToF32(alibiBase) : Value();
    Value limit = shift; // token 0: i + o[b]
    // A channel this thread owns: c = tx + k * threads < Dv.
    auto forOwnChannels = [&](function_ref<void(Value k, Value c)> body) {
      forLoop(idx(0), idx(cpt), idx(1), [&](Value k) {
        Value c = addi(tx, muli(k, idx(threads)));
        if (dv % threads == 0)
          body(k, c);
        else
          ifThen(cmpi(arith::CmpIPredicate::ult, c, idx(dv)),
                 [&] { body(k, c); });
      });
    };

    forLoop(tileBegin, tileEnd, idx(1), [&](Value tile) {
      Value j0 = muli(tile, idx(bk));
      stageKeyTile(op, host, ks, vs, bIdx, kvh, j0, tk, tkAll, tx, threads,
                   asKey);
      gpu::BarrierOp::create(b);
      // Scores: the threads take (row, key) pairs, each a dot product of a
      // query row and a key row in workgroup memory.
      forLoop(tx, idx(group * bk), idx(threads), [&](Value e) {
        Value g = divui(e, idx(bk)), jj = remui(e, idx(bk));
        Value dot = foldLoop(idx(0), idx(d), cf(0.0), [&](Value c, Value sum) {
          Value qc = memref::LoadOp::create(b, qs, ValueRange{g, c});
          Value kc = memref::LoadOp::create(b, ks, ValueRange{jj, c});
          return Value(math::FmaOp::create(b, qc, kc, sum));
        });
        Value h = addi(muli(kvh, idx(group)), g);
        Value slope = host.slopes ? loadF32(host.slopes, h) : Value();
        Value s = finalScore(op, host, dot, qPos, slope, bIdx, h, idx(0),
                             addi(j0, jj), tk, tq, tkAll, limit);
        memref::StoreOp::create(b, s, ps, ValueRange{g, jj});
      });
      gpu::BarrierOp::create(b);
      // Per row: the new max, the rescale factor and the exponent base.
      forLoop(tx, idx(group), idx(threads), [&](Value g) {
        Value tileMax =
            foldLoop(idx(0), idx(bk), negInf, [&](Value jj, Value mx) {
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
      // gets -1, so that P V skips it (a NaN or infinity in its value row
      // must not reach the row); NaN scores stay NaN and reach it.
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
      // consecutive channels of a value row); the row's own thread also
      // updates l = alpha l + sum P.
      forLoop(idx(0), idx(group), idx(1), [&](Value g) {
        Value alpha = memref::LoadOp::create(b, rowState, rowAt(kAlpha, g));
        auto seenAt = [&](Value p) {
          return arith::CmpFOp::create(b, arith::CmpFPredicate::UNE, p,
                                       cf(-1.0));
        };
        forOwnChannels([&](Value k, Value c) {
          Value at = addi(muli(g, idx(cpt)), k);
          Value o0 =
              mulf(memref::LoadOp::create(b, acc, ValueRange{at}), alpha);
          Value pv = foldLoop(idx(0), idx(bk), o0, [&](Value jj, Value o) {
            Value p = memref::LoadOp::create(b, ps, ValueRange{g, jj});
            Value vc = memref::LoadOp::create(b, vs, ValueRange{jj, c});
            return select(seenAt(p), math::FmaOp::create(b, p, vc, o), o);
          });
          memref::StoreOp::create(b, pv, acc, ValueRange{at});
        });
        ifThen(cmpi(arith::CmpIPredicate::eq, remui(g, idx(threads)), tx), [&] {
          Value sum =
              foldLoop(idx(0), idx(bk), cf(0.0), [&](Value jj, Value l) {
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
    });

    auto writePartials = [&] {
      // The split's partial result: O (not divided by l) by the channel
      // owners, m and l by the row's thread (which wrote them).
      Value rows = unpackScalar(splitParams, 2);
      auto slotOf = [&](Value g) {
        Value h = addi(muli(kvh, idx(group)), g);
        return addi(muli(split, rows),
                    muli(addi(muli(bIdx, idx(heads)), h), tq));
      };
      forLoop(idx(0), idx(group), idx(1), [&](Value g) {
        Value slot = slotOf(g);
        forOwnChannels([&](Value k, Value c) {
          memref::StoreOp::create(
              b,
              memref::LoadOp::create(b, acc,
                                     ValueRange{addi(muli(g, idx(cpt)), k)}),
              oPart, ValueRange{addi(muli(slot, idx(dv)), c)});
        });
      });
      forLoop(tx, idx(group), idx(threads), [&](Value g) {
        Value slot = slotOf(g);
        memref::StoreOp::create(
            b, memref::LoadOp::create(b, rowState, rowAt(kMax, g)), mPart,
            ValueRange{slot});
        memref::StoreOp::create(
            b, memref::LoadOp::create(b, rowState, rowAt(kSum, g)), lPart,
            ValueRange{slot});
      });
    };
    if (direct) {
      // The result: O / l by the channel owners (0 for a row without
      // allowed keys), lse = m + log l by the row's thread.
      gpu::BarrierOp::create(b);
      forLoop(idx(0), idx(group), idx(1), [&](Value g) {
        Value h = addi(muli(kvh, idx(group)), g);
        Value l = memref::LoadOp::create(b, rowState, rowAt(kSum, g));
        Value empty =
            arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, cf(0.0));
        Value inv =
            select(empty, cf(0.0), arith::DivFOp::create(b, cf(1.0), l));
        Value oRow = rowStart(host, bIdx, h, idx(0), heads, tq, dv);
        forOwnChannels([&](Value k, Value c) {
          Value o = memref::LoadOp::create(
              b, acc, ValueRange{addi(muli(g, idx(cpt)), k)});
          storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
        });
      });
      if (host.lse) {
        forLoop(tx, idx(group), idx(threads), [&](Value g) {
          Value h = addi(muli(kvh, idx(group)), g);
          Value m = memref::LoadOp::create(b, rowState, rowAt(kMax, g));
          Value l = memref::LoadOp::create(b, rowState, rowAt(kSum, g));
          memref::StoreOp::create(
              b, addf(m, math::LogOp::create(b, l)), host.lse,
              ValueRange{muli(addi(muli(bIdx, idx(heads)), h), tq)});
        });
      }
    } else {
      writePartials();
    }
    gpu::TerminatorOp::create(b);
  }
  if (!direct)
    buildSplitCombine(host, splitParams, oPart, mPart, lPart);
  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

void GPUKernelBuilder::buildSplitCombine(const AttentionHost &host,
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

void GPUKernelBuilder::mma(const MmaLanes &lanes,
                           function_ref<Value(int64_t, int64_t)> a,
                           function_ref<Value(int64_t, int64_t)> bOp, Value acc,
                           Value accBase) {
  auto accAt = [&](int64_t i, int64_t j) {
    return addi(accBase, idx(2 * i + j));
  };
  if (lanes.emulate) {
    // The PTX fragment layouts of m16n8k16 (g = lane / 4, t = lane % 4):
    //   A (16 x 16, row major)  a_{2i+j}: row g + 8 (i % 2), col 2t + 8 (i / 2)
    //   + j B (16 x 8, k x n)       b_{2i+j}: row 2t + 8 i + j,   col g C, D
    //   (16 x 8)           c_{2i+j}: row g + 8 i,        col 2t + j
    // Each lane writes its A and B elements to its warp's tiles in
    // workgroup memory and computes its own C elements from them.
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
              b.setInsertionPoint(ob.getInsertionBlock(),
                                  ob.getInsertionPoint());
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
    return;
  }
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

Value GPUKernelBuilder::shuffleXor(const MmaLanes &lanes, Value v,
                                   int64_t mask) {
  if (!lanes.emulate) {
    Value offset = arith::ConstantOp::create(b, b.getI32IntegerAttr(mask));
    Value width = arith::ConstantOp::create(b, b.getI32IntegerAttr(kWarpSize));
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

void GPUKernelBuilder::buildAttentionMMA(AttentionOp op, bool emulate) {
  AttentionHost host = prepareAttention(op);
  int64_t heads = host.heads, kvHeads = host.kvHeads, group = host.group;
  int64_t d = host.d, dv = host.dv, bk = options.keyTile;
  int64_t bq = kMmaWarps * 16, threads = kMmaWarps * kWarpSize;
  double scale = op.getScaleOrDefault();
  Type in = op.getQuery().getType().getElementType();
  // The K/V tiles hold the input type; the A fragments too, or f32
  // holding exactly those values when emulated (the emulation needs no
  // 16-bit arithmetic on the target).
  Type ft = emulate ? f32 : in;
  auto round = [&](Value x) -> Value {
    Value r = arith::TruncFOp::create(b, in, x);
    return emulate ? Value(arith::ExtFOp::create(b, f32, r)) : r;
  };
  auto roundTile = [&](Value x) -> Value {
    return arith::TruncFOp::create(b, in, x);
  };
  auto wg =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto priv =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Private);
  auto mem = [&](ArrayRef<int64_t> shape, Type t, Attribute space) -> Type {
    return MemRefType::get(shape, t, MemRefLayoutAttrInterface(), space);
  };
  SmallVector<Type> wgTypes = {mem({bk, d}, in, wg), mem({bk, dv}, in, wg)};
  if (emulate) {
    wgTypes.push_back(mem({kMmaWarps, 16, 16}, f32, wg));
    wgTypes.push_back(mem({kMmaWarps, 16, 8}, f32, wg));
    wgTypes.push_back(mem({threads}, f32, wg));
  }
  assert(staticBytes(wgTypes) ==
             static_cast<int64_t>(mmaWorkgroupBytes(d, dv, emulate)(bk)) &&
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
    std::array<Value, 4> scalars = unpackAttentionScalars(host);
    Value tq = scalars[0], tkAll = scalars[1], causalOffset = scalars[2],
          alibiBase = scalars[3];
    Value rowsTotal = muli(idx(group), tq);
    ValueRange wgMem = launch.getWorkgroupAttributions();
    ValueRange privMem = launch.getPrivateAttributions();
    Value ks = wgMem[0], vs = wgMem[1];
    Value qf = privMem[0], sf = privMem[1], of = privMem[2], stat = privMem[3];
    MmaLanes lanes;
    lanes.emulate = emulate;
    lanes.input = in;
    lanes.tid = launch.getThreadIds().x;
    Value lane = remui(lanes.tid, idx(kWarpSize));
    lanes.warp = divui(lanes.tid, idx(kWarpSize));
    lanes.group = divui(lane, idx(4));
    lanes.quad = remui(lane, idx(4));
    if (emulate) {
      lanes.ea = wgMem[2];
      lanes.eb = wgMem[3];
      lanes.ex = wgMem[4];
    }
    Value gq = lanes.group, t2 = muli(lanes.quad, idx(2));
    Value bIdx = launch.getBlockIds().z, kvh = launch.getBlockIds().y;
    Value r0 = muli(launch.getBlockIds().x, idx(bq));
    Value tk = validKeys(op, host, bIdx, tkAll);
    Value shift = causalShift(op, tk, tq, causalOffset);
    Value tileBegin, tileEnd;
    std::tie(tileBegin, tileEnd) =
        keyTileRange(op, r0, bq, rowsTotal, tq, tk, shift, bk);

    // The lane's two query rows (fragment rows g and g + 8 of its warp):
    // (head, token) as in the SIMT kernel; rows past the last one work on
    // row 0 and store nothing.
    struct QueryRow {
      Value active, h, i, qPos, slope, limit;
    };
    QueryRow rows[2];
    Value warpRow = addi(r0, muli(lanes.warp, idx(16)));
    for (int64_t half = 0; half < 2; ++half) {
      QueryRow &qr = rows[half];
      Value r = addi(warpRow, addi(gq, idx(8 * half)));
      qr.active = cmpi(arith::CmpIPredicate::ult, r, rowsTotal);
      Value row = select(qr.active, r, idx(0));
      qr.i = remui(row, tq);
      qr.h = addi(muli(kvh, idx(group)), divui(row, tq));
      if (host.slopes)
        qr.slope = loadF32(host.slopes, qr.h);
      if (alibiBase)
        qr.qPos = indexToF32(addi(alibiBase, qr.i));
      qr.limit = addi(qr.i, shift);
    }

    // Q's A fragments, rotated as they are loaded: a_{2i+j} of k-step ks is
    // channel 16 ks + 2t + 8 (i / 2) + j of row g + 8 (i % 2).
    fragLoop(emulate, d / 16, [&](Value kStep) {
      for (int64_t i = 0; i < 4; ++i) {
        QueryRow &qr = rows[i % 2];
        Value qRow = rowStart(host, bIdx, qr.h, qr.i, heads, tq, d);
        auto loadQ = [&](Value c) { return loadF32(host.q, addi(qRow, c)); };
        for (int64_t j = 0; j < 2; ++j) {
          Value c = addi(addi(muli(kStep, idx(16)), t2), idx(8 * (i / 2) + j));
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
            rotatePair(loadQ, qr.i, p, host.qCos, host.qSin,
                       [&](Value y0, Value y1) {
                         x = select(inRot, select(first, y0, y1), x);
                       });
          }
          memref::StoreOp::create(
              b, round(x), qf,
              ValueRange{addi(muli(kStep, idx(8)), idx(2 * i + j))});
        }
      }
    });
    fragLoop(emulate, dv / 8 * 4, [&](Value e) {
      memref::StoreOp::create(b, cf(0.0), of, ValueRange{e});
    });

    Value negInf = cf(-std::numeric_limits<double>::infinity());
    Value zero = cf(0.0);
    // Loop-carried: the running max m and the lane's partial sum l of its
    // two rows (the sum over the 4 lanes of a row is taken at the end).
    auto tiles = scf::ForOp::create(
        b, tileBegin, tileEnd, idx(1), ValueRange{negInf, negInf, zero, zero},
        [&](OpBuilder &ob, Location, Value tile, ValueRange state) {
          OpBuilder::InsertionGuard g2(b);
          b.setInsertionPoint(ob.getInsertionBlock(), ob.getInsertionPoint());
          Value j0 = muli(tile, idx(bk));
          stageKeyTile(op, host, ks, vs, bIdx, kvh, j0, tk, tkAll, lanes.tid,
                       threads, roundTile);
          gpu::BarrierOp::create(b);

          // S = Q K^T: n-tile nt covers keys 8 nt .. 8 nt + 7; B's
          // b_{2i+j} is channel 16 ks + 2t + 8 i + j of key 8 nt + g.
          fragLoop(emulate, bk / 8, [&](Value nt) {
            Value base = muli(nt, idx(4));
            for (int64_t e = 0; e < 4; ++e)
              memref::StoreOp::create(b, zero, sf,
                                      ValueRange{addi(base, idx(e))});
            Value key = addi(muli(nt, idx(8)), gq);
            fragLoop(emulate, d / 16, [&](Value kStep) {
              Value c0 = addi(muli(kStep, idx(16)), t2);
              mma(
                  lanes,
                  [&](int64_t i, int64_t j) -> Value {
                    return memref::LoadOp::create(
                        b, qf,
                        ValueRange{addi(muli(kStep, idx(8)), idx(2 * i + j))});
                  },
                  [&](int64_t i, int64_t j) -> Value {
                    return memref::LoadOp::create(
                        b, ks, ValueRange{key, addi(c0, idx(8 * i + j))});
                  },
                  sf, base);
            });
          });

          // Scores: c_{2i+j} of n-tile nt is row g + 8 i, key
          // j0 + 8 nt + 2t + j; the op's modifications and masks, and the
          // row maxima of the lane.
          for (int64_t half = 0; half < 2; ++half)
            memref::StoreOp::create(b, negInf, stat, ValueRange{idx(half)});
          Value scaleV = cf(scale);
          fragLoop(emulate, bk / 8, [&](Value nt) {
            for (int64_t half = 0; half < 2; ++half)
              for (int64_t j = 0; j < 2; ++j) {
                QueryRow &qr = rows[half];
                Value at = addi(muli(nt, idx(4)), idx(2 * half + j));
                Value key = addi(j0, addi(muli(nt, idx(8)), addi(t2, idx(j))));
                Value s = memref::LoadOp::create(b, sf, ValueRange{at});
                s = finalScore(op, host, mulf(s, scaleV), qr.qPos, qr.slope,
                               bIdx, qr.h, qr.i, key, tk, tq, tkAll, qr.limit);
                memref::StoreOp::create(b, s, sf, ValueRange{at});
                Value mx =
                    memref::LoadOp::create(b, stat, ValueRange{idx(half)});
                memref::StoreOp::create(b, arith::MaximumFOp::create(b, mx, s),
                                        stat, ValueRange{idx(half)});
              }
          });
          // Online softmax per row: the max over the 4 lanes of the row
          // (lanes 4g .. 4g + 3: xor 1, 2), m_new, the rescale factor.
          Value safeM[2], alpha[2], mNew[2];
          for (int64_t half = 0; half < 2; ++half) {
            Value mx = memref::LoadOp::create(b, stat, ValueRange{idx(half)});
            for (int64_t mask : {1, 2})
              mx =
                  arith::MaximumFOp::create(b, mx, shuffleXor(lanes, mx, mask));
            mNew[half] = arith::MaximumFOp::create(b, state[half], mx);
            // exp(-inf) = 0 against 0 while a row has no allowed key.
            safeM[half] =
                select(arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ,
                                             mNew[half], negInf),
                       zero, mNew[half]);
            alpha[half] = math::ExpOp::create(
                b, arith::SubFOp::create(b, state[half], safeM[half]));
            memref::StoreOp::create(b, zero, stat, ValueRange{idx(2 + half)});
          }
          // P = exp(S - m_new) in place, and the lane's row sums.
          fragLoop(emulate, bk / 8, [&](Value nt) {
            for (int64_t half = 0; half < 2; ++half)
              for (int64_t j = 0; j < 2; ++j) {
                Value at = addi(muli(nt, idx(4)), idx(2 * half + j));
                Value s = memref::LoadOp::create(b, sf, ValueRange{at});
                Value p = math::ExpOp::create(
                    b, arith::SubFOp::create(b, s, safeM[half]));
                memref::StoreOp::create(b, p, sf, ValueRange{at});
                Value sum =
                    memref::LoadOp::create(b, stat, ValueRange{idx(2 + half)});
                memref::StoreOp::create(b, addf(sum, p), stat,
                                        ValueRange{idx(2 + half)});
              }
          });
          Value lNew[2];
          for (int64_t half = 0; half < 2; ++half)
            lNew[half] = addf(
                mulf(state[2 + half], alpha[half]),
                memref::LoadOp::create(b, stat, ValueRange{idx(2 + half)}));
          // O = O alpha + P V: P's A fragment of k-step kk is n-tiles 2 kk
          // and 2 kk + 1 of S (a_{2i+j} = c_{2 (i % 2) + j} of n-tile
          // 2 kk + i / 2), rounded to the input type; V's b_{2i+j} is
          // channel 8 nd + g of key 16 kk + 2t + 8 i + j.
          fragLoop(emulate, dv / 8, [&](Value nd) {
            Value base = muli(nd, idx(4));
            for (int64_t half = 0; half < 2; ++half)
              for (int64_t j = 0; j < 2; ++j) {
                Value at = addi(base, idx(2 * half + j));
                Value o = memref::LoadOp::create(b, of, ValueRange{at});
                memref::StoreOp::create(b, mulf(o, alpha[half]), of,
                                        ValueRange{at});
              }
            Value channel = addi(muli(nd, idx(8)), gq);
            fragLoop(emulate, bk / 16, [&](Value kk) {
              mma(
                  lanes,
                  [&](int64_t i, int64_t j) -> Value {
                    Value at = addi(muli(kk, idx(8)),
                                    idx(4 * (i / 2) + 2 * (i % 2) + j));
                    return round(memref::LoadOp::create(b, sf, ValueRange{at}));
                  },
                  [&](int64_t i, int64_t j) -> Value {
                    Value key =
                        addi(addi(muli(kk, idx(16)), t2), idx(8 * i + j));
                    return memref::LoadOp::create(b, vs,
                                                  ValueRange{key, channel});
                  },
                  of, base);
            });
          });
          // Every lane is done with the tile before the next one is staged.
          gpu::BarrierOp::create(b);
          scf::YieldOp::create(b,
                               ValueRange{mNew[0], mNew[1], lNew[0], lNew[1]});
        });

    // Epilogue: l summed over the 4 lanes of each row; O / l (0 for a row
    // without allowed keys), lse = m + log l (from the row's lane t = 0).
    for (int64_t half = 0; half < 2; ++half) {
      QueryRow &qr = rows[half];
      Value m = tiles.getResult(half), l = tiles.getResult(2 + half);
      for (int64_t mask : {1, 2})
        l = addf(l, shuffleXor(lanes, l, mask));
      Value empty =
          arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, l, zero);
      Value inv = select(empty, zero, arith::DivFOp::create(b, cf(1.0), l));
      ifThen(qr.active, [&] {
        Value oRow = rowStart(host, bIdx, qr.h, qr.i, heads, tq, dv);
        fragLoop(emulate, dv / 8, [&](Value nd) {
          for (int64_t j = 0; j < 2; ++j) {
            Value at = addi(muli(nd, idx(4)), idx(2 * half + j));
            Value o = memref::LoadOp::create(b, of, ValueRange{at});
            Value c = addi(addi(muli(nd, idx(8)), t2), idx(j));
            storeFromF32(mulf(o, inv), host.out, addi(oRow, c));
          }
        });
        if (host.lse)
          ifThen(cmpi(arith::CmpIPredicate::eq, lanes.quad, idx(0)), [&] {
            Value at = addi(muli(addi(muli(bIdx, idx(heads)), qr.h), tq), qr.i);
            memref::StoreOp::create(b, addf(m, math::LogOp::create(b, l)),
                                    host.lse, ValueRange{at});
          });
      });
    }
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPointAfter(guard);
  finishAttention(op, host);
}

void GPUKernelBuilder::buildRope(RopeOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  int64_t d = type.getDimSize(rank - 1);
  int64_t pairs = rotary / 2, perRow = pairs + (d - rotary);
  SmallVector<Value> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(dimOf(op.getInput(), i));
  Value tokens = dims[rank - 2];
  Value rows = idx(1);
  for (int64_t i = 0; i < rank - 1; ++i)
    rows = muli(rows, dims[i]);
  Value x = kernelBuffer(op.getInput());
  Value outBuffer =
      allocLike(MemRefType::get(type.getShape(), type.getElementType()), dims);
  Value out = flatten(outBuffer);
  auto [cosT, sinT] = buildTables(
      tokens, offsetValue({static_cast<int64_t>(op.getStaticOffset()),
                           op.getOffset()}));
  // One thread per rotated pair or copied channel of every row.
  Value hostItems = muli(rows, idx(perRow));
  Value params = packScalars({hostItems, tokens});
  int64_t block = options.ropeBlock;
  scf::IfOp guard =
      guardLaunch(cmpi(arith::CmpIPredicate::ugt, hostItems, idx(0)));
  auto launch = gpu::LaunchOp::create(b, ceilDiv(hostItems, block), idx(1),
                                      idx(1), idx(block), idx(1), idx(1));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value items = unpackScalar(params, 0), tokens = unpackScalar(params, 1);
    Value e =
        addi(muli(launch.getBlockIds().x, idx(block)), launch.getThreadIds().x);
    ifThen(cmpi(arith::CmpIPredicate::ult, e, items), [&] {
      Value row = divui(e, idx(perRow)), item = remui(e, idx(perRow));
      Value t = remui(row, tokens);
      Value base = muli(row, idx(d));
      auto isPair = scf::IfOp::create(
          b, cmpi(arith::CmpIPredicate::ult, item, idx(pairs)),
          /*withElse=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&isPair.getThenRegion().front());
      rotatePair([&](Value c) { return loadF32(x, addi(base, c)); }, t, item,
                 cosT, sinT,
                 [&](Value y0, Value y1) {
                   auto [c0, c1] = pairChannels(item);
                   storeFromF32(y0, out, addi(base, c0));
                   storeFromF32(y1, out, addi(base, c1));
                 });
      b.setInsertionPointToStart(&isPair.getElseRegion().front());
      Value c = addi(base, addi(subi(item, idx(pairs)), idx(rotary)));
      storeFromF32(loadF32(x, c), out, c);
    });
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPointAfter(guard);
  op.getResult().replaceAllUsesWith(bufferization::ToTensorOp::create(
      b, type, outBuffer, /*restrict=*/true, /*writable=*/true));
  op->erase();
}

void GPUKernelBuilder::buildSinusoidal(AddSinusoidalOp op) {
  auto type = op.getInput().getType();
  int64_t rank = type.getRank();
  int64_t channels = type.getDimSize(rank - 1);
  auto layout = op.getLayout() == SinusoidalLayout::Interleaved
                    ? formula::SinusoidalLayout::Interleaved
                    : formula::SinusoidalLayout::Concat;
  double base = op.getBase().convertToDouble();
  // Per channel, from the formulas: the frequency, whether it is a cos
  // channel, and 0 for the padding column of an odd concat layout.
  SmallVector<double> freq, isCos, keep;
  for (int64_t c = 0; c < channels; ++c) {
    freq.push_back(formula::sinusoidalFrequency(c, channels, base, layout));
    isCos.push_back(formula::sinusoidalIsCos(c, channels, layout) ? 1.0 : 0.0);
    keep.push_back(formula::sinusoidalIsPad(c, channels, layout) ? 0.0 : 1.0);
  }
  auto table = [&](ArrayRef<double> values) {
    auto t = RankedTensorType::get({channels}, f64);
    return flatBuffer(
        arith::ConstantOp::create(b, DenseElementsAttr::get(t, values)));
  };
  Value freqM = table(freq), cosM = table(isCos), keepM = table(keep);
  SmallVector<Value> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(dimOf(op.getInput(), i));
  Value tokens = dims[rank - 2];
  Value rows = idx(1);
  for (int64_t i = 0; i < rank - 1; ++i)
    rows = muli(rows, dims[i]);
  // Host: the encoding of every (position, channel) in f64,
  // PE[t][c] = sin or cos of (offset + t) * freq[c].
  Value n = muli(tokens, idx(channels));
  Value pe = allocLike(
      MemRefType::get({getConstantIntValue(n).value_or(ShapedType::kDynamic)},
                      f64),
      n);
  Value offset =
      offsetValue({static_cast<int64_t>(op.getStaticOffset()), op.getOffset()});
  forLoop(idx(0), tokens, idx(1), [&](Value t) {
    Value pos = arith::SIToFPOp::create(
        b, f64,
        arith::IndexCastOp::create(b, b.getI64Type(),
                                   saturatingAdd(t, offset)));
    forLoop(idx(0), idx(channels), idx(1), [&](Value c) {
      Value angle = mulf(pos, memref::LoadOp::create(b, freqM, ValueRange{c}));
      Value cosChannel = arith::CmpFOp::create(
          b, arith::CmpFPredicate::ONE,
          memref::LoadOp::create(b, cosM, ValueRange{c}),
          arith::ConstantOp::create(b, b.getFloatAttr(f64, 0.0)));
      Value v = select(cosChannel, math::CosOp::create(b, angle),
                       math::SinOp::create(b, angle));
      v = mulf(v, memref::LoadOp::create(b, keepM, ValueRange{c}));
      memref::StoreOp::create(b, v, pe,
                              ValueRange{addi(muli(t, idx(channels)), c)});
    });
  });
  Value x = kernelBuffer(op.getInput());
  Value outBuffer =
      allocLike(MemRefType::get(type.getShape(), type.getElementType()), dims);
  Value out = flatten(outBuffer);
  double inputScale = op.getScaleInput() ? std::sqrt(double(channels)) : 1.0;
  // One thread per element: x (times the input scale) + PE in f64, rounded
  // once to the element type.
  Value hostItems = muli(rows, idx(channels));
  Value params = packScalars({hostItems, tokens});
  int64_t block = options.ropeBlock;
  scf::IfOp guard =
      guardLaunch(cmpi(arith::CmpIPredicate::ugt, hostItems, idx(0)));
  auto launch = gpu::LaunchOp::create(b, ceilDiv(hostItems, block), idx(1),
                                      idx(1), idx(block), idx(1), idx(1));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value items = unpackScalar(params, 0), tokens = unpackScalar(params, 1);
    Value e =
        addi(muli(launch.getBlockIds().x, idx(block)), launch.getThreadIds().x);
    ifThen(cmpi(arith::CmpIPredicate::ult, e, items), [&] {
      Value row = divui(e, idx(channels)), c = remui(e, idx(channels));
      Value t = remui(row, tokens);
      Value xv = memref::LoadOp::create(b, x, ValueRange{e});
      Value x64 = arith::ExtFOp::create(b, f64, xv);
      if (inputScale != 1.0)
        x64 = mulf(
            x64, arith::ConstantOp::create(b, b.getFloatAttr(f64, inputScale)));
      Value sum =
          addf(x64, memref::LoadOp::create(
                        b, pe, ValueRange{addi(muli(t, idx(channels)), c)}));
      memref::StoreOp::create(
          b, arith::TruncFOp::create(b, type.getElementType(), sum), out,
          ValueRange{e});
    });
    gpu::TerminatorOp::create(b);
  }
  b.setInsertionPointAfter(guard);
  op.getResult().replaceAllUsesWith(bufferization::ToTensorOp::create(
      b, type, outBuffer, /*restrict=*/true, /*writable=*/true));
  op->erase();
}

struct ConvertPEToGPUPass
    : public pe::impl::ConvertPEToGPUBase<ConvertPEToGPUPass> {
  using Base::Base;

  /// The integer options and the values the kernels support. The block
  /// sizes are threads per block (CUDA launches at most 1024; Vulkan devices
  /// report at most that); the key counts and byte sizes become index
  /// constants in the kernels, which SPIR-V lowers to 32 bits.
  static ArrayRef<IntegerOptionRange> optionRanges() {
    constexpr int64_t kMaxThreads = 1024;
    constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
    static const IntegerOptionRange ranges[] = {
        {"block-rows", 1, kMaxThreads, " (threads per block)"},
        {"rope-block", 1, kMaxThreads, " (threads per block)"},
        {"key-tile", 1, kMaxI32},
        {"shared-memory-bytes", 1, kMaxI32},
        {"decode-split-keys", 0, kMaxI32, " (0: no split)"},
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

  /// Rejects an integer option outside its range (also where the options
  /// were set in C++, e.g. by pe-gpu-pipeline), naming the option and range.
  LogicalResult checkOptionBounds() {
    const int64_t values[] = {blockRows, ropeBlock, keyTile, sharedMemoryBytes,
                              decodeSplitKeys};
    for (auto [range, value] : llvm::zip_equal(optionRanges(), values))
      if (std::optional<std::string> error =
              checkIntegerOption(getArgument(), range, value))
        return getOperation()->emitError() << *error;
    return success();
  }

  void runOnOperation() override {
    if (failed(checkOptionBounds()))
      return signalPassFailure();
    KernelOptions options;
    options.blockRows = blockRows;
    options.keyTile = keyTile;
    options.sharedMemoryBytes = sharedMemoryBytes;
    options.ropeBlock = ropeBlock;
    options.decodeSplitKeys = decodeSplitKeys;
    options.allowF16 = allowF16;
    options.allowBF16 = allowBF16;
    options.staticBuffersOnly = staticBuffersOnly;
    if (tensorCores == "auto")
      options.tensorCores = TensorCores::Auto;
    else if (tensorCores == "off")
      options.tensorCores = TensorCores::Off;
    else if (tensorCores == "emulate")
      options.tensorCores = TensorCores::Emulate;
    else {
      getOperation()->emitError()
          << "convert-pe-to-gpu: tensor-cores must be auto, off or emulate, "
             "not '"
          << tensorCores << "'";
      return signalPassFailure();
    }
    options.chip = chip;
    options.smVersion = parseSmVersion(chip);
    if (!chip.empty() && !options.smVersion) {
      getOperation()->emitError() << "convert-pe-to-gpu: chip '" << chip
                                  << "' is not an NVVM chip (sm_NN)";
      return signalPassFailure();
    }
    StringRef category = getArgument();

    SmallVector<AttentionOp> attentions;
    getOperation()->walk([&](AttentionOp op) { attentions.push_back(op); });
    for (AttentionOp op : attentions) {
      std::string reason = unsupportedReason(op, options);
      if (!reason.empty()) {
        emitMissedRemark(op, category, "attention-kernel",
                         "no GPU attention kernel (the reference lowering "
                         "runs on the host): " +
                             reason);
        continue;
      }
      std::optional<std::string> noMma = noTensorCoreReason(op, options);
      if (noMma && !noMma->empty())
        emitMissedRemark(op, category, "tensor-core-kernel",
                         "no tensor-core attention kernel (the SIMT kernel "
                         "runs): " +
                             *noMma);
      // One query token: the decode kernel, with its own key tile.
      std::string noDecode;
      std::optional<int64_t> decodeTile =
          noMma ? decodeKeyTile(op, options, noDecode) : std::nullopt;
      if (!noDecode.empty())
        emitMissedRemark(op, category, "decode-kernel",
                         "no decode attention kernel (the one-row-per-thread "
                         "kernel runs, without key splits): " +
                             noDecode);
      auto keyTileRemark = [&](StringRef kernel, int64_t tile,
                               WorkgroupBytes bytes) {
        if (tile < options.keyTile)
          emitMissedRemark(op, category, "key-tile",
                           kernel.str() +
                               " attention kernel stages K/V tiles of " +
                               std::to_string(tile) + " keys (" +
                               std::to_string(bytes(tile)) +
                               " bytes of workgroup memory), not key-tile=" +
                               std::to_string(options.keyTile) + " (" +
                               std::to_string(bytes(options.keyTile)) +
                               " bytes): shared-memory-bytes=" +
                               std::to_string(options.sharedMemoryBytes));
      };
      if (decodeTile) {
        auto qType = op.getQuery().getType();
        int64_t hAx = op.getHeadsAxis();
        keyTileRemark(
            "the decode", *decodeTile,
            decodeWorkgroupBytes(
                qType.getDimSize(hAx) / op.getKey().getType().getDimSize(hAx),
                qType.getDimSize(3), op.getValue().getType().getDimSize(3)));
        GPUKernelBuilder(op, op.getRotation(), options)
            .buildDecodeAttention(op, *decodeTile);
        continue;
      }
      // The key tile: the largest up to key-tile whose K/V tiles fit in
      // shared-memory-bytes (unsupportedReason and noTensorCoreReason leave
      // only ops with one).
      int64_t d = op.getQuery().getType().getDimSize(3);
      int64_t dv = op.getValue().getType().getDimSize(3);
      bool emulate = options.tensorCores == TensorCores::Emulate;
      WorkgroupBytes bytes =
          noMma ? simtWorkgroupBytes(d, dv) : mmaWorkgroupBytes(d, dv, emulate);
      KernelOptions opOptions = options;
      opOptions.keyTile = fitKeyTile(options, noMma ? 1 : 16, bytes);
      assert(opOptions.keyTile > 0 && "no key tile fits");
      keyTileRemark(noMma ? "the SIMT" : "the tensor-core", opOptions.keyTile,
                    bytes);
      GPUKernelBuilder builder(op, op.getRotation(), opOptions);
      if (noMma)
        builder.buildAttention(op);
      else
        builder.buildAttentionMMA(op, emulate);
    }
    SmallVector<RopeOp> ropes;
    getOperation()->walk([&](RopeOp op) { ropes.push_back(op); });
    for (RopeOp op : ropes) {
      std::string reason = unsupportedRopeReason(op, options);
      if (!reason.empty()) {
        emitMissedRemark(op, category, "rope-kernel",
                         "no GPU RoPE kernel (the reference lowering runs on "
                         "the host): " +
                             reason);
        continue;
      }
      GPUKernelBuilder(op, op.getRotation(), options).buildRope(op);
    }
    SmallVector<AddSinusoidalOp> sinusoidals;
    getOperation()->walk(
        [&](AddSinusoidalOp op) { sinusoidals.push_back(op); });
    for (AddSinusoidalOp op : sinusoidals) {
      std::string reason = unsupportedSinusoidalReason(op, options);
      if (!reason.empty()) {
        emitMissedRemark(op, category, "sinusoidal-kernel",
                         "no GPU sinusoidal kernel (the reference lowering "
                         "runs on the host): " +
                             reason);
        continue;
      }
      GPUKernelBuilder(op, std::nullopt, options).buildSinusoidal(op);
    }
  }
};

} // namespace

namespace {
struct LaunchFuncMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<LaunchFuncMemoryEffects,
                                                    gpu::LaunchFuncOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    // A launch always has an effect (also once its operands are LLVM
    // pointers): it must never be erased as dead.
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
    for (OpOperand &operand :
         cast<gpu::LaunchFuncOp>(op).getKernelOperandsMutable()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    }
  }
};
} // namespace

void mlir::pe::registerLaunchFuncMemoryEffectsModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::LaunchFuncOp::attachInterface<LaunchFuncMemoryEffects>(*ctx);
  });
}
