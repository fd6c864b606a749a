//===- RaiseTerms.cpp - comparing traced elements, their terms, positions
//--===//
//
// Part of the pe-mlir project.
//
// What the patterns do with traced elements: structural comparison with
// reduction variables renamed, expansion into sums of products, and the
// positions a rotary or absolute encoding reads.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

//===----------------------------------------------------------------------===//
// Comparison and sums of products
//===----------------------------------------------------------------------===//

bool Tracer::equal(const Expr *a, const Expr *b,
                   llvm::SmallDenseMap<unsigned, unsigned> rename) const {
  if (a == b && rename.empty())
    return true;
  if (a->kind != b->kind || a->operands.size() != b->operands.size())
    return false;
  auto renamed = [&](AffineExpr e) {
    SmallVector<AffineExpr> dims;
    for (unsigned i = 0; i < extents.size(); ++i) {
      auto it = rename.find(i);
      dims.push_back(
          getAffineDimExpr(it == rename.end() ? i : it->second, context));
    }
    return simplify(e.replaceDims(dims));
  };
  switch (a->kind) {
  case ExprKind::Leaf:
    if (a->value != b->value || a->indices.size() != b->indices.size())
      return false;
    for (auto [x, y] : llvm::zip(a->indices, b->indices))
      if (renamed(x) != simplify(y))
        return false;
    return true;
  case ExprKind::Const:
    return a->constant == b->constant;
  case ExprKind::Index:
    return renamed(a->index) == simplify(b->index);
  case ExprKind::Reduce:
    if (a->reduction != b->reduction || extents[a->var] != extents[b->var])
      return false;
    rename[a->var] = b->var;
    break;
  case ExprKind::CmpF:
  case ExprKind::CmpI:
  case ExprKind::IntToFp:
    if (a->predicate != b->predicate)
      return false;
    break;
  default:
    break;
  }
  for (auto [x, y] : llvm::zip(a->operands, b->operands))
    if (!equal(x, y, rename))
      return false;
  return true;
}

const Expr *mlir::pe::raise::stripCasts(const Expr *e) {
  while (e->kind == ExprKind::Cast)
    e = e->operands[0];
  return e;
}

bool mlir::pe::raise::expandTerms(const Expr *e, SmallVectorImpl<Term> &terms,
                                  unsigned maxTerms) {
  e = stripCasts(e);
  switch (e->kind) {
  case ExprKind::Const:
    terms.push_back(Term{e->constant, {}});
    return true;
  case ExprKind::Add:
  case ExprKind::Sub: {
    if (!expandTerms(e->operands[0], terms, maxTerms))
      return false;
    size_t start = terms.size();
    if (!expandTerms(e->operands[1], terms, maxTerms))
      return false;
    if (e->kind == ExprKind::Sub)
      for (size_t i = start; i < terms.size(); ++i)
        terms[i].coefficient = -terms[i].coefficient;
    return terms.size() <= maxTerms;
  }
  case ExprKind::Neg: {
    size_t start = terms.size();
    if (!expandTerms(e->operands[0], terms, maxTerms))
      return false;
    for (size_t i = start; i < terms.size(); ++i)
      terms[i].coefficient = -terms[i].coefficient;
    return true;
  }
  case ExprKind::Mul: {
    SmallVector<Term> lhs, rhs;
    if (!expandTerms(e->operands[0], lhs, maxTerms) ||
        !expandTerms(e->operands[1], rhs, maxTerms) ||
        lhs.size() * rhs.size() > maxTerms)
      return false;
    for (const Term &a : lhs)
      for (const Term &b : rhs) {
        Term t{a.coefficient * b.coefficient, a.factors};
        t.factors.append(b.factors.begin(), b.factors.end());
        terms.push_back(std::move(t));
      }
    return terms.size() <= maxTerms;
  }
  case ExprKind::Div: {
    const Expr *d = stripCasts(e->operands[1]);
    if (!d->isConst() || d->constant == 0) {
      terms.push_back(Term{1, {e}});
      return true;
    }
    size_t start = terms.size();
    if (!expandTerms(e->operands[0], terms, maxTerms))
      return false;
    for (size_t i = start; i < terms.size(); ++i)
      terms[i].coefficient /= d->constant;
    return true;
  }
  default:
    terms.push_back(Term{1, {e}});
    return terms.size() <= maxTerms;
  }
}

static void collectProduct(const Expr *e, Term &t) {
  e = stripCasts(e);
  switch (e->kind) {
  case ExprKind::Const:
    t.coefficient *= e->constant;
    return;
  case ExprKind::Neg:
    t.coefficient = -t.coefficient;
    collectProduct(e->operands[0], t);
    return;
  case ExprKind::Mul:
    collectProduct(e->operands[0], t);
    collectProduct(e->operands[1], t);
    return;
  case ExprKind::Div: {
    const Expr *d = stripCasts(e->operands[1]);
    if (d->isConst() && d->constant != 0) {
      collectProduct(e->operands[0], t);
      t.coefficient /= d->constant;
      return;
    }
    break;
  }
  default:
    break;
  }
  t.factors.push_back(e);
}

Term mlir::pe::raise::productOf(const Expr *e) {
  Term t;
  collectProduct(e, t);
  return t;
}

bool mlir::pe::raise::nearlyEqual(double a, double b, double relTol) {
  if (a == b)
    return true;
  return std::fabs(a - b) <= relTol * std::max(std::fabs(a), std::fabs(b));
}

//===----------------------------------------------------------------------===//
// Positions
//===----------------------------------------------------------------------===//

/// Which dimension of a rank-`rank` value a variable is, if it is one.
static std::optional<unsigned> dimOf(AffineExpr e, unsigned rank) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    if (d.getPosition() < rank)
      return d.getPosition();
  return std::nullopt;
}

LogicalResult mlir::pe::raise::matchPositions(const Tracer &tracer,
                                              const Expr *p,
                                              RankedTensorType type,
                                              PositionsMatch &m,
                                              std::string &why) {
  unsigned rank = type.getRank();
  MLIRContext *ctx = tracer.getContext();
  if (p->isConst() || p->kind == ExprKind::Index) {
    if (p->isConst() && p->constant != std::floor(p->constant)) {
      why = "a fractional position";
      return failure();
    }
    AffineExpr e =
        p->isConst()
            ? getAffineConstantExpr(static_cast<int64_t>(p->constant), ctx)
            : tracer.simplify(p->index);
    // t + constant + (a run-time offset), each part optional.
    SmallVector<AffineExpr> parts;
    std::function<void(AffineExpr)> split = [&](AffineExpr x) {
      if (x.getKind() == AffineExprKind::Add) {
        split(cast<AffineBinaryOpExpr>(x).getLHS());
        split(cast<AffineBinaryOpExpr>(x).getRHS());
      } else {
        parts.push_back(x);
      }
    };
    split(e);
    for (AffineExpr part : parts) {
      if (auto c = dyn_cast<AffineConstantExpr>(part)) {
        m.staticOffset += c.getValue();
      } else if (const Expr *scalar = tracer.symbolValue(part)) {
        Type t = scalar->value ? scalar->value.getType() : Type();
        if (m.offset || scalar->kind != ExprKind::Leaf ||
            !(isa_and_nonnull<IndexType>(t) || t.isInteger(32) ||
              t.isInteger(64))) {
          why = "positions add a run-time value that is not an index, i32 "
                "or i64 scalar";
          return failure();
        }
        m.offset = scalar->value;
      } else if (!m.tokenDim && (m.tokenDim = dimOf(part, rank)) &&
                 *m.tokenDim != rank - 1) {
        continue;
      } else {
        why = "positions are not t + constant of a token dimension";
        return failure();
      }
    }
    if (m.staticOffset < 0) {
      why = "negative positions";
      return failure();
    }
    return success();
  }
  if (p->kind != ExprKind::Leaf) {
    why = "positions are neither t + constant nor read from a tensor";
    return failure();
  }
  auto posType = dyn_cast<RankedTensorType>(p->value.getType());
  if (!posType || !posType.getElementType().isInteger() ||
      (posType.getElementTypeBitWidth() != 32 &&
       posType.getElementTypeBitWidth() != 64)) {
    why = "positions are not i32 or i64";
    return failure();
  }
  // The token index is a dimension of the value; dimension 0 before it is
  // the batch.
  std::optional<unsigned> tokenAt, batchAt;
  for (auto [i, e] : llvm::enumerate(p->indices)) {
    AffineExpr s = tracer.simplify(e);
    if (auto d = dimOf(s, rank)) {
      if (*d == 0 && rank > 2 && i + 1 < p->indices.size() && !tokenAt)
        batchAt = i;
      else if (!tokenAt)
        tokenAt = i, m.tokenDim = *d;
      else
        tokenAt.reset();
    } else if (!tracer.constantOf(s)) {
      tokenAt.reset();
      break;
    }
  }
  if (!tokenAt || *m.tokenDim == rank - 1 ||
      posType.getDimSize(*tokenAt) != type.getDimSize(*m.tokenDim) ||
      (batchAt && (*m.tokenDim == 0 ||
                   posType.getDimSize(*batchAt) != type.getDimSize(0)))) {
    why = "positions tensor indexed other than [t] or [b, t]";
    return failure();
  }
  m.tensor = p->value;
  for (auto [i, e] : llvm::enumerate(p->indices)) {
    bool keep = i == *tokenAt || (batchAt && i == *batchAt);
    int64_t size = keep ? posType.getDimSize(i) : 1;
    m.offsets.push_back(keep ? 0 : *tracer.constantOf(e));
    m.sizes.push_back(size);
    if (keep)
      m.shape.push_back(size);
  }
  return success();
}

Value mlir::pe::raise::buildPositions(OpBuilder &b, Location loc,
                                      const PositionsMatch &m) {
  auto type = cast<RankedTensorType>(m.tensor.getType());
  if (type.getShape() == ArrayRef(m.shape))
    return m.tensor;
  SmallVector<OpFoldResult> o, s, st;
  for (auto [offset, size] : llvm::zip(m.offsets, m.sizes)) {
    o.push_back(b.getIndexAttr(offset));
    s.push_back(b.getIndexAttr(size));
    st.push_back(b.getIndexAttr(1));
  }
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(m.shape, type.getElementType()), m.tensor,
      o, s, st);
}
