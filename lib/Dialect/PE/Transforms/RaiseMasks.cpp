//===- RaiseMasks.cpp - causal masks as frontends build them --------------===//
//
// Part of the pe-mlir project.
//
// A causal mask stored as data: GPT-2 registers a boolean buffer
// `bias = tril(ones(P, P))[None, None]` and masks the scores with
// `where(bias[:, :, :T, :T], w, min)`. When that buffer is a constant of
// the program the pattern can check it: it is causal when, over the window
// the scores read, it is true exactly where j <= i + k for one k.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

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
