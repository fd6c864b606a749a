//===- AttentionPrologue.cpp - what both attention kernels share ----------===//
//
// Part of the pe-mlir project.
//
// The checks and the start shared by the prefill and decode attention
// kernels: which attentions they support, the bf16 dot-product choice, the
// prologue (operands as memrefs, cos/sin tables, slopes), the score
// modifications and the explicit bias and mask.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

std::string cpu::unsupportedReason(AttentionOp op) {
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
  // Every rotation has vector code: any even rotary dimension (whole
  // vectors of pairs and a masked last one), caches of any float type.
  return "";
}

std::string cpu::bf16DotReason(const CPUTarget &target, AttentionOp op,
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

KernelBuilder::KernelBuilder(AttentionOp op, OpBuilder &builder, int64_t lanes)
    : KernelBuilder(op, builder, op.getQuery(), op.getRotation(), lanes) {
  attn = op;
  qOff = op.getRopeQueryOffset();
  kOff = op.getRopeKeyOffset();
  qPosTensor = op.getQueryPositions();
  kPosTensor = op.getKeyPositions();
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

void KernelBuilder::limitRegisterTile(int64_t accumulators) {
  tileAccumulators = std::max<int64_t>(accumulators, 1);
  // kRows rows of the tile share each loaded key (or value) vector; the
  // accumulators of a chunk stay in registers next to those loads and the
  // broadcast operands.
  int64_t perRow = std::max<int64_t>(accumulators / kRows, 1);
  scoreChunkVecs = std::min(blockVecs, perRow);
  while (valueChunk > lanes && valueChunk / lanes > perRow)
    valueChunk /= 2;
}

KernelBuilder::PositionsMem KernelBuilder::positionsMem(Value positions) {
  if (!positions)
    return {};
  auto type = cast<RankedTensorType>(positions.getType());
  Value mem = bufferization::ToBufferOp::create(
      b, MemRefType::get(type.getShape(), type.getElementType()), positions,
      /*readOnly=*/true);
  if (type.getRank() == 1)
    return {mem, Value()};
  Value rowsPerBatch = dim(mem, 1);
  return {memref::CollapseShapeOp::create(
              b, mem, ArrayRef<ReassociationIndices>{{0, 1}}),
          rowsPerBatch};
}

void KernelBuilder::setOptions(const PEToVectorOptions &options) {
  // Negative values (the pass rejects them) read as 0.
  decodePrefetchBytes = std::max<int64_t>(options.decodePrefetchBytes, 0);
  decodePrefetchMinOps = std::max<int64_t>(options.decodePrefetchMinOps, 0);
  decodePrefetchL2MinOps = std::max<int64_t>(options.decodePrefetchL2MinOps, 0);
  stackScratchBytes = std::max<int64_t>(options.stackScratchBytes, 0);
}

void KernelBuilder::chooseBf16Dot(const CPUTarget &target, bool decode) {
  if (!attn.getQuery().getType().getElementType().isBF16() ||
      !attn.getKey().getType().getElementType().isBF16())
    return;
  std::string why = bf16DotReason(target, attn, decode);
  if (why.empty())
    setBf16Dot(true);
  else
    emitMissedRemark(attn, kRemarkCategory, "bf16-dot",
                     "bf16 attention without bf16 dot products (the "
                     "f32 kernel on widened operands is used): " +
                         why);
}

void KernelBuilder::replaceAttention(PatternRewriter &rewriter, Value result) {
  SmallVector<Value, 2> values{result};
  if (attn.getLse())
    values.push_back(lseTensor);
  rewriter.replaceOp(attn, values);
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
    // One table row per query (per batch and query with [B, Tq] positions),
    // and likewise per key.
    qPos = positionsMem(qPosTensor);
    kPos = positionsMem(kPosTensor);
    Value queryRows = qPos.mem      ? dim(qPos.mem, 0)
                      : singleQuery ? idx(1)
                                    : dim(pr.qMem, 2);
    pr.qSin = buildTables(queryRows, offsetValue(qOff), pr.qCos, qPos.mem);
    if (attn.rotatesKey())
      pr.kSin = buildTables(kPos.mem ? dim(kPos.mem, 0) : dim(pr.kMem, 2),
                            offsetValue(kOff), pr.kCos, kPos.mem);
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
