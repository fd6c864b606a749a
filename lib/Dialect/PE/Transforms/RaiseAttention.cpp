//===- RaiseAttention.cpp - softmax attention in linalg IR to pe.attention ===//
//
// Part of the pe-mlir project.
//
// Scaled dot-product attention computes, for a result [B, H, Tq, Dv],
//
//   out[b,h,i,e] = sum_j P[b,h,i,j] * V[b,h/g,j,e]
//   P = exp(S - max_j S) / sum_j exp(S - max_j S)        (softmax over j)
//   S[b,h,i,j] = scale * sum_d Q[b,h,i,d] * K[b,h/g,j,d] + bias[b,h,i,j]
//
// with g = H / Hkv query heads per key/value head (grouped-query attention:
// a repeat_kv expansion of K and V is only an index h/g). The pattern traces
// the element out[b,h,i,e] of a contraction's result (RaiseTrace.h) and
// matches that formula: the softmax's max and sum must reduce over the very
// variable the product with V sums over and normalise the same scores, the
// bias terms must not depend on the reduction, and Q, K and V must be read
// at exactly these indices (through whatever transposes, reshapes and
// broadcasts). A bias term of the form `j - i > k ? -big : 0` is the causal
// mask. The result is one pe.attention on the untransposed, unexpanded
// tensors.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "pe-raise"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

namespace {

/// A masked-out score: anything at or below this underflows exp to 0.
constexpr double kMaskedScore = -1e4;

class AttentionMatcher {
public:
  AttentionMatcher(Value root) : root(root), tracer(root.getContext()) {}

  bool match();
  LogicalResult rewrite(PatternRewriter &rewriter);

  std::string reason;

private:
  bool matchScores(const Expr *s);
  bool matchBias(const Term &term);
  /// An access of `e` that reads a rank-4 tensor at `indices` (after
  /// simplification).
  std::optional<Access> accessAt(const Expr *e, ArrayRef<AffineExpr> indices,
                                 bool allowBroadcast = false);

  Value root;
  Tracer tracer;
  RankedTensorType type;
  AffineExpr b, h, i, e, j, d;

public:
  Value query, key, value, bias;
  double scale = 1;
  std::optional<int64_t> causalOffset; // j <= i + offset
};

/// The single variable of a Reduce node's body products that is `var`.
static AffineExpr varExpr(Tracer &t, unsigned var) {
  return getAffineDimExpr(var, t.getContext());
}

std::optional<Access> AttentionMatcher::accessAt(const Expr *x,
                                                 ArrayRef<AffineExpr> indices,
                                                 bool allowBroadcast) {
  for (const Access &a : tracer.origins(x)) {
    auto t = dyn_cast<RankedTensorType>(a.value.getType());
    if (!t || t.getRank() != static_cast<int64_t>(indices.size()))
      continue;
    bool ok = true;
    for (auto [k, pair] : llvm::enumerate(llvm::zip(a.indices, indices))) {
      auto [got, want] = pair;
      AffineExpr g = tracer.simplify(got);
      if (g == tracer.simplify(want))
        continue;
      // A broadcast dimension: index 0 of a size-1 dimension.
      if (allowBroadcast && t.getDimSize(k) == 1 && tracer.constantOf(g) == 0)
        continue;
      ok = false;
    }
    if (ok)
      return a;
  }
  return std::nullopt;
}

bool AttentionMatcher::matchBias(const Term &term) {
  if (term.factors.size() != 1)
    return false;
  const Expr *f = stripCasts(term.factors[0]);
  // The causal mask: select(cmp(j, i), -big, 0) (or the other way round).
  if (f->kind == ExprKind::Select && term.coefficient == 1) {
    const Expr *cond = f->operands[0];
    const Expr *t = stripCasts(f->operands[1]), *o = stripCasts(f->operands[2]);
    if (cond->kind != ExprKind::CmpI || !t->isConst() || !o->isConst())
      return false;
    bool maskedWhenTrue;
    if (t->constant <= kMaskedScore && o->constant == 0)
      maskedWhenTrue = true;
    else if (o->constant <= kMaskedScore && t->constant == 0)
      maskedWhenTrue = false;
    else
      return false;
    const Expr *l = cond->operands[0], *r = cond->operands[1];
    if (l->kind != ExprKind::Index || r->kind != ExprKind::Index)
      return false;
    // Normalise to "masked iff E > k".
    AffineExpr diff = l->index - r->index;
    int64_t k = 0;
    switch (static_cast<arith::CmpIPredicate>(cond->predicate)) {
    case arith::CmpIPredicate::sgt:
    case arith::CmpIPredicate::ugt:
      break;
    case arith::CmpIPredicate::sge:
    case arith::CmpIPredicate::uge:
      k = -1;
      break;
    case arith::CmpIPredicate::slt:
    case arith::CmpIPredicate::ult:
      diff = -diff;
      break;
    case arith::CmpIPredicate::sle:
    case arith::CmpIPredicate::ule:
      diff = -diff;
      k = -1;
      break;
    default:
      return false;
    }
    if (!maskedWhenTrue) {
      // masked iff !(E > k) iff -E > -k - 1
      diff = -diff;
      k = -k - 1;
    }
    // E = j - i + c: masked iff j > i + k - c.
    AffineExpr rest = tracer.simplify(diff - j + i);
    std::optional<int64_t> c = tracer.constantOf(rest);
    if (!c || causalOffset)
      return false;
    causalOffset = k - *c;
    return true;
  }
  // An additive bias tensor, broadcast numpy-style to [B, H, Tq, Tk].
  if (f->kind != ExprKind::Leaf || term.coefficient != 1 || bias)
    return false;
  for (int rank = 4; rank >= 2; --rank) {
    SmallVector<AffineExpr> want = {b, h, i, j};
    if (auto a = accessAt(f, ArrayRef(want).take_back(rank),
                          /*allowBroadcast=*/true)) {
      bias = a->value;
      return true;
    }
  }
  return false;
}

bool AttentionMatcher::matchScores(const Expr *s) {
  SmallVector<Term> terms;
  if (!expandTerms(s, terms, 8))
    return false;
  bool haveDot = false;
  for (const Term &term : terms) {
    // The dot product term: coefficient * sum_d (c * Q * K).
    if (term.factors.size() == 1 &&
        stripCasts(term.factors[0])->kind == ExprKind::Reduce &&
        stripCasts(term.factors[0])->reduction == ReductionKind::Add) {
      if (haveDot)
        return false;
      haveDot = true;
      const Expr *dot = stripCasts(term.factors[0]);
      d = varExpr(tracer, dot->var);
      SmallVector<Term> body;
      if (!expandTerms(dot->operands[0], body, 1) || body.size() != 1 ||
          body[0].factors.size() != 2)
        return false;
      scale = term.coefficient * body[0].coefficient;
      int64_t heads = type.getDimSize(1);
      const Expr *qf = body[0].factors[0], *kf = body[0].factors[1];
      for (int attempt = 0; attempt < 2; ++attempt, std::swap(qf, kf)) {
        std::optional<Access> q = accessAt(stripCasts(qf), {b, h, i, d});
        if (!q)
          continue;
        // K: [B, Hkv, Tk, D] read at head h / g.
        for (const Access &a : tracer.origins(stripCasts(kf))) {
          auto kt = dyn_cast<RankedTensorType>(a.value.getType());
          if (!kt || kt.getRank() != 4 || ShapedType::isDynamic(heads) ||
              ShapedType::isDynamic(kt.getDimSize(1)) ||
              heads % kt.getDimSize(1) != 0)
            continue;
          int64_t g = heads / kt.getDimSize(1);
          SmallVector<AffineExpr> want = {b, h.floorDiv(g), j, d};
          if (accessAt(stripCasts(kf), want) && a.value) {
            std::optional<Access> k = accessAt(stripCasts(kf), want);
            if (cast<RankedTensorType>(k->value.getType()).getDimSize(1) !=
                kt.getDimSize(1))
              continue;
            query = q->value;
            key = k->value;
            break;
          }
        }
        if (key)
          break;
      }
      if (!query || !key)
        return false;
      continue;
    }
    if (!matchBias(term))
      return false;
  }
  return haveDot;
}

bool AttentionMatcher::match() {
  type = dyn_cast<RankedTensorType>(root.getType());
  if (!type || type.getRank() != 4 || !isa<FloatType>(type.getElementType()))
    return false;
  SmallVector<AffineExpr> vars = tracer.addVariables(type);
  b = vars[0], h = vars[1], i = vars[2], e = vars[3];
  const Expr *out = stripCasts(tracer.trace(root, vars));
  // sum_j P * V
  if (out->kind != ExprKind::Reduce || out->reduction != ReductionKind::Add)
    return false;
  j = varExpr(tracer, out->var);
  SmallVector<Term> pv;
  if (!expandTerms(out->operands[0], pv, 1) || pv.size() != 1 ||
      pv[0].coefficient != 1)
    return false;
  // V: the factor read at [b, h/g, j, e]; the rest is the softmax.
  const Expr *numerator = nullptr, *denominator = nullptr;
  SmallVector<const Expr *> rest;
  for (const Expr *f : pv[0].factors) {
    const Expr *s = stripCasts(f);
    if (!value && s->kind != ExprKind::Div && s->kind != ExprKind::Exp) {
      int64_t heads = type.getDimSize(1);
      for (const Access &a : tracer.origins(s)) {
        auto vt = dyn_cast<RankedTensorType>(a.value.getType());
        if (!vt || vt.getRank() != 4 || ShapedType::isDynamic(heads) ||
            ShapedType::isDynamic(vt.getDimSize(1)) ||
            heads % vt.getDimSize(1) != 0)
          continue;
        int64_t g = heads / vt.getDimSize(1);
        SmallVector<AffineExpr> want = {b, h.floorDiv(g), j, e};
        if (std::optional<Access> v = accessAt(s, want)) {
          if (cast<RankedTensorType>(v->value.getType()).getDimSize(1) ==
              vt.getDimSize(1)) {
            value = v->value;
            break;
          }
        }
      }
      if (value)
        continue;
    }
    rest.push_back(s);
  }
  if (!value)
    return false;
  // P = E / Z, or E * (1 / Z).
  if (rest.size() == 1 && rest[0]->kind == ExprKind::Div) {
    numerator = stripCasts(rest[0]->operands[0]);
    denominator = stripCasts(rest[0]->operands[1]);
  } else if (rest.size() == 2) {
    for (int k = 0; k < 2; ++k) {
      const Expr *r = rest[k];
      if (r->kind == ExprKind::Div && stripCasts(r->operands[0])->isConst(1)) {
        denominator = stripCasts(r->operands[1]);
        numerator = rest[1 - k];
      }
    }
  }
  if (!numerator || !denominator || numerator->kind != ExprKind::Exp ||
      denominator->kind != ExprKind::Reduce ||
      denominator->reduction != ReductionKind::Add)
    return false;
  // Z = sum_j' exp(x[j']) with the numerator's x at j'.
  llvm::SmallDenseMap<unsigned, unsigned> toJ;
  toJ[denominator->var] = out->var;
  if (!tracer.equal(stripCasts(denominator->operands[0]), numerator, toJ)) {
    reason = "the softmax's sum does not run over the keys that the product "
             "with V sums over";
    return false;
  }
  // x = S - max_j' S, or just S.
  const Expr *x = stripCasts(numerator->operands[0]);
  const Expr *scores = x;
  if (x->kind == ExprKind::Sub) {
    const Expr *m = stripCasts(x->operands[1]);
    if (m->kind == ExprKind::Reduce && m->reduction == ReductionKind::Max) {
      scores = stripCasts(x->operands[0]);
      llvm::SmallDenseMap<unsigned, unsigned> rename;
      rename[m->var] = out->var;
      if (!tracer.equal(stripCasts(m->operands[0]), scores, rename)) {
        reason = "the softmax's maximum is not over the keys that the "
                 "product with V sums over";
        return false;
      }
    }
  }
  if (!matchScores(scores))
    return false;
  // Result, query, key and value of one element type.
  Type et = type.getElementType();
  for (Value v : {query, key, value})
    if (getElementTypeOrSelf(v.getType()) != et) {
      reason = "query, key, value and the result differ in element type";
      return false;
    }
  auto qt = cast<RankedTensorType>(query.getType());
  auto vt = cast<RankedTensorType>(value.getType());
  if (qt.getDimSize(0) != type.getDimSize(0) ||
      qt.getDimSize(1) != type.getDimSize(1) ||
      qt.getDimSize(2) != type.getDimSize(2) ||
      vt.getDimSize(3) != type.getDimSize(3))
    return false;
  return true;
}

LogicalResult AttentionMatcher::rewrite(PatternRewriter &rewriter) {
  Location loc = root.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto qt = cast<RankedTensorType>(query.getType());
  auto kt = cast<RankedTensorType>(key.getType());
  FloatAttr scaleAttr;
  int64_t headDim = qt.getDimSize(3);
  if (!nearlyEqual(scale, 1.0 / std::sqrt(static_cast<double>(headDim)), 1e-6))
    scaleAttr = rewriter.getF64FloatAttr(scale);
  CausalAlignment alignment = CausalAlignment::BottomRight;
  Value causalOffsetValue;
  if (causalOffset) {
    int64_t tq = qt.getDimSize(2), tk = kt.getDimSize(2);
    bool bottomRight = !ShapedType::isDynamic(tq) &&
                       !ShapedType::isDynamic(tk) && *causalOffset == tk - tq;
    if (!bottomRight) {
      alignment = CausalAlignment::TopLeft;
      if (*causalOffset != 0)
        causalOffsetValue = arith::ConstantOp::create(
            rewriter, loc, rewriter.getIndexAttr(*causalOffset));
    }
  }
  auto op = AttentionOp::create(
      rewriter, loc, type, /*lse=*/Type(), query, key, value, bias,
      /*mask=*/Value(), /*kv_lengths=*/Value(), causalOffsetValue,
      /*inv_freq=*/Value(), Value(), Value(), Value(), Value(), Value(),
      Value(), Value(), /*rope=*/RopeEncodingAttr(), AlibiEncodingAttr(),
      scaleAttr, causalOffset ? UnitAttr::get(ctx) : UnitAttr(),
      CausalAlignmentAttr::get(ctx, alignment), IntegerAttr(),
      AttentionLayoutAttr::get(ctx, AttentionLayout::BHSD), FloatAttr(),
      SoftcapOrderAttr::get(ctx, SoftcapOrder::BeforeBias));
  rewriter.replaceAllUsesWith(root, op.getResult());
  return success();
}

/// The value a contraction's result stands for: the result itself, or the
/// [B, H, Tq, Dv] tensor it is reshaped into.
static Value attentionRoot(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1 ||
      linalgOp.getNumReductionLoops() != 1 ||
      !linalgOp.hasPureTensorSemantics())
    return {};
  Value v = op->getResult(0);
  while (v.hasOneUse())
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(*v.getUsers().begin()))
      v = expand.getResult();
    else
      break;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 4)
    return {};
  return v;
}

struct RaiseAttention : RewritePattern {
  RaiseAttention(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Value root = attentionRoot(op);
    if (!root)
      return failure();
    AttentionMatcher matcher(root);
    if (!matcher.match())
      return rewriter.notifyMatchFailure(op, "not softmax attention");
    if (Operation *def = root.getDefiningOp(); def != op)
      rewriter.setInsertionPoint(def);
    return matcher.rewrite(rewriter);
  }
};

} // namespace

std::string mlir::pe::raise::whyAttentionNotRaised(Operation *op,
                                                   const RaiseOptions &) {
  Value root = attentionRoot(op);
  if (!root)
    return "";
  AttentionMatcher matcher(root);
  if (matcher.match())
    return "";
  return matcher.reason;
}

void mlir::pe::populateRaiseAttentionPatterns(RewritePatternSet &patterns,
                                              const RaiseOptions &) {
  patterns.add<RaiseAttention>(patterns.getContext());
}
