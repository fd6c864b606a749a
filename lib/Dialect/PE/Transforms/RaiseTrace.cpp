//===- RaiseTrace.cpp - what one element of a tensor value computes -------===//
//
// Part of the pe-mlir project.
//
// Expression nodes, index simplification and tracing through data movement
// and constants. A linalg op's payload is evaluated in RaiseTracePayload.cpp;
// comparison, sums of products and positions are in RaiseTerms.cpp.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

namespace {
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max() / 4;
} // namespace

AffineExpr Tracer::addVariable(int64_t extent) {
  extents.push_back(extent);
  return getAffineDimExpr(extents.size() - 1, context);
}

SmallVector<AffineExpr> Tracer::addVariables(ShapedType type) {
  SmallVector<AffineExpr> vars;
  for (int64_t size : type.getShape())
    vars.push_back(addVariable(size));
  return vars;
}

Expr *Tracer::make(ExprKind kind, Type type) {
  nodes.emplace_back();
  Expr *e = &nodes.back();
  e->kind = kind;
  e->type = type;
  return e;
}

const Expr *Tracer::constant(double c, Type type) {
  Expr *e = make(ExprKind::Const, type);
  e->constant = c;
  return e;
}

const Expr *Tracer::unary(ExprKind kind, const Expr *a, Type type) {
  if (kind == ExprKind::Neg && a->isConst())
    return constant(-a->constant, type);
  if (kind == ExprKind::Neg && a->kind == ExprKind::Neg)
    return a->operands[0];
  Expr *e = make(kind, type);
  e->operands = {a};
  return e;
}

const Expr *Tracer::binary(ExprKind kind, const Expr *a, const Expr *b,
                           Type type) {
  if (a->isConst() && b->isConst()) {
    double x = a->constant, y = b->constant;
    switch (kind) {
    case ExprKind::Add:
      return constant(x + y, type);
    case ExprKind::Sub:
      return constant(x - y, type);
    case ExprKind::Mul:
      return constant(x * y, type);
    case ExprKind::Div:
      return constant(x / y, type);
    default:
      break;
    }
  }
  if (kind == ExprKind::Add && a->isConst(0))
    return b;
  if ((kind == ExprKind::Add || kind == ExprKind::Sub) && b->isConst(0))
    return a;
  if (kind == ExprKind::Mul && a->isConst(1))
    return b;
  if ((kind == ExprKind::Mul || kind == ExprKind::Div) && b->isConst(1))
    return a;
  Expr *e = make(kind, type);
  e->operands = {a, b};
  return e;
}

const Expr *Tracer::leaf(Value v, ArrayRef<AffineExpr> indices) {
  Expr *e = make(ExprKind::Leaf, getElementTypeOrSelf(v.getType()));
  e->value = v;
  e->indices.assign(indices.begin(), indices.end());
  return e;
}

ArrayRef<Access> Tracer::origins(const Expr *e) const {
  auto it = originMap.find(e);
  if (it == originMap.end())
    return {};
  return it->second;
}

//===----------------------------------------------------------------------===//
// Index simplification with the variables' extents
//===----------------------------------------------------------------------===//

void Tracer::bounds(AffineExpr e, int64_t &lo, int64_t &hi) const {
  lo = -kUnbounded;
  hi = kUnbounded;
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    lo = hi = c.getValue();
    return;
  }
  if (auto d = dyn_cast<AffineDimExpr>(e)) {
    lo = 0;
    int64_t ext = extents[d.getPosition()];
    hi = ShapedType::isDynamic(ext) ? kUnbounded : ext - 1;
    return;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return;
  int64_t l1, h1, l2, h2;
  bounds(bin.getLHS(), l1, h1);
  bounds(bin.getRHS(), l2, h2);
  auto clampAdd = [](int64_t a, int64_t b) {
    if (a >= kUnbounded || b >= kUnbounded)
      return kUnbounded;
    if (a <= -kUnbounded || b <= -kUnbounded)
      return -kUnbounded;
    return a + b;
  };
  switch (e.getKind()) {
  case AffineExprKind::Add:
    lo = clampAdd(l1, l2);
    hi = clampAdd(h1, h2);
    return;
  case AffineExprKind::Mul: {
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!c || l1 <= -kUnbounded || h1 >= kUnbounded)
      return;
    int64_t a = l1 * c.getValue(), b = h1 * c.getValue();
    lo = std::min(a, b);
    hi = std::max(a, b);
    return;
  }
  case AffineExprKind::FloorDiv: {
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!c || c.getValue() <= 0 || l1 < 0)
      return;
    lo = l1 / c.getValue();
    hi = h1 >= kUnbounded ? kUnbounded : h1 / c.getValue();
    return;
  }
  case AffineExprKind::Mod: {
    auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!c || c.getValue() <= 0)
      return;
    lo = 0;
    hi = c.getValue() - 1;
    if (l1 >= 0 && h1 < c.getValue()) {
      lo = l1;
      hi = h1;
    }
    return;
  }
  default:
    return;
  }
}

namespace {
/// `e` as `sum_k coefficient_k * atom_k + constant`, atoms being dimensions
/// or floordiv / mod / ceildiv expressions.
struct LinearForm {
  SmallVector<std::pair<AffineExpr, int64_t>> atoms;
  int64_t constant = 0;

  void add(AffineExpr atom, int64_t coefficient) {
    for (auto &[a, c] : atoms)
      if (a == atom) {
        c += coefficient;
        return;
      }
    atoms.push_back({atom, coefficient});
  }
};

bool linearize(AffineExpr e, int64_t scale, LinearForm &form) {
  if (auto c = dyn_cast<AffineConstantExpr>(e)) {
    form.constant += scale * c.getValue();
    return true;
  }
  if (e.getKind() == AffineExprKind::Add) {
    auto bin = cast<AffineBinaryOpExpr>(e);
    return linearize(bin.getLHS(), scale, form) &&
           linearize(bin.getRHS(), scale, form);
  }
  if (e.getKind() == AffineExprKind::Mul) {
    auto bin = cast<AffineBinaryOpExpr>(e);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearize(bin.getLHS(), scale * c.getValue(), form);
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getLHS()))
      return linearize(bin.getRHS(), scale * c.getValue(), form);
    return false;
  }
  form.add(e, scale);
  return true;
}
} // namespace

AffineExpr Tracer::simplify(AffineExpr e) const {
  // A variable of extent 1 is 0.
  SmallVector<AffineExpr> dims;
  for (auto [i, extent] : llvm::enumerate(extents))
    dims.push_back(extent == 1 ? getAffineConstantExpr(0, context)
                               : getAffineDimExpr(i, context));
  e = e.replaceDims(dims);
  return simplifyAffineExpr(simplifyBounded(e), extents.size(), symbols.size());
}

AffineExpr Tracer::simplifyBounded(AffineExpr e) const {
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return e;
  AffineExpr lhs = simplifyBounded(bin.getLHS()),
             rhs = simplifyBounded(bin.getRHS());
  AffineExpr rebuilt = getAffineBinaryOpExpr(e.getKind(), lhs, rhs);
  auto c = dyn_cast<AffineConstantExpr>(rhs);
  if (!c || c.getValue() <= 0 ||
      (e.getKind() != AffineExprKind::FloorDiv &&
       e.getKind() != AffineExprKind::Mod))
    return rebuilt;
  int64_t divisor = c.getValue();
  LinearForm form;
  if (!linearize(lhs, 1, form))
    return rebuilt;
  // Split into a multiple of the divisor and a remainder; when the remainder
  // provably lies in [0, divisor), floordiv keeps the quotient part and mod
  // the remainder.
  AffineExpr quotient = getAffineConstantExpr(0, context);
  AffineExpr remainder = getAffineConstantExpr(0, context);
  int64_t constQuot = form.constant >= 0
                          ? form.constant / divisor
                          : -((-form.constant + divisor - 1) / divisor);
  int64_t constRem = form.constant - constQuot * divisor;
  quotient = quotient + constQuot;
  remainder = remainder + constRem;
  for (auto &[atom, coefficient] : form.atoms) {
    if (coefficient % divisor == 0)
      quotient = quotient + atom * (coefficient / divisor);
    else
      remainder = remainder + atom * coefficient;
  }
  int64_t lo, hi;
  bounds(remainder, lo, hi);
  if (lo < 0 || hi >= divisor)
    return rebuilt;
  return e.getKind() == AffineExprKind::FloorDiv ? quotient : remainder;
}

std::optional<int64_t> Tracer::constantOf(AffineExpr e) const {
  if (auto c = dyn_cast<AffineConstantExpr>(simplify(e)))
    return c.getValue();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Tracing
//===----------------------------------------------------------------------===//

const Expr *Tracer::trace(Value v, ArrayRef<AffineExpr> indices) {
  SmallVector<AffineExpr> simplified;
  std::vector<const void *> key;
  for (AffineExpr e : indices) {
    simplified.push_back(simplify(e));
    key.push_back(simplified.back().getAsOpaquePointer());
  }
  auto cacheKey = std::make_pair(v.getAsOpaquePointer(), key);
  auto it = cache.find(cacheKey);
  if (it != cache.end())
    return it->second;
  const Expr *e;
  if (depth > maxDepth) {
    e = leaf(v, simplified);
    originMap[e].push_back(Access{v, simplified});
    return e;
  } else {
    ++depth;
    e = traceUncached(v, simplified);
    --depth;
  }
  cache[cacheKey] = e;
  originMap[e].push_back(Access{v, simplified});
  return e;
}

/// Static offsets/strides or nothing.
static bool staticSlice(tensor::ExtractSliceOp op, SmallVectorImpl<int64_t> &o,
                        SmallVectorImpl<int64_t> &s) {
  for (int64_t x : op.getStaticOffsets())
    if (ShapedType::isDynamic(x))
      return false;
  for (int64_t x : op.getStaticStrides())
    if (ShapedType::isDynamic(x))
      return false;
  o.assign(op.getStaticOffsets().begin(), op.getStaticOffsets().end());
  s.assign(op.getStaticStrides().begin(), op.getStaticStrides().end());
  return true;
}

/// The linear index of `indices` in a row-major shape (static except maybe
/// the first dimension).
static std::optional<AffineExpr> linearIndex(ArrayRef<AffineExpr> indices,
                                             ArrayRef<int64_t> shape,
                                             MLIRContext *ctx) {
  AffineExpr linear = getAffineConstantExpr(0, ctx);
  for (auto [i, index] : llvm::enumerate(indices)) {
    if (i > 0) {
      if (ShapedType::isDynamic(shape[i]))
        return std::nullopt;
      linear = linear * shape[i];
    }
    linear = linear + index;
  }
  return linear;
}

/// `linear` split into the indices of a row-major shape.
static std::optional<SmallVector<AffineExpr>>
delinearize(AffineExpr linear, ArrayRef<int64_t> shape) {
  SmallVector<AffineExpr> out(shape.size());
  AffineExpr rest = linear;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    if (i == 0) {
      out[0] = rest;
      break;
    }
    if (ShapedType::isDynamic(shape[i]))
      return std::nullopt;
    out[i] = rest % shape[i];
    rest = rest.floorDiv(shape[i]);
  }
  return out;
}

/// `indices[d] + c` when `dense` (integers, not i1) holds `index_d + c` at
/// every element for one dimension d (or one value everywhere: `c`).
static std::optional<AffineExpr> arangeIndex(DenseIntElementsAttr dense,
                                             ArrayRef<AffineExpr> indices) {
  constexpr int64_t kMaxArangeElements = int64_t(1) << 20;
  auto type = cast<RankedTensorType>(dense.getType());
  if (dense.getElementType().isInteger(1) ||
      type.getNumElements() > kMaxArangeElements ||
      indices.size() != static_cast<size_t>(type.getRank()))
    return std::nullopt;
  MLIRContext *ctx = type.getContext();
  SmallVector<int64_t> values;
  for (const APInt &x : dense.getValues<APInt>())
    values.push_back(x.getSExtValue());
  if (values.empty())
    return std::nullopt;
  int64_t c = values[0];
  if (llvm::all_of(values, [&](int64_t x) { return x == c; }))
    return getAffineConstantExpr(c, ctx);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    bool arange = shape[d] > 1;
    for (int64_t flat = 0; arange && flat < (int64_t)values.size(); ++flat)
      arange = values[flat] == (flat / stride) % shape[d] + c;
    if (arange)
      return indices[d] + c;
    stride *= shape[d];
  }
  return std::nullopt;
}

/// A scalar: a float or integer constant, else a leaf.
const Expr *Tracer::traceScalar(Operation *def, Value v,
                                ArrayRef<AffineExpr> indices) {
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
      return constant(f.getValueAsDouble(), v.getType());
    if (auto i = dyn_cast<IntegerAttr>(cst.getValue())) {
      Expr *e = make(ExprKind::Index, v.getType());
      e->index = getAffineConstantExpr(i.getInt(), context);
      return e;
    }
  }
  return leaf(v, indices);
}

/// An element of a constant tensor: a splat, an element at constant
/// indices, or an arange along one dimension; else a leaf.
const Expr *Tracer::traceTensorConstant(arith::ConstantOp cst, Value v,
                                        ArrayRef<AffineExpr> indices) {
  if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
    if (dense.isSplat()) {
      if (isa<FloatType>(dense.getElementType()))
        return constant(dense.getSplatValue<APFloat>().convertToDouble(),
                        dense.getElementType());
      // A boolean splat (TOSA folds a mask's all-valid padding part to
      // one) is the constant 0 or 1, which a select on it folds.
      if (dense.getElementType().isInteger(1)) {
        Expr *e = make(ExprKind::Index, dense.getElementType());
        e->index =
            getAffineConstantExpr(dense.getSplatValue<bool>() ? 1 : 0, context);
        return e;
      }
    }
  // A non-splat constant element at constant indices is a constant.
  if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue())) {
    SmallVector<uint64_t> at;
    for (AffineExpr e : indices) {
      std::optional<int64_t> c = constantOf(e);
      if (!c)
        return leaf(v, indices);
      at.push_back(*c);
    }
    return constant(dense.getValues<APFloat>()[at].convertToDouble(),
                    dense.getElementType());
  }
  // A constant integer tensor that is an arange along one dimension
  // (torch.arange folded by the frontend: positions, the aranges of Hugging
  // Face's causal mask) is that index plus a constant.
  if (auto dense = dyn_cast<DenseIntElementsAttr>(cst.getValue()))
    if (std::optional<AffineExpr> e = arangeIndex(dense, indices)) {
      Expr *n = make(ExprKind::Index, dense.getElementType());
      n->index = simplify(*e);
      return n;
    }
  return leaf(v, indices);
}

/// The source of a static slice, read at the slice's offsets and strides.
const Expr *Tracer::traceExtractSlice(tensor::ExtractSliceOp slice, Value v,
                                      ArrayRef<AffineExpr> indices) {
  SmallVector<int64_t> offsets, strides;
  if (!staticSlice(slice, offsets, strides))
    return leaf(v, indices);
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<AffineExpr> src;
  unsigned next = 0;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    if (dropped.test(d)) {
      src.push_back(getAffineConstantExpr(offsets[d], context));
      continue;
    }
    src.push_back(indices[next++] * strides[d] + offsets[d]);
  }
  return trace(slice.getSource(), src);
}

/// The inserted tile where the indices fall into it, the destination
/// elsewhere (tosa-to-tensor spells a concat as a chain of these).
const Expr *Tracer::traceInsertSlice(tensor::InsertSliceOp insert, Value v,
                                     ArrayRef<AffineExpr> indices) {
  auto tensorType = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> offsets = insert.getStaticOffsets();
  ArrayRef<int64_t> sizes = insert.getStaticSizes();
  ArrayRef<int64_t> strides = insert.getStaticStrides();
  if (llvm::any_of(llvm::concat<const int64_t>(offsets, sizes, strides),
                   ShapedType::isDynamic))
    return leaf(v, indices);
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  bool inside = true;
  SmallVector<AffineExpr> src;
  for (unsigned d = 0; d < offsets.size(); ++d) {
    bool whole = offsets[d] == 0 && strides[d] == 1 &&
                 sizes[d] == tensorType.getDimSize(d);
    if (whole) {
      if (!dropped.test(d))
        src.push_back(indices[d]);
      continue;
    }
    std::optional<int64_t> at = constantOf(indices[d]);
    if (!at)
      return leaf(v, indices);
    int64_t rel = *at - offsets[d];
    if (rel < 0 || rel % strides[d] != 0 || rel / strides[d] >= sizes[d]) {
      inside = false;
      continue;
    }
    if (!dropped.test(d))
      src.push_back(getAffineConstantExpr(rel / strides[d], context));
  }
  if (!inside)
    return trace(insert.getDest(), indices);
  return trace(insert.getSource(), src);
}

/// The input of a concat that a constant index along the concat's dimension
/// falls into.
const Expr *Tracer::traceConcat(tensor::ConcatOp concat, Value v,
                                ArrayRef<AffineExpr> indices) {
  int64_t dim = concat.getDim();
  std::optional<int64_t> at = constantOf(indices[dim]);
  if (!at)
    return leaf(v, indices);
  int64_t start = 0;
  for (Value input : concat.getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return leaf(v, indices);
    if (*at < start + size) {
      SmallVector<AffineExpr> src(indices);
      src[dim] = getAffineConstantExpr(*at - start, context);
      return trace(input, src);
    }
    start += size;
  }
  return leaf(v, indices);
}

/// The source of an expand_shape, each group's indices linearised.
const Expr *Tracer::traceExpandShape(tensor::ExpandShapeOp expand, Value v,
                                     ArrayRef<AffineExpr> indices) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  SmallVector<AffineExpr> src;
  for (ReassociationIndices group : expand.getReassociationIndices()) {
    SmallVector<AffineExpr> part;
    SmallVector<int64_t> sizes;
    for (int64_t d : group) {
      part.push_back(indices[d]);
      sizes.push_back(shape[d]);
    }
    std::optional<AffineExpr> linear = linearIndex(part, sizes, context);
    if (!linear)
      return leaf(v, indices);
    src.push_back(*linear);
  }
  return trace(expand.getSrc(), src);
}

/// The source of a collapse_shape, each index delinearised over its group.
const Expr *Tracer::traceCollapseShape(tensor::CollapseShapeOp collapse,
                                       Value v, ArrayRef<AffineExpr> indices) {
  ArrayRef<int64_t> srcShape = collapse.getSrcType().getShape();
  SmallVector<AffineExpr> src(srcShape.size());
  for (auto [i, group] : llvm::enumerate(collapse.getReassociationIndices())) {
    SmallVector<int64_t> sizes;
    for (int64_t d : group)
      sizes.push_back(srcShape[d]);
    std::optional<SmallVector<AffineExpr>> parts =
        delinearize(indices[i], sizes);
    if (!parts)
      return leaf(v, indices);
    for (auto [d, part] : llvm::zip(group, *parts))
      src[d] = part;
  }
  return trace(collapse.getSrc(), src);
}

/// The source of a static reshape, at the same linear index.
const Expr *Tracer::traceReshape(tensor::ReshapeOp reshape, Value v,
                                 ArrayRef<AffineExpr> indices) {
  auto tensorType = cast<RankedTensorType>(v.getType());
  auto srcType = cast<RankedTensorType>(reshape.getSource().getType());
  if (!tensorType.hasStaticShape() || !srcType.hasStaticShape())
    return leaf(v, indices);
  std::optional<AffineExpr> linear =
      linearIndex(indices, tensorType.getShape(), context);
  std::optional<SmallVector<AffineExpr>> src =
      delinearize(*linear, srcType.getShape());
  if (!src)
    return leaf(v, indices);
  return trace(reshape.getSource(), *src);
}

const Expr *Tracer::traceUncached(Value v, ArrayRef<AffineExpr> indices) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return leaf(v, indices);
  if (!isa<RankedTensorType>(v.getType()))
    return traceScalar(def, v, indices);
  if (auto cst = dyn_cast<arith::ConstantOp>(def))
    return traceTensorConstant(cst, v, indices);
  if (auto cast = dyn_cast<tensor::CastOp>(def))
    return trace(cast.getSource(), indices);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def))
    return traceExtractSlice(slice, v, indices);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
    return traceInsertSlice(insert, v, indices);
  if (auto concat = dyn_cast<tensor::ConcatOp>(def))
    return traceConcat(concat, v, indices);
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def))
    return traceExpandShape(expand, v, indices);
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
    return traceCollapseShape(collapse, v, indices);
  if (auto reshape = dyn_cast<tensor::ReshapeOp>(def))
    return traceReshape(reshape, v, indices);
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return trace(fill.getInputs()[0], {});
  if (isa<linalg::SoftmaxOp>(def))
    return expandReduction && !expandReduction(def)
               ? leaf(v, indices)
               : traceSoftmax(def, indices);
  if (isa<linalg::LinalgOp>(def))
    return traceLinalg(def, cast<OpResult>(v).getResultNumber(), indices);
  return leaf(v, indices);
}

AffineExpr Tracer::asIndex(const Expr *e) {
  if (e->kind == ExprKind::Index)
    return e->index;
  // A run-time integer scalar (a cache length, an offset argument): a
  // symbol of the index expressions.
  if (e->kind != ExprKind::Leaf || !e->indices.empty() ||
      !isa<IntegerType, IndexType>(e->type))
    return AffineExpr();
  unsigned sym = 0;
  while (sym < symbols.size() && !equal(symbols[sym], e))
    ++sym;
  if (sym == symbols.size())
    symbols.push_back(e);
  return getAffineSymbolExpr(sym, context);
}

const Expr *Tracer::traceSoftmax(Operation *op, ArrayRef<AffineExpr> indices) {
  auto softmax = cast<linalg::SoftmaxOp>(op);
  Value input = softmax.getInput();
  int64_t dim = softmax.getDimension();
  Type type = getElementTypeOrSelf(input.getType());
  int64_t size = softmax.getInputOperandType().getDimSize(dim);
  // softmax(x)_j = exp(x_j - max_r x_r) / sum_s exp(x_s - max_r x_r)
  auto at = [&](AffineExpr var) {
    SmallVector<AffineExpr> idx(indices);
    idx[dim] = var;
    return trace(input, idx);
  };
  AffineExpr r = addVariable(size);
  Expr *max = make(ExprKind::Reduce, type);
  max->reduction = ReductionKind::Max;
  max->var = cast<AffineDimExpr>(r).getPosition();
  max->operands = {at(r)};
  const Expr *num =
      unary(ExprKind::Exp,
            binary(ExprKind::Sub, trace(input, indices), max, type), type);
  AffineExpr s = addVariable(size);
  Expr *sum = make(ExprKind::Reduce, type);
  sum->reduction = ReductionKind::Add;
  sum->var = cast<AffineDimExpr>(s).getPosition();
  sum->operands = {
      unary(ExprKind::Exp, binary(ExprKind::Sub, at(s), max, type), type)};
  return binary(ExprKind::Div, num, sum, type);
}
