//===- Preconditions.cpp - when a GPU kernel applies ----------------------===//
//
// Part of the pe-mlir project.
//
// The limits of the GPU kernels: their workgroup memory, the key tile each
// takes under shared-memory-bytes, and the reasons (the text of their missed
// remarks) why an op gets no kernel, or not the tensor-core or decode one.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::gpu_kernels;

/// The SIMT attention kernel's: K and V tiles of f32.
WorkgroupBytes gpu_kernels::simtWorkgroupBytes(int64_t d, int64_t dv) {
  return {(d + dv) * 4, 0};
}

/// The tensor-core attention kernel's: `stages` stages of K and V tiles of
/// the (16-bit) input type, and the emulation's A, B and exchange buffers
/// (shuffle values and ldmatrix addresses) when emulated.
WorkgroupBytes gpu_kernels::mmaWorkgroupBytes(int64_t d, int64_t dv,
                                              bool emulate, int64_t stages) {
  return {stages * (d + dv) * 2,
          emulate ? (kMmaWarps * 16 * 16 + kMmaWarps * 16 * 8 +
                     2 * kMmaWarps * kWarpLanes) *
                        4
                  : 0};
}

/// The decode attention kernel's, for a GQA group of `g` query heads: K
/// tiles of f32 rows padded to D + 1, V tiles, the group's scores per key;
/// Q of the group and 4 values per row.
WorkgroupBytes gpu_kernels::decodeWorkgroupBytes(int64_t g, int64_t d,
                                                 int64_t dv) {
  return {(d + 1 + dv + g) * 4, (g * d + 4 * g) * 4};
}

/// Bytes of the static-shape memrefs `types` (the workgroup attributions of a
/// launch): what simtWorkgroupBytes / mmaWorkgroupBytes must account for.
int64_t gpu_kernels::staticBytes(TypeRange types) {
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
int64_t gpu_kernels::fitKeyTile(const GPUKernelOptions &options,
                                int64_t multiple, WorkgroupBytes bytes) {
  if (bytes.fixed > options.sharedMemoryBytes)
    return 0;
  int64_t fits = bytes.perKey
                     ? (options.sharedMemoryBytes - bytes.fixed) / bytes.perKey
                     : options.keyTile;
  return std::min(options.keyTile, fits) / multiple * multiple;
}

/// The compute capability of an NVVM chip name (`sm_80`, `sm_90a`: 80, 90),
/// 0 if it is not one.
int64_t gpu_kernels::parseSmVersion(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return 0;
  int64_t v = 0;
  StringRef digits = chip.take_while([](char c) { return isdigit(c); });
  if (digits.empty() || digits.getAsInteger(10, v))
    return 0;
  return v;
}

/// Why element type `t` has no GPU kernel under `options` (empty if it has).
static std::string unsupportedElementReason(Type t,
                                            const GPUKernelOptions &options) {
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
static std::string emptyTensorReason(Operation *op) {
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
std::string gpu_kernels::unsupportedReason(AttentionOp op,
                                           const GPUKernelOptions &options) {
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
std::optional<std::string>
gpu_kernels::noTensorCoreReason(AttentionOp op,
                                const GPUKernelOptions &options) {
  Type et = op.getQuery().getType().getElementType();
  if (!et.isF16() && !et.isBF16())
    return std::string();
  if (options.tensorCores == GPUTensorCores::Off)
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
  bool emulate = options.tensorCores == GPUTensorCores::Emulate;
  if (!emulate && options.chip.empty())
    return std::string("no NVVM chip (chip=; pe-gpu-pipeline target=spirv "
                       "has no mma.sync: tensor-cores=emulate builds the "
                       "fragment kernel with emulated mma.sync)");
  if (!emulate && parseSmVersion(options.chip) < 80)
    return "chip " + options.chip +
           " is below sm_80 (mma.sync m16n8k16 with f32 accumulators)";
  // (The smallest form: one stage of 16 keys.)
  if (uint64_t bytes = mmaWorkgroupBytes(d, dv, emulate, /*stages=*/1)(16);
      bytes > static_cast<uint64_t>(options.sharedMemoryBytes))
    return "its workgroup memory with key tiles of 16 keys, " +
           std::to_string(bytes) + " bytes, is above shared-memory-bytes=" +
           std::to_string(options.sharedMemoryBytes);
  return std::nullopt;
}

/// Why a pe.rope has no GPU kernel (empty if it has one).
std::string
gpu_kernels::unsupportedRopeReason(RopeOp op, const GPUKernelOptions &options) {
  if (std::string why = emptyTensorReason(op); !why.empty())
    return why;
  auto type = op.getInput().getType();
  if (std::string why =
          unsupportedElementReason(type.getElementType(), options);
      !why.empty())
    return why;
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
std::string
gpu_kernels::unsupportedSinusoidalReason(AddSinusoidalOp op,
                                         const GPUKernelOptions &options) {
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
/// The key tile of the decode attention kernel for `op`: the largest up to
/// `key-tile` whose workgroup buffers fit the budget; none for an op with
/// more than one query token, or (with the reason in `whyNot`) when even one
/// key does not fit or the accumulators would not.
std::optional<int64_t>
gpu_kernels::decodeKeyTile(AttentionOp op, const GPUKernelOptions &options,
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

void gpu_kernels::emitKeyTileRemark(AttentionOp op, StringRef kernel,
                                    int64_t tile, WorkgroupBytes bytes,
                                    const GPUKernelOptions &options,
                                    int64_t stages) {
  std::string inStages =
      stages > 1 ? " in " + std::to_string(stages) + " stages" : "";
  if (tile < options.keyTile)
    emitMissedRemark(op, kRemarkCategory, "key-tile",
                     kernel.str() + " attention kernel stages K/V tiles of " +
                         std::to_string(tile) + " keys" + inStages + " (" +
                         std::to_string(bytes(tile)) +
                         " bytes of workgroup memory), not key-tile=" +
                         std::to_string(options.keyTile) + " (" +
                         std::to_string(bytes(options.keyTile)) +
                         " bytes): shared-memory-bytes=" +
                         std::to_string(options.sharedMemoryBytes));
}
