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
// tensors. The rewrite is in RaiseAttentionRewrite.cpp.
//
//===----------------------------------------------------------------------===//

#include "RaiseAttention.h"
#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <tuple>
#include <utility>

#define DEBUG_TYPE "pe-raise"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

/// A masked-out score: anything at or below this underflows exp to 0.
static constexpr double kMaskedScore = -1e4;

/// The single variable of a Reduce node's body products that is `var`.
static AffineExpr varExpr(Tracer &t, unsigned var) {
  return getAffineDimExpr(var, t.getContext());
}

std::optional<AttentionMatcher::Operand>
AttentionMatcher::operandAt(const Expr *x, ArrayRef<AffineExpr> want,
                            int64_t heads) {
  // The origins read at `want`, in order, then in another dimension order
  // (transposed at rewrite); for a rank-3 attention, or one of batch 1, also
  // [H, T, D] tensors (the batch index is 0), maybe in another order ([H, D,
  // T]: a key stored transposed, as old Hugging Face and ONNX past_key caches
  // are). Several origins may read the same elements (a slice at offset 0 of
  // a packed QKV tensor reads it at the slice's indices): the first of
  // `heads` heads is taken.
  SmallVector<ArrayRef<AffineExpr>> forms = {want};
  if (rank3 || type.getDimSize(0) == 1)
    forms.push_back(want.drop_front());
  for (auto [f, form] : llvm::enumerate(forms))
    for (bool permuted : {false, true})
      for (const Access &a : tracer.origins(x)) {
        std::optional<SmallVector<int64_t>> perm = permutationOf(a, form);
        if (!perm || perm->empty() == permuted)
          continue;
        Operand o{a.value, *perm, /*expand=*/f == 1};
        if (o.dim(1) == heads)
          return o;
      }
  return std::nullopt;
}

std::optional<SmallVector<int64_t>>
AttentionMatcher::permutationOf(const Access &a, ArrayRef<AffineExpr> want) {
  auto t = dyn_cast<RankedTensorType>(a.value.getType());
  if (!t || t.getRank() != static_cast<int64_t>(want.size()))
    return std::nullopt;
  // In order: no permutation.
  if (llvm::all_of(llvm::zip(a.indices, want), [&](auto pair) {
        return tracer.simplify(std::get<0>(pair)) ==
               tracer.simplify(std::get<1>(pair));
      }))
    return SmallVector<int64_t>();
  // A permutation: each dimension of the tensor used once (several may read
  // index 0 where the extent is 1).
  SmallVector<int64_t> perm;
  llvm::SmallBitVector used(want.size());
  for (AffineExpr w : want) {
    AffineExpr sw = tracer.simplify(w);
    for (auto [k, index] : llvm::enumerate(a.indices))
      if (!used.test(k) && tracer.simplify(index) == sw) {
        perm.push_back(k);
        used.set(k);
        break;
      }
  }
  if (perm.size() != want.size())
    return std::nullopt;
  return perm;
}

std::optional<AttentionMatcher::Operand>
AttentionMatcher::groupedOperandAt(const Expr *x, AffineExpr last) {
  int64_t heads = type.getDimSize(1);
  if (ShapedType::isDynamic(heads))
    return std::nullopt;
  x = stripCasts(x);
  // The fewest KV heads first: the tensor before a repeat_kv expansion.
  for (int64_t g = heads; g >= 1; --g) {
    if (heads % g != 0)
      continue;
    SmallVector<AffineExpr> want = {b, g == 1 ? h : h.floorDiv(g), j, last};
    if (std::optional<Operand> o = operandAt(x, want, heads / g))
      return o;
  }
  return std::nullopt;
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

bool AttentionMatcher::parseCausal(const Expr *cond, bool maskedWhenTrue) {
  std::optional<int64_t> k =
      causalOffsetOfCondition(tracer, cond, i, j, maskedWhenTrue);
  // A negative offset masks every key of the first rows, which the original
  // normalises uniformly over its -big scores and pe.attention sets to 0.
  if (!k || causalOffset || *k < 0)
    return false;
  causalOffset = *k;
  return true;
}

bool AttentionMatcher::matchAlibi(const Term &term) {
  if (alibi || term.factors.size() != 2)
    return false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const Expr *slope = stripCasts(term.factors[attempt]);
    const Expr *dist = stripCasts(term.factors[1 - attempt]);
    if (dist->kind != ExprKind::IntToFp ||
        dist->operands[0]->kind != ExprKind::Index ||
        slope->kind != ExprKind::Leaf)
      continue;
    // distance = j + c (key) or j - i + c (signed); c shifts every score of
    // a row by the same amount, which softmax ignores.
    AffineExpr e = dist->operands[0]->index;
    AlibiDistance distance;
    if (tracer.constantOf(e - j))
      distance = AlibiDistance::Key;
    else if (tracer.constantOf(e - j + i))
      distance = AlibiDistance::Signed;
    else
      continue;
    // The slope: a tensor read at the head index.
    auto slopeType = dyn_cast<RankedTensorType>(slope->value.getType());
    if (!slopeType)
      continue;
    std::optional<unsigned> headAt;
    SmallVector<int64_t> start;
    bool ok = true;
    for (auto [k, index] : llvm::enumerate(slope->indices)) {
      AffineExpr si = tracer.simplify(index);
      if (si == tracer.simplify(h)) {
        headAt = k;
        start.push_back(0);
      } else if (std::optional<int64_t> c = tracer.constantOf(si)) {
        start.push_back(*c);
      } else {
        ok = false;
      }
    }
    int64_t heads = type.getDimSize(1);
    if (!ok || !headAt || slopeType.getDimSize(*headAt) != heads)
      continue;
    AlibiMatch m;
    m.distance = distance;
    m.table = slope->value;
    m.start = start;
    m.headAt = *headAt;
    m.coefficient = term.coefficient;
    if (auto cst = slope->value.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue()))
        for (int64_t hh = 0; hh < heads; ++hh) {
          SmallVector<uint64_t> at(start.begin(), start.end());
          at[*headAt] = hh;
          m.values.push_back(dense.getValues<APFloat>()[at].convertToDouble() *
                             term.coefficient);
        }
    if (m.values.empty() &&
        (term.coefficient != 1 ||
         !isa<Float32Type, Float64Type>(slopeType.getElementType())))
      continue;
    alibi = std::move(m);
    return true;
  }
  return false;
}

bool AttentionMatcher::matchBias(const Term &term) {
  // ALiBi: slope[h] * distance(i, j).
  if (matchAlibi(term))
    return true;
  // The causal mask: select(cmp(j, i), -big, 0) (or the other way round),
  // maybe times a 0/1 indicator of another comparison (RaiseMasks.cpp).
  if (std::optional<int64_t> k =
          causalOffsetOfMaskTerm(tracer, term, i, j, kMaskedScore)) {
    if (causalOffset || *k < 0)
      return false;
    causalOffset = *k;
    return true;
  }
  if (term.factors.size() != 1)
    return false;
  const Expr *f = stripCasts(term.factors[0]);
  if (f->kind == ExprKind::Select)
    return false;
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
  // masked_fill(mask, -big): select(cond, -big, scores) around the scores.
  while (s->kind == ExprKind::Select) {
    const Expr *t = stripCasts(s->operands[1]), *o = stripCasts(s->operands[2]);
    const Expr *cond = stripCasts(s->operands[0]);
    const char *unrecognisedMask =
        cond->kind == ExprKind::Leaf
            ? "the scores are masked by a boolean tensor that is not a "
              "constant causal pattern (true exactly where j <= i + k); pass "
              "other masks as an additive bias tensor"
            : "the scores are masked by a select whose condition is not a "
              "causal comparison of the key and query indices (j > i + k, or "
              "its negation); pass other masks as an additive bias tensor";
    if (t->isConst() && t->constant <= kMaskedScore && !o->isConst()) {
      if (!parseCausal(s->operands[0], /*maskedWhenTrue=*/true)) {
        reason = unrecognisedMask;
        return false;
      }
      s = o;
    } else if (o->isConst() && o->constant <= kMaskedScore && !t->isConst()) {
      if (!parseCausal(s->operands[0], /*maskedWhenTrue=*/false)) {
        reason = unrecognisedMask;
        return false;
      }
      s = t;
    } else {
      reason = "the scores are masked by a select whose masked value is not a "
               "constant <= -1e4";
      return false;
    }
  }
  SmallVector<Term> terms;
  if (!expandTerms(s, terms, 8)) {
    reason = "the scores are a sum of more than 8 terms";
    return false;
  }
  bool haveDot = false;
  for (const Term &term : terms) {
    // A constant added to every score does not change the softmax.
    if (term.factors.empty())
      continue;
    // The dot product term: coefficient * sum_d (c * Q * K).
    if (term.factors.size() == 1 &&
        stripCasts(term.factors[0])->kind == ExprKind::Reduce &&
        stripCasts(term.factors[0])->reduction == ReductionKind::Add) {
      if (haveDot)
        return false;
      haveDot = true;
      const Expr *dot = stripCasts(term.factors[0]);
      d = varExpr(tracer, dot->var);
      // Q K, whose factors may be sums (biased projections).
      Term body = productOf(dot->operands[0]);
      if (body.factors.size() != 2) {
        reason = "the dot product is not a product of two factors (a query "
                 "and a key)";
        return false;
      }
      scale = term.coefficient * body.coefficient;
      const Expr *qf = body.factors[0], *kf = body.factors[1];
      for (int attempt = 0; attempt < 2; ++attempt, std::swap(qf, kf)) {
        std::optional<Operand> q =
            operandAt(stripCasts(qf), {b, h, i, d}, type.getDimSize(1));
        if (!q)
          continue;
        // K: [B, Hkv, Tk, D] read at head h / g.
        if (std::optional<Operand> k = groupedOperandAt(kf, d)) {
          query = *q;
          key = *k;
        }
        if (key.value)
          break;
      }
      if (!query.value || !key.value) {
        reason = "the dot product's factors are not a query read at [b, h, "
                 "i, d] and a key read at [b, h / g, j, d] (through "
                 "transposes and reshapes)";
        return false;
      }
      continue;
    }
    if (!matchBias(term)) {
      if (reason.empty())
        reason = "the scores add a term that is neither a bias tensor read "
                 "at [b, h, i, j] (broadcast), a causal mask select(j > i + "
                 "k, -big, 0) nor an ALiBi slope[h] * distance (an "
                 "unrecognised mask or bias)";
      return false;
    }
  }
  if (!haveDot)
    reason = "the scores have no dot product of a query and a key";
  return haveDot;
}

std::pair<const Expr *, const Expr *>
AttentionMatcher::splitLogSumExp(const Expr *p) {
  const Expr *x = stripCasts(p->operands[0]);
  if (x->kind != ExprKind::Sub)
    return {};
  const Expr *lhs = stripCasts(x->operands[0]);
  const Expr *rhs = stripCasts(x->operands[1]);
  auto logOf = [](const Expr *e) -> const Expr * {
    e = stripCasts(e);
    return e->kind == ExprKind::Log ? stripCasts(e->operands[0]) : nullptr;
  };
  Type type = p->type;
  // (S - M) - log Z
  if (const Expr *z = logOf(rhs))
    return {tracer.unary(ExprKind::Exp, lhs, type), z};
  // S - (M + log Z)
  if (rhs->kind != ExprKind::Add)
    return {};
  for (int k = 0; k < 2; ++k)
    if (const Expr *z = logOf(rhs->operands[k])) {
      const Expr *m = rhs->operands[1 - k];
      return {tracer.unary(ExprKind::Exp,
                           tracer.binary(ExprKind::Sub, lhs, m, type), type),
              z};
    }
  return {};
}

bool AttentionMatcher::match() {
  type = dyn_cast<RankedTensorType>(root.getType());
  if (!type || !isa<FloatType>(type.getElementType()) ||
      (type.getRank() != 4 && type.getRank() != 3))
    return false;
  // A rank-3 [H, Tq, Dv] attention is the [1, H, Tq, Dv] one.
  rank3 = type.getRank() == 3;
  if (rank3) {
    SmallVector<int64_t> shape = {1};
    llvm::append_range(shape, type.getShape());
    type = RankedTensorType::get(shape, type.getElementType());
  }
  // Cheap structural test first: an exponential must lie between the
  // root's contraction and the contractions below it. Then trace only the
  // attention's own reductions (RaiseCone.cpp).
  AttentionCone cone = attentionCone(root, kPatternTraceDepth);
  if (!cone.exponential)
    return false;
  tracer.setMaxDepth(kPatternTraceDepth);
  tracer.setReductionFilter(
      [reductions = std::move(cone.reductions)](Operation *op) {
        return reductions.contains(op);
      });
  SmallVector<AffineExpr> vars = tracer.addVariables(type);
  b = vars[0], h = vars[1], i = vars[2], e = vars[3];
  const Expr *out = stripCasts(
      tracer.trace(root, rank3 ? ArrayRef(vars).drop_front() : vars));
  // sum_j P * V
  if (out->kind != ExprKind::Reduce || out->reduction != ReductionKind::Add)
    return false;
  j = varExpr(tracer, out->var);
  // A product of P and V, whose factors may be sums (a biased V).
  Term pv = productOf(out->operands[0]);
  if (pv.coefficient != 1)
    return false;
  // V: the factor read at [b, h/g, j, e]; the rest is the softmax.
  const Expr *numerator = nullptr, *denominator = nullptr;
  SmallVector<const Expr *> rest;
  for (const Expr *f : pv.factors) {
    const Expr *s = stripCasts(f);
    if (!value.value && s->kind != ExprKind::Div && s->kind != ExprKind::Exp) {
      if (std::optional<Operand> v = groupedOperandAt(s, e))
        value = *v;
      if (value.value)
        continue;
    }
    rest.push_back(s);
  }
  if (!value.value) {
    // Said only next to a softmax-shaped factor (exp(x), or exp(x) / z),
    // not for every product with an exponential in its cone (a SwiGLU
    // down-projection: silu(g) = g / (1 + exp(-g))).
    auto softmaxLike = [](const Expr *r) {
      return r->kind == ExprKind::Exp ||
             (r->kind == ExprKind::Div &&
              stripCasts(r->operands[0])->kind == ExprKind::Exp);
    };
    if (llvm::any_of(rest, softmaxLike))
      reason = "no factor of the product summed over the keys is a value "
               "tensor read at [b, h / g, j, e] (or [h / g, j, e] for one "
               "batch), through transposes and reshapes";
    return false;
  }
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
  } else if (rest.size() == 1 && rest[0]->kind == ExprKind::Exp) {
    // The log-sum-exp form exp(S - M - log Z), or exp(S - (M + log Z)):
    // exp(S - M) / Z.
    std::tie(numerator, denominator) = splitLogSumExp(rest[0]);
  }
  if (!numerator || !denominator || numerator->kind != ExprKind::Exp ||
      denominator->kind != ExprKind::Reduce ||
      denominator->reduction != ReductionKind::Add) {
    reason = "the factor multiplying V is not a softmax of a recognised form "
             "(exp(x - max) / sum, exp(x - max) * (1 / sum) or "
             "exp(x - max - log(sum)), the sum over the keys)";
    return false;
  }
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
  if (alibi && bias &&
      !isa<Float32Type, Float16Type, BFloat16Type>(
          getElementTypeOrSelf(bias.getType()))) {
    reason = "the scores add both an ALiBi term and a bias tensor that is "
             "not f16, bf16 or f32";
    return false;
  }
  // Result, query, key and value of one element type.
  Type et = type.getElementType();
  for (const Operand *o : {&query, &key, &value})
    if (getElementTypeOrSelf(o->value.getType()) != et) {
      reason = "query, key, value and the result differ in element type";
      return false;
    }
  if (alibi &&
      (!cast<RankedTensorType>(query.value.getType()).hasStaticShape() ||
       !cast<RankedTensorType>(key.value.getType()).hasStaticShape()))
    return false;
  for (unsigned k = 0; k < 3; ++k)
    if (query.dim(k) != type.getDimSize(k))
      return false;
  return value.dim(3) == type.getDimSize(3);
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
  if (!t || (t.getRank() != 4 && t.getRank() != 3))
    return {};
  return v;
}

namespace {
/// An attention whose root is its product with V (a contraction).
struct RaiseAttention : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    Value root = attentionRoot(op);
    if (!root)
      return failure();
    AttentionMatcher matcher(root);
    if (!matcher.match())
      return rewriter.notifyMatchFailure(op, "not softmax attention");
    if (Operation *def = root.getDefiningOp(); def != op.getOperation())
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
