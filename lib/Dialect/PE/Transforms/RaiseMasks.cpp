//===- RaiseMasks.cpp - causal masks as frontends build them --------------===//
//
// Part of the pe-mlir project.
//
// Causal masks as frontends build them: a comparison of the key and query
// indices inside a select (or of constant aranges, which the tracer reads as
// indices), Hugging Face's 4-D mask `triu(full(min), 1) * (arange_j >
// cache_position_i)` (a select times a 0/1 indicator), and a causal mask
// stored as data: GPT-2 registers a boolean buffer
// `bias = tril(ones(P, P))[None, None]` and masks the scores with
// `where(bias[:, :, :T, :T], w, min)`. When that buffer is a constant of
// the program the pattern can check it: it is causal when, over the window
// the scores read, it is true exactly where j <= i + k for one k.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

namespace {
/// Largest window of a constant mask the pattern checks entry by entry.
constexpr int64_t kMaxCheckedMaskEntries = int64_t(1) << 22;
} // namespace

std::optional<int64_t>
mlir::pe::raise::causalOffsetOfConstantMask(const Tracer &tracer,
                                            const Expr *cond, AffineExpr i,
                                            AffineExpr j, bool maskedWhenTrue) {
  if (cond->kind != ExprKind::Leaf || !cond->value)
    return std::nullopt;
  auto cst = cond->value.getDefiningOp<arith::ConstantOp>();
  if (!cst)
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue());
  if (!dense || !dense.getElementType().isInteger(1))
    return std::nullopt;
  auto type = cast<RankedTensorType>(dense.getType());
  int64_t rank = type.getRank();
  if (rank < 2 || cond->indices.size() != static_cast<size_t>(rank))
    return std::nullopt;
  // [c..., i + a, j + b]
  SmallVector<int64_t> base;
  for (int64_t d = 0; d < rank - 2; ++d) {
    std::optional<int64_t> c = tracer.constantOf(cond->indices[d]);
    if (!c)
      return std::nullopt;
    base.push_back(*c);
  }
  std::optional<int64_t> a = tracer.constantOf(cond->indices[rank - 2] - i);
  std::optional<int64_t> b = tracer.constantOf(cond->indices[rank - 1] - j);
  auto iVar = dyn_cast<AffineDimExpr>(i), jVar = dyn_cast<AffineDimExpr>(j);
  if (!a || !b || !iVar || !jVar)
    return std::nullopt;
  int64_t tq = tracer.extent(iVar.getPosition());
  int64_t tk = tracer.extent(jVar.getPosition());
  if (ShapedType::isDynamic(tq) || ShapedType::isDynamic(tk) ||
      tq * tk > kMaxCheckedMaskEntries)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  auto masked = [&](int64_t q, int64_t k) {
    SmallVector<int64_t> at(base);
    at.push_back(q + *a);
    at.push_back(k + *b);
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat = flat * shape[d] + at[d];
    bool value = dense.isSplat() ? dense.getSplatValue<bool>()
                                 : *(dense.getValues<bool>().begin() + flat);
    return value == maskedWhenTrue;
  };
  // The window must lie inside the tensor (the slice guarantees it; a
  // broadcast read may not).
  if (*a < 0 || *b < 0 || *a + tq > shape[rank - 2] ||
      *b + tk > shape[rank - 1])
    return std::nullopt;
  // The offset from the first row: its keys 0..offset are kept.
  int64_t offset = -1;
  while (offset + 1 < tk && !masked(0, offset + 1))
    ++offset;
  for (int64_t q = 0; q < tq; ++q)
    for (int64_t k = 0; k < tk; ++k)
      if (masked(q, k) != (k > q + offset))
        return std::nullopt;
  return offset;
}

std::optional<int64_t>
mlir::pe::raise::causalOffsetOfCondition(const Tracer &tracer, const Expr *cond,
                                         AffineExpr i, AffineExpr j,
                                         bool maskedWhenTrue) {
  if (std::optional<int64_t> k =
          causalOffsetOfConstantMask(tracer, cond, i, j, maskedWhenTrue))
    return k;
  if (cond->kind != ExprKind::CmpI)
    return std::nullopt;
  const Expr *l = cond->operands[0], *r = cond->operands[1];
  if (l->kind != ExprKind::Index || r->kind != ExprKind::Index)
    return std::nullopt;
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
    return std::nullopt;
  }
  if (!maskedWhenTrue) {
    // masked iff !(E > k) iff -E > -k - 1
    diff = -diff;
    k = -k - 1;
  }
  // E = j - i + c: masked iff j > i + k - c.
  std::optional<int64_t> c = tracer.constantOf(diff - j + i);
  if (!c)
    return std::nullopt;
  return k - *c;
}

std::optional<int64_t>
mlir::pe::raise::causalOffsetOfMaskTerm(const Tracer &tracer, const Term &term,
                                        AffineExpr i, AffineExpr j,
                                        double maskedScore) {
  if (term.factors.empty() || term.factors.size() > 2)
    return std::nullopt;
  // -big * cast<float>(c): a 0 / 1 indicator of the masked keys scaled to
  // -big (TOSA and ONNX exports multiply the cast comparison; unsigned, i1).
  if (term.coefficient <= maskedScore && term.factors.size() == 1) {
    const Expr *f = stripCasts(term.factors[0]);
    if (f->kind == ExprKind::IntToFp && f->predicate == 1 &&
        f->operands[0]->kind == ExprKind::CmpI)
      return causalOffsetOfCondition(tracer, f->operands[0], i, j, true);
    return std::nullopt;
  }
  if (term.coefficient != 1)
    return std::nullopt;
  const Expr *mask = nullptr, *indicator = nullptr;
  for (const Expr *f : term.factors) {
    f = stripCasts(f);
    if (!mask && f->kind == ExprKind::Select)
      mask = f;
    else
      indicator = f;
  }
  if (!mask)
    return std::nullopt;
  // select(c, -big, 0) or select(c, 0, -big)
  const Expr *t = stripCasts(mask->operands[1]);
  const Expr *o = stripCasts(mask->operands[2]);
  if (!t->isConst() || !o->isConst())
    return std::nullopt;
  std::optional<int64_t> k;
  if (t->constant <= maskedScore && o->constant == 0)
    k = causalOffsetOfCondition(tracer, mask->operands[0], i, j, true);
  else if (o->constant <= maskedScore && t->constant == 0)
    k = causalOffsetOfCondition(tracer, mask->operands[0], i, j, false);
  if (!k || !indicator)
    return k;
  // times where the mask applies, as 0 / 1: uitofp(cmp) (a bool tensor
  // multiplied into a float one) or select(cmp, 1, 0). Masked where both
  // hold: j > i + max(k, k').
  std::optional<int64_t> k2;
  if (indicator->kind == ExprKind::IntToFp && indicator->predicate == 1 &&
      indicator->operands[0]->kind == ExprKind::CmpI) {
    k2 = causalOffsetOfCondition(tracer, indicator->operands[0], i, j, true);
  } else if (indicator->kind == ExprKind::Select) {
    const Expr *a = stripCasts(indicator->operands[1]);
    const Expr *b = stripCasts(indicator->operands[2]);
    if (a->isConst(1) && b->isConst(0))
      k2 = causalOffsetOfCondition(tracer, indicator->operands[0], i, j, true);
    else if (a->isConst(0) && b->isConst(1))
      k2 = causalOffsetOfCondition(tracer, indicator->operands[0], i, j, false);
  }
  if (!k2)
    return std::nullopt;
  return std::max(*k, *k2);
}
