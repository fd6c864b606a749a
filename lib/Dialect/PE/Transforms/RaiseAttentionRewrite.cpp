//===- RaiseAttentionRewrite.cpp - a matched attention to pe.attention ----===//
//
// Part of the pe-mlir project.
//
// The rewrite of an attention AttentionMatcher matched (RaiseAttention.cpp):
// Q, K and V in [B, H, S, D] order, the causal alignment and offset, the
// ALiBi slopes (as max_bias where they are the paper's) added to a matched
// bias, and the pe.attention that replaces the root.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttention.h"

#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

/// Operands read in another dimension order are transposed to [B, H, S, D];
/// a [H, T, D] operand of a rank-3 attention is expanded to [1, H, T, D].
Value AttentionMatcher::buildOrdered(PatternRewriter &rewriter,
                                     const Operand &o) {
  Location loc = root.getLoc();
  Value v = o.value;
  ArrayRef<int64_t> perm = o.permutation;
  if (!perm.empty()) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.getDimSize(p));
    Value init =
        tensor::EmptyOp::create(rewriter, loc, shape, t.getElementType());
    v = linalg::TransposeOp::create(rewriter, loc, v, init, perm)
            .getResult()[0];
  }
  if (!o.expand)
    return v;
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, t.getShape());
  SmallVector<ReassociationIndices> groups = {{0, 1}, {2}, {3}};
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, t.getElementType()), v,
      groups);
}

/// The alignment of the matched causal mask: bottom-right when its offset is
/// Tk - Tq, else top-left with `causalOffsetValue` (null for offset 0).
CausalAlignment AttentionMatcher::buildCausalOffset(PatternRewriter &rewriter,
                                                    int64_t tq, int64_t tk,
                                                    Value &causalOffsetValue) {
  CausalAlignment alignment = CausalAlignment::BottomRight;
  if (!causalOffset)
    return alignment;
  bool bottomRight = !ShapedType::isDynamic(tq) && !ShapedType::isDynamic(tk) &&
                     *causalOffset == tk - tq;
  if (!bottomRight) {
    alignment = CausalAlignment::TopLeft;
    if (*causalOffset != 0)
      causalOffsetValue = arith::ConstantOp::create(
          rewriter, root.getLoc(), rewriter.getIndexAttr(*causalOffset));
  }
  return alignment;
}

/// The ALiBi slopes: none when the constant slopes are the paper's for some
/// max_bias (set in `maxBias`, ggml's closed form: slope 0 is
/// 2^(-max_bias / n), n = 2^floor(log2 H)), else a constant or a slice of the
/// slope tensor.
Value AttentionMatcher::buildAlibiSlopes(PatternRewriter &rewriter,
                                         std::optional<double> &maxBias) {
  Location loc = root.getLoc();
  int64_t heads = type.getDimSize(1);
  if (!alibi->values.empty()) {
    double n = std::exp2(std::floor(std::log2(static_cast<double>(heads))));
    double estimate = -n * std::log2(alibi->values[0]);
    for (double mb : {std::round(estimate), estimate}) {
      std::vector<double> paper = formula::alibiSlopes(heads, mb);
      bool same = mb > 0 && paper.size() == alibi->values.size();
      for (size_t k = 0; same && k < paper.size(); ++k)
        same = nearlyEqual(paper[k], alibi->values[k], 1e-6);
      if (same) {
        maxBias = mb;
        break;
      }
    }
    if (maxBias)
      return Value();
    auto t = RankedTensorType::get({heads}, rewriter.getF32Type());
    SmallVector<float> v(alibi->values.begin(), alibi->values.end());
    return arith::ConstantOp::create(
        rewriter, loc, DenseElementsAttr::get(t, ArrayRef<float>(v)));
  }
  auto t = cast<RankedTensorType>(alibi->table.getType());
  SmallVector<OpFoldResult> o, sz, st;
  for (auto [k, s0] : llvm::enumerate(alibi->start)) {
    o.push_back(rewriter.getIndexAttr(s0));
    sz.push_back(rewriter.getIndexAttr(k == alibi->headAt ? heads : 1));
    st.push_back(rewriter.getIndexAttr(1));
  }
  if (t.getRank() == 1)
    return alibi->table;
  return tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({heads}, t.getElementType()),
      alibi->table, o, sz, st);
}

/// pe.attention takes one bias: the ALiBi bias [H, Tq, Tk] plus the matched
/// bias tensor, broadcast to [Bm, H, Tq, Tk] (Bm: the tensor's batch, or 1),
/// as the original added them.
Value AttentionMatcher::buildBiasPlusAlibi(PatternRewriter &rewriter,
                                           Value alibiBias, int64_t tq,
                                           int64_t tk) {
  Location loc = root.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t heads = type.getDimSize(1);
  auto maskType = cast<RankedTensorType>(bias.getType());
  int64_t rank = maskType.getRank();
  int64_t batch = rank == 4 ? maskType.getDimSize(0) : 1;
  SmallVector<int64_t> shape = {batch, heads, tq, tk};
  SmallVector<AffineExpr> maskIdx;
  for (int64_t k = 0; k < rank; ++k) {
    int64_t d = 4 - rank + k;
    maskIdx.push_back(maskType.getDimSize(k) == 1 && shape[d] != 1
                          ? rewriter.getAffineConstantExpr(0)
                          : rewriter.getAffineDimExpr(d));
  }
  auto maps = SmallVector<AffineMap>{
      AffineMap::get(4, 0,
                     {rewriter.getAffineDimExpr(1),
                      rewriter.getAffineDimExpr(2),
                      rewriter.getAffineDimExpr(3)},
                     ctx),
      AffineMap::get(4, 0, maskIdx, ctx), rewriter.getMultiDimIdentityMap(4)};
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, rewriter.getF32Type());
  Value mask = bias;
  return linalg::GenericOp::create(
             rewriter, loc, init.getType(), ValueRange{alibiBias, mask},
             ValueRange{init}, maps,
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [](OpBuilder &b, Location l, ValueRange args) {
               Value m = args[1];
               if (!m.getType().isF32())
                 m = arith::ExtFOp::create(b, l, b.getF32Type(), m);
               linalg::YieldOp::create(
                   b, l,
                   ValueRange{
                       arith::AddFOp::create(b, l, args[0], m).getResult()});
             })
      .getResult(0);
}

LogicalResult AttentionMatcher::rewrite(PatternRewriter &rewriter) {
  Location loc = root.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value q = buildOrdered(rewriter, query), k = buildOrdered(rewriter, key),
        v = buildOrdered(rewriter, value);
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(k.getType());
  int64_t tq = qt.getDimSize(2), tk = kt.getDimSize(2);
  FloatAttr scaleAttr;
  int64_t headDim = qt.getDimSize(3);
  if (!nearlyEqual(scale, 1.0 / std::sqrt(static_cast<double>(headDim)), 1e-6))
    scaleAttr = rewriter.getF64FloatAttr(scale);
  Value causalOffsetValue;
  CausalAlignment alignment =
      buildCausalOffset(rewriter, tq, tk, causalOffsetValue);
  if (alibi) {
    std::optional<double> maxBias;
    Value slopes = buildAlibiSlopes(rewriter, maxBias);
    auto biasType = RankedTensorType::get({type.getDimSize(1), tq, tk},
                                          rewriter.getF32Type());
    Value alibiBias = AlibiBiasOp::create(
        rewriter, loc, biasType, ValueRange(), slopes, Value(),
        AlibiDistanceAttr::get(ctx, alibi->distance),
        rewriter.getF64FloatAttr(maxBias.value_or(8.0)), IntegerAttr());
    bias = bias ? buildBiasPlusAlibi(rewriter, alibiBias, tq, tk) : alibiBias;
  }
  // Into a tensor.empty destination (the convenience builder).
  auto op = AttentionOp::create(rewriter, loc, type, /*lseType=*/Type(), q, k,
                                v, AttentionLayout::BHSD);
  if (bias)
    op.getBiasMutable().assign(bias);
  if (causalOffsetValue)
    op.getCausalOffsetMutable().assign(causalOffsetValue);
  op.setScaleAttr(scaleAttr);
  if (causalOffset)
    op.setCausal(true);
  op.setCausalAlignment(alignment);
  Value result = op.getResult();
  if (rank3) {
    SmallVector<ReassociationIndices> groups = {{0, 1}, {2}, {3}};
    result = tensor::CollapseShapeOp::create(rewriter, loc, root.getType(),
                                             result, groups);
  }
  rewriter.replaceAllUsesWith(root, result);
  return success();
}
