//===- PEAttentionOps.cpp - pe.attention ----------------------------------===//
//
// Part of the pe-mlir project.
//
// pe.attention: its builders, the accessors that decode its encodings
// (rotation, offsets, scale), the score modifiers every lowering applies,
// the verifier, the decomposition of its encodings into pe.rope and
// pe.alibi_bias (AggregatedOpInterface) and its canonicalization patterns.
// Its tiling is in PETiling.cpp.
//
//===----------------------------------------------------------------------===//

#include "PEOpsUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

SmallVector<Value> AttentionOp::buildInits(OpBuilder &b, Location loc,
                                           Type resultType, Type lseType,
                                           Value query, Value value,
                                           AttentionLayout layout) {
  // The query's sizes with the value's channel count; lse has the query's
  // batch, heads and rows whatever the layout.
  SmallVector<OpFoldResult> dims = tensor::getMixedSizes(b, loc, query);
  dims[3] = tensor::getMixedSizes(b, loc, value)[3];
  auto empty = [&](Type type, ArrayRef<OpFoldResult> sizes) -> Value {
    auto tensorType = cast<RankedTensorType>(type);
    SmallVector<Value> dynamic;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (tensorType.isDynamicDim(i))
        dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    return tensor::EmptyOp::create(b, loc, tensorType, dynamic);
  };
  SmallVector<Value> inits = {empty(resultType, dims)};
  if (lseType) {
    int64_t hA = layout == AttentionLayout::BSHD ? 2 : 1;
    inits.push_back(empty(lseType, {dims[0], dims[hA], dims[3 - hA]}));
  }
  return inits;
}

void AttentionOp::build(OpBuilder &b, OperationState &state, Type resultType,
                        Type lseType, Value query, Value key, Value value,
                        AttentionLayout layout) {
  SmallVector<Value> inits =
      buildInits(b, state.location, resultType, lseType, query, value, layout);
  build(b, state, resultType, lseType, query, key, value, /*bias=*/Value(),
        /*mask=*/Value(), /*kv_lengths=*/Value(), /*causal_offset=*/Value(),
        /*inv_freq=*/Value(), /*cos_cache=*/Value(), /*sin_cache=*/Value(),
        /*attention_scaling=*/Value(), /*query_offset=*/Value(),
        /*key_offset=*/Value(), /*query_positions=*/Value(),
        /*key_positions=*/Value(), /*alibi_offset=*/Value(),
        /*alibi_slopes=*/Value(), inits,
        /*rope=*/RopeEncodingAttr(),
        /*alibi=*/AlibiEncodingAttr(), /*scale=*/FloatAttr(),
        /*causal=*/UnitAttr(),
        CausalAlignmentAttr::get(b.getContext(), CausalAlignment::BottomRight),
        /*window=*/IntegerAttr(),
        AttentionLayoutAttr::get(b.getContext(), layout),
        /*softcap=*/FloatAttr(),
        SoftcapOrderAttr::get(b.getContext(), SoftcapOrder::BeforeBias));
}

double AttentionOp::getScaleOrDefault() {
  if (auto scale = getScale())
    return scale->convertToDouble();
  return 1.0 /
         std::sqrt(static_cast<double>(getQuery().getType().getDimSize(3)));
}

std::optional<Rotation> AttentionOp::getRotation() {
  RopeEncodingAttr rope = getRopeAttr();
  if (!rope)
    return std::nullopt;
  return Rotation{
      rope.getLayout(),
      rope.getRotaryDim().value_or(getQuery().getType().getDimSize(3)),
      getInvFreq(),
      getCosCache(),
      getSinCache(),
      getAttentionScaling()};
}

PositionOffset AttentionOp::getRopeQueryOffset() {
  RopeEncodingAttr rope = getRopeAttr();
  return {rope ? rope.getQueryOffset() : 0, getQueryOffset()};
}

PositionOffset AttentionOp::getRopeKeyOffset() {
  RopeEncodingAttr rope = getRopeAttr();
  return {rope ? rope.getKeyOffset() : 0, getKeyOffset()};
}

PositionOffset AttentionOp::getAlibiQueryOffset() {
  AlibiEncodingAttr alibi = getAlibiAttr();
  return {alibi ? alibi.getQueryOffset() : 0, getAlibiOffset()};
}

Value AttentionOp::buildScoreModifiers(OpBuilder &b, Location loc, Value score,
                                       Value queryPos, Value keyPos,
                                       Value slope) {
  Type type = score.getType();
  auto constant = [&](double v) -> Value {
    Type element = getElementTypeOrSelf(type);
    TypedAttr attr = b.getFloatAttr(element, v);
    if (auto vector = dyn_cast<VectorType>(type))
      attr = DenseElementsAttr::get(vector, attr);
    return arith::ConstantOp::create(b, loc, attr);
  };
  auto cap = [&](Value x) -> Value {
    Value c = constant(getSoftcap()->convertToDouble());
    return arith::MulFOp::create(
        b, loc, c,
        math::TanhOp::create(b, loc, arith::DivFOp::create(b, loc, x, c)));
  };
  bool softcap = static_cast<bool>(getSoftcap());
  if (softcap && getSoftcapOrder() == SoftcapOrder::BeforeBias)
    score = cap(score);
  if (AlibiEncodingAttr alibi = getAlibiAttr()) {
    Value dist;
    switch (alibi.getDistance()) {
    case AlibiDistance::Symmetric:
      dist = arith::NegFOp::create(
          b, loc,
          math::AbsFOp::create(
              b, loc, arith::SubFOp::create(b, loc, queryPos, keyPos)));
      break;
    case AlibiDistance::Signed:
      dist = arith::SubFOp::create(b, loc, keyPos, queryPos);
      break;
    case AlibiDistance::Key:
      dist = keyPos;
      break;
    }
    score = math::FmaOp::create(b, loc, slope, dist, score);
  }
  if (softcap && getSoftcapOrder() == SoftcapOrder::AfterBias)
    score = cap(score);
  return score;
}

/// Verifies that `type` broadcasts numpy-style to `target` ([B, H, Tq, Tk]).
static LogicalResult verifyBroadcastable(Operation *op, StringRef name,
                                         RankedTensorType type,
                                         ArrayRef<int64_t> target) {
  int64_t rank = type.getRank();
  if (rank < 2 || rank > 4)
    return op->emitOpError("expects a ")
           << name << " of rank 2 to 4 (broadcast to [B, H, Tq, Tk]), got rank "
           << rank;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = type.getDimSize(rank - 1 - i);
    int64_t t = target[3 - i];
    if (d != 1 && !dimsCompatible(d, t))
      return op->emitOpError("expects ")
             << name << " dimension " << rank - 1 - i << " to be 1 or "
             << dimStr(t) << ", got " << d;
  }
  return success();
}

/// The static rope positions [offset, offset + T) of the query and (when
/// rotated) the key read from a cache of `rows` rows: an error when they
/// fall outside it (overflow-safe), nothing with a dynamic offset or size.
static LogicalResult verifyAttentionRopeRange(AttentionOp op, int64_t rows,
                                              int64_t seqAxis) {
  if (ShapedType::isDynamic(rows))
    return success();
  RopeEncodingAttr rope = op.getRopeAttr();
  auto check = [&](StringRef which, int64_t first, Value dynamicOffset,
                   Value positions, int64_t seqLen) -> LogicalResult {
    int64_t end;
    // Positions from a tensor are clamped to the cache, as for pe.rope.
    if (dynamicOffset || positions || ShapedType::isDynamic(seqLen))
      return success();
    if (llvm::AddOverflow(first, seqLen, end))
      return op.emitOpError("reads ")
             << which << " rope positions from " << first
             << " past INT64_MAX but the cache has " << rows << " rows";
    if (end > rows)
      return op.emitOpError("reads ")
             << which << " rope positions [" << first << ", " << end
             << ") but the cache has " << rows << " rows";
    return success();
  };
  if (failed(check("query", rope.getQueryOffset(), op.getQueryOffset(),
                   op.getQueryPositions(),
                   op.getQuery().getType().getDimSize(seqAxis))))
    return failure();
  if (rope.getRotateKey())
    return check("key", rope.getKeyOffset(), op.getKeyOffset(),
                 op.getKeyPositions(),
                 op.getKey().getType().getDimSize(seqAxis));
  return success();
}

/// Verifies the encodings of an attention op: operands present exactly when
/// their encoding is, and the rope frequencies against the head dimension.
static LogicalResult verifyAttentionEncodings(AttentionOp op) {
  auto q = op.getQuery().getType();
  if (RopeEncodingAttr rope = op.getRopeAttr()) {
    if (q.isDynamicDim(3))
      return op.emitOpError("expects a static head dimension with RoPE");
    std::optional<int64_t> tableRows;
    if (failed(verifyRopeFrequencies(
            op, q.getDimSize(3), op.getRotation()->rotaryDim,
            !rope.getRotaryDim(), op.getInvFreq(), op.getCosCache(),
            op.getSinCache(), tableRows)))
      return failure();
    if (Value cos = op.getCosCache())
      if (cast<RankedTensorType>(cos.getType()).getRank() != 2)
        return op.emitOpError("expects rank-2 caches [P, rotary_dim / 2] in "
                              "the rope encoding (per-token caches belong to "
                              "a separate pe.rope)");
    if (!rope.getRotateKey() && op.getKeyOffset())
      return op.emitOpError(
          "has a key_offset operand but its rope encoding is query_only");
    if (!rope.getRotateKey() && op.getKeyPositions())
      return op.emitOpError(
          "has a key_positions operand but its rope encoding is query_only");
    // A positions tensor replaces both offsets of its side.
    for (auto [side, positions, staticOffset, dynamicOffset, operand] :
         {std::make_tuple("query", op.getQueryPositions(),
                          rope.getQueryOffset(), op.getQueryOffset(),
                          op.getQuery()),
          std::make_tuple("key", op.getKeyPositions(), rope.getKeyOffset(),
                          op.getKeyOffset(), op.getKey())}) {
      if (!positions)
        continue;
      if (staticOffset != 0 || dynamicOffset)
        return op.emitOpError("expects either ")
               << side << "_positions or a " << side
               << " offset (static or dynamic), not both";
      if (failed(verifyPositionsShape(op, (Twine(side) + "_positions").str(),
                                      operand.getType(), positions,
                                      op.getSequenceAxis())))
        return failure();
    }
    // Static positions read from a cache are in range, as for the pe.rope
    // ops decomposeOperation builds (a run-time offset is clamped instead).
    if (tableRows &&
        failed(verifyAttentionRopeRange(op, *tableRows, op.getSequenceAxis())))
      return failure();
  } else if (op.getInvFreq() || op.getCosCache() || op.getSinCache() ||
             op.getAttentionScaling() || op.getQueryOffset() ||
             op.getKeyOffset() || op.getQueryPositions() ||
             op.getKeyPositions()) {
    return op.emitOpError("has RoPE operands but no rope encoding");
  }
  if (op.getAlibiAttr()) {
    int64_t heads = q.getDimSize(op.getHeadsAxis());
    if (ShapedType::isDynamic(heads))
      return op.emitOpError("expects a static head count with ALiBi");
    if (!op.getAlibiSlopes() && heads > kMaxAlibiHeads)
      return op.emitOpError("expects at most ")
             << kMaxAlibiHeads
             << " heads with ALiBi and no alibi_slopes operand (the slopes "
                "are computed at compile time), got "
             << heads;
    if (op.getBias())
      return op.emitOpError(
          "expects either a bias operand or an alibi encoding, not both");
    if (Value slopes = op.getAlibiSlopes()) {
      int64_t n = cast<RankedTensorType>(slopes.getType()).getDimSize(0);
      if (!dimsCompatible(n, heads))
        return op.emitOpError("expects one ALiBi slope per query head (")
               << dimStr(heads) << "), got " << dimStr(n);
    }
  } else if (op.getAlibiOffset() || op.getAlibiSlopes()) {
    return op.emitOpError("has ALiBi operands but no alibi encoding");
  }
  return success();
}

/// Verifies the index-computed masks: causal alignment, window, lengths.
static LogicalResult verifyAttentionMasking(AttentionOp op) {
  bool topLeft = op.getCausalAlignment() == CausalAlignment::TopLeft;
  if (!op.getCausal()) {
    if (op.getCausalOffset())
      return op.emitOpError("has a causal_offset operand but is not causal");
    if (topLeft)
      return op.emitOpError("has a causal_alignment but is not causal");
    if (op.getWindow())
      return op.emitOpError("has a sliding window but is not causal");
  }
  if (std::optional<uint64_t> w = op.getWindow())
    if (static_cast<int64_t>(*w) < 1)
      return op.emitOpError("expects a window of at least 1 key, got ")
             << static_cast<int64_t>(*w);
  if (Value lengths = op.getKvLengths()) {
    int64_t n = cast<RankedTensorType>(lengths.getType()).getDimSize(0);
    int64_t batch = op.getQuery().getType().getDimSize(0);
    if (!dimsCompatible(n, batch))
      return op.emitOpError("expects one kv_lengths entry per batch (")
             << dimStr(batch) << "), got " << n;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(),
       v = getValue().getType(), out = getResult().getType();
  for (auto [name, type] :
       {std::make_pair("query", q), {"key", k}, {"value", v}, {"result", out}})
    if (type.getRank() != 4)
      return emitOpError("expects a rank-4 ")
             << name << " [B, heads, T, D], got rank " << type.getRank();
  // Key and value share one element type: the query's, or f16/bf16 under
  // an f32 query (a half-precision KV cache read by f32 attention). The
  // result has the query's type, or f32 for an f16/bf16 query (the f32
  // math not rounded at the end).
  Type qe = q.getElementType(), kve = k.getElementType();
  Type oe = out.getElementType();
  bool halfCache = qe.isF32() && (kve.isF16() || kve.isBF16());
  bool wideResult = (qe.isF16() || qe.isBF16()) && oe.isF32();
  if (v.getElementType() != kve || (kve != qe && !halfCache) ||
      (oe != qe && !wideResult))
    return emitOpError("expects query, key, value and result of one "
                       "element type, or f16/bf16 key and value with an f32 "
                       "query and result, or an f32 result of f16/bf16 "
                       "query, key and value, got ")
           << qe << ", " << kve << ", " << v.getElementType() << " and "
           << out.getElementType();

  // Sizes by meaning; the layout says where heads and sequence sit.
  int64_t hA = getHeadsAxis(), sA = getSequenceAxis();
  int64_t batch = q.getDimSize(0), heads = q.getDimSize(hA);
  int64_t tq = q.getDimSize(sA), dim = q.getDimSize(3);
  int64_t kvHeads = k.getDimSize(hA), tk = k.getDimSize(sA);
  if (!dimsCompatible(k.getDimSize(0), batch) ||
      !dimsCompatible(v.getDimSize(0), batch))
    return emitOpError("expects query, key and value of one batch size");
  if (!dimsCompatible(k.getDimSize(3), dim))
    return emitOpError("expects query and key of one head dimension, got ")
           << dimStr(dim) << " and " << dimStr(k.getDimSize(3));
  if (!dimsCompatible(v.getDimSize(hA), kvHeads) ||
      !dimsCompatible(v.getDimSize(sA), tk))
    return emitOpError("expects key and value of one shape in the heads "
                       "and sequence dimensions");
  // Head counts and the head dimension are at least 1 (H = 0 would divide
  // by zero in the GQA group size H / Hkv; D = 0 has no default scale).
  for (auto [name, size] : {std::make_pair("query heads H", heads),
                            {"key/value heads Hkv", kvHeads},
                            {"head dimension D", dim},
                            {"key head dimension", k.getDimSize(3)}})
    if (size == 0)
      return emitOpError("expects ") << name << " >= 1, got 0";
  if (!ShapedType::isDynamic(heads) && !ShapedType::isDynamic(kvHeads) &&
      (kvHeads == 0 || heads % kvHeads != 0))
    return emitOpError("expects the query heads (")
           << heads << ") to be a multiple of the key/value heads (" << kvHeads
           << ")";
  SmallVector<int64_t> expected = {batch, 0, 0, v.getDimSize(3)};
  expected[hA] = heads;
  expected[sA] = tq;
  for (int64_t i = 0; i < 4; ++i)
    if (!dimsCompatible(out.getDimSize(i), expected[i]))
      return emitOpError("expects a result of shape [")
             << dimStr(expected[0]) << ", " << dimStr(expected[1]) << ", "
             << dimStr(expected[2]) << ", " << dimStr(expected[3]) << "], got "
             << out;

  SmallVector<int64_t> scoreShape = {batch, heads, tq, tk};
  if (Value bias = getBias())
    if (failed(verifyBroadcastable(
            *this, "bias", cast<RankedTensorType>(bias.getType()), scoreShape)))
      return failure();
  if (Value mask = getMask())
    if (failed(verifyBroadcastable(
            *this, "mask", cast<RankedTensorType>(mask.getType()), scoreShape)))
      return failure();

  if (std::optional<APFloat> scale = getScale()) {
    double s = scale->convertToDouble();
    if (!std::isfinite(s) || s == 0.0)
      return emitOpError("expects a finite, non-zero scale, got ") << fmt(s);
  } else if (ShapedType::isDynamic(dim)) {
    return emitOpError("expects an explicit scale when the head dimension "
                       "is dynamic");
  }
  if (std::optional<APFloat> softcap = getSoftcap())
    if (failed(verifyPositive(*this, "softcap", softcap->convertToDouble())))
      return failure();
  if (Value lse = getLse()) {
    auto lseType = cast<RankedTensorType>(lse.getType());
    Type computeType = q.getElementType().isF64()
                           ? q.getElementType()
                           : Float32Type::get(getContext());
    SmallVector<int64_t> rows = {batch, heads, tq};
    if (lseType.getRank() != 3 || lseType.getElementType() != computeType ||
        !dimsCompatible(lseType.getDimSize(0), rows[0]) ||
        !dimsCompatible(lseType.getDimSize(1), rows[1]) ||
        !dimsCompatible(lseType.getDimSize(2), rows[2]))
      return emitOpError("expects an lse result of shape [")
             << dimStr(rows[0]) << ", " << dimStr(rows[1]) << ", "
             << dimStr(rows[2]) << "] and element type " << computeType
             << ", got " << lseType;
  }
  if (failed(verifyAttentionMasking(*this)))
    return failure();
  return verifyAttentionEncodings(*this);
}

FailureOr<SmallVector<Value>> AttentionOp::decomposeOperation(OpBuilder &b) {
  // The encodings become the separate ops that define them (the op
  // description); an encoding-free attention has nothing to decompose here:
  // convert-pe-to-linalg lowers it.
  if (!hasEncodings())
    return failure();
  Location loc = getLoc();
  MLIRContext *ctx = getContext();
  Value q = getQuery(), k = getKey();
  if (std::optional<Rotation> rot = getRotation()) {
    RopeEncodingAttr enc = getRopeAttr();
    // The rotation along the attention's sequence dimension (1 for bshd).
    auto rope = [&](Value x, PositionOffset offset, Value positions) -> Value {
      return RopeOp::create(
          b, loc, x.getType(), x, rot->invFreq, rot->cosCache, rot->sinCache,
          rot->attentionScaling, RopeLayoutAttr::get(ctx, rot->layout),
          enc.getRotaryDim() ? b.getI64IntegerAttr(*enc.getRotaryDim())
                             : IntegerAttr(),
          getLayout() == AttentionLayout::BSHD ? b.getI64IntegerAttr(1)
                                               : IntegerAttr(),
          offset.dynamicOffset, positions,
          b.getI64IntegerAttr(offset.staticOffset));
    };
    q = rope(q, getRopeQueryOffset(), getQueryPositions());
    if (rotatesKey())
      k = rope(k, getRopeKeyOffset(), getKeyPositions());
  }
  Value bias = getBias();
  if (AlibiEncodingAttr alibi = getAlibiAttr()) {
    auto qType = getQuery().getType(), kType = getKey().getType();
    int64_t hA = getHeadsAxis(), sA = getSequenceAxis();
    auto biasType = RankedTensorType::get(
        {qType.getDimSize(hA), qType.getDimSize(sA), kType.getDimSize(sA)},
        b.getF32Type());
    SmallVector<Value> dynamicSizes;
    if (qType.isDynamicDim(sA))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, getQuery(), sA));
    if (kType.isDynamicDim(sA))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, getKey(), sA));
    PositionOffset offset = getAlibiQueryOffset();
    bias = AlibiBiasOp::create(
        b, loc, biasType, dynamicSizes, getAlibiSlopes(), offset.dynamicOffset,
        AlibiDistanceAttr::get(ctx, alibi.getDistance()),
        b.getF64FloatAttr(alibi.getMaxBias().convertToDouble()),
        b.getI64IntegerAttr(offset.staticOffset));
  }
  auto plain = AttentionOp::create(
      b, loc, getResult().getType(), getLse() ? getLse().getType() : Type(), q,
      k, getValue(), bias, getMask(), getKvLengths(), getCausalOffset(),
      /*inv_freq=*/Value(),
      /*cos_cache=*/Value(), /*sin_cache=*/Value(),
      /*attention_scaling=*/Value(), /*query_offset=*/Value(),
      /*key_offset=*/Value(), /*query_positions=*/Value(),
      /*key_positions=*/Value(), /*alibi_offset=*/Value(),
      /*alibi_slopes=*/Value(), getOuts(),
      /*rope=*/RopeEncodingAttr(), /*alibi=*/AlibiEncodingAttr(),
      getScaleAttr(), getCausalAttr(), getCausalAlignmentAttr(),
      getWindowAttr(), getLayoutAttr(), getSoftcapAttr(),
      getSoftcapOrderAttr());
  SmallVector<Value> results = {plain.getResult()};
  if (getLse())
    results.push_back(plain.getLse());
  return results;
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// A pe.attention's constant arange query_positions / key_positions
/// (`p0 + i`) become static offsets of its rope encoding (where a cache
/// holds those rows).
struct FoldArangeAttentionPositions : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RopeEncodingAttr rope = op.getRopeAttr();
    if (!rope)
      return failure();
    std::optional<int64_t> rows;
    if (Value cos = op.getCosCache())
      rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
    auto fold = [&](Value positions, Value operand) -> std::optional<int64_t> {
      std::optional<int64_t> first = matchArangePositions(positions);
      if (!first || !ropePositionsFit(rows, *first,
                                      cast<RankedTensorType>(operand.getType())
                                          .getDimSize(op.getSequenceAxis())))
        return std::nullopt;
      return first;
    };
    std::optional<int64_t> q = fold(op.getQueryPositions(), op.getQuery());
    std::optional<int64_t> k = fold(op.getKeyPositions(), op.getKey());
    if (!q && !k)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (q)
        op.getQueryPositionsMutable().clear();
      if (k)
        op.getKeyPositionsMutable().clear();
      op.setRopeAttr(RopeEncodingAttr::get(
          op.getContext(), rope.getLayout(), rope.getRotaryDim(),
          rope.getRotateKey(), q.value_or(rope.getQueryOffset()),
          k.value_or(rope.getKeyOffset())));
    });
    return success();
  }
};

/// Constant dynamic offsets of a pe.attention's encodings move into the
/// encoding attributes; a constant attention scaling of 1 is dropped.
struct CanonicalizeAttentionEncodings : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    RopeEncodingAttr rope = op.getRopeAttr();
    AlibiEncodingAttr alibi = op.getAlibiAttr();
    std::optional<int64_t> q, k, a;
    if (rope) {
      q = foldOffset(op.getQueryOffset(), rope.getQueryOffset());
      k = foldOffset(op.getKeyOffset(), rope.getKeyOffset());
      // As for pe.rope: an offset stays dynamic (clamped at run time) where
      // the static positions would read outside a cache (a verifier error).
      if (Value cos = op.getCosCache()) {
        int64_t rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
        auto fits = [&](std::optional<int64_t> first, Value operand) {
          int64_t seqLen = cast<RankedTensorType>(operand.getType())
                               .getDimSize(op.getSequenceAxis());
          int64_t end;
          return ShapedType::isDynamic(rows) ||
                 (!ShapedType::isDynamic(seqLen) &&
                  !llvm::AddOverflow(*first, seqLen, end) && end <= rows);
        };
        if (q && !fits(q, op.getQuery()))
          q.reset();
        if (k && !fits(k, op.getKey()))
          k.reset();
      }
    }
    if (alibi)
      a = foldOffset(op.getAlibiOffset(), alibi.getQueryOffset());
    bool unitScaling = isConstantOne(op.getAttentionScaling());
    if (!q && !k && !a && !unitScaling)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (q || k) {
        if (q)
          op.getQueryOffsetMutable().clear();
        if (k)
          op.getKeyOffsetMutable().clear();
        op.setRopeAttr(RopeEncodingAttr::get(
            op.getContext(), rope.getLayout(), rope.getRotaryDim(),
            rope.getRotateKey(), q.value_or(rope.getQueryOffset()),
            k.value_or(rope.getKeyOffset())));
      }
      if (a) {
        op.getAlibiOffsetMutable().clear();
        op.setAlibiAttr(AlibiEncodingAttr::get(
            op.getContext(), alibi.getDistance(), alibi.getMaxBias(), *a));
      }
      if (unitScaling)
        op.getAttentionScalingMutable().clear();
    });
    return success();
  }
};
} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<CanonicalizeAttentionEncodings, FoldArangeAttentionPositions>(
      context);
}
