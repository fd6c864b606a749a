//===- RaiseTrace.cpp - what one element of a tensor value computes -------===//
//
// Part of the pe-mlir project.
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

static bool isSignedOrEqualityPredicate(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  return p == P::eq || p == P::ne || p == P::slt || p == P::sle ||
         p == P::sgt || p == P::sge;
}

/// `a p b` for a signed or equality predicate, given d = a - b.
static bool evaluateSigned(arith::CmpIPredicate p, int64_t d) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::eq:
    return d == 0;
  case P::ne:
    return d != 0;
  case P::slt:
    return d < 0;
  case P::sle:
    return d <= 0;
  case P::sgt:
    return d > 0;
  default:
    return d >= 0; // sge
  }
}

const Expr *Tracer::traceUncached(Value v, ArrayRef<AffineExpr> indices) {
  Operation *def = v.getDefiningOp();
  auto tensorType = dyn_cast<RankedTensorType>(v.getType());
  if (!def)
    return leaf(v, indices);

  // Scalars.
  if (!tensorType) {
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

  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()))
      if (dense.isSplat()) {
        if (isa<FloatType>(dense.getElementType()))
          return constant(dense.getSplatValue<APFloat>().convertToDouble(),
                          dense.getElementType());
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

  if (auto cast = dyn_cast<tensor::CastOp>(def))
    return trace(cast.getSource(), indices);

  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
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

  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
    // The inserted tile where the indices fall into it, the destination
    // elsewhere (tosa-to-tensor spells a concat as a chain of these).
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

  if (auto concat = dyn_cast<tensor::ConcatOp>(def)) {
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

  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    ArrayRef<int64_t> shape = tensorType.getShape();
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

  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    ArrayRef<int64_t> srcShape = collapse.getSrcType().getShape();
    SmallVector<AffineExpr> src(srcShape.size());
    for (auto [i, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
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

  if (auto reshape = dyn_cast<tensor::ReshapeOp>(def)) {
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

const Expr *Tracer::traceLinalg(Operation *op, unsigned resultNumber,
                                ArrayRef<AffineExpr> indices) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Value result = op->getResult(resultNumber);
  auto fallback = [&] { return leaf(result, indices); };
  if (!linalgOp.hasPureTensorSemantics() || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return fallback();

  unsigned numLoops = linalgOp.getNumLoops();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  OpOperand *init = linalgOp.getDpsInitOperand(resultNumber);
  AffineMap outMap = linalgOp.getMatchingIndexingMap(init);

  // Loop variables: parallel loops from the result indices, reduction loops
  // fresh variables (or 0 when their range is 1).
  SmallVector<AffineExpr> loops(numLoops);
  for (auto [pos, e] : llvm::enumerate(outMap.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim) {
      // A constant result index (a broadcast output) must match.
      continue;
    }
    loops[dim.getPosition()] = indices[pos];
  }
  std::optional<unsigned> reductionVar;
  for (unsigned l = 0; l < numLoops; ++l) {
    if (loops[l])
      continue;
    if (iterators[l] != utils::IteratorType::reduction)
      return fallback();
    if (ranges[l] == 1) {
      loops[l] = getAffineConstantExpr(0, context);
      continue;
    }
    if (reductionVar)
      return fallback(); // one reduction loop at a time
    if (expandReduction && !expandReduction(op))
      return fallback();
    loops[l] = addVariable(ranges[l]);
    reductionVar = cast<AffineDimExpr>(loops[l]).getPosition();
  }

  Block &body = op->getRegion(0).front();
  llvm::DenseMap<Value, const Expr *> env;
  for (OpOperand *input : linalgOp.getDpsInputOperands()) {
    BlockArgument arg = linalgOp.getMatchingBlockArgument(input);
    if (!isa<ShapedType>(input->get().getType())) {
      env[arg] = trace(input->get(), {});
      continue;
    }
    AffineMap map = linalgOp.getMatchingIndexingMap(input);
    SmallVector<AffineExpr> at;
    for (AffineExpr e : map.getResults())
      at.push_back(e.replaceDims(loops));
    env[arg] = trace(input->get(), at);
  }
  // The accumulator: the init's element, or (inside a reduction) a
  // placeholder the combiner is recognised from.
  const Expr *initValue = trace(init->get(), indices);
  Expr *accumulator = nullptr;
  for (OpOperand &out : linalgOp.getDpsInitsMutable()) {
    BlockArgument arg = linalgOp.getMatchingBlockArgument(&out);
    if (out.getOperandNumber() != init->getOperandNumber()) {
      env[arg] = nullptr; // another result's accumulator: unsupported
      continue;
    }
    if (reductionVar) {
      accumulator = make(ExprKind::Leaf, arg.getType());
      env[arg] = accumulator;
    } else {
      env[arg] = initValue;
    }
  }

  auto get = [&](Value x) -> const Expr * {
    auto it = env.find(x);
    if (it != env.end())
      return it->second;
    // Values defined above the op: captured scalars and constants; a
    // captured tensor is only read by a gather (tensor.extract).
    if (x.getParentRegion() != &op->getRegion(0))
      return isa<ShapedType>(x.getType()) ? leaf(x, {}) : trace(x, {});
    return nullptr;
  };

  Operation *opaqueOp = nullptr;
  // Payload values the tracer cannot express are unknown (null); only the
  // yielded value must be known, so a second result nobody reads (the index
  // of torch-mlir's max/argmax reduction) does not stop the trace.
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() != 1) {
      for (Value r : inner.getResults())
        env[r] = nullptr;
      continue;
    }
    Value res = inner.getResult(0);
    Type type = res.getType();
    SmallVector<const Expr *> args;
    for (Value operand : inner.getOperands()) {
      args.push_back(get(operand));
      if (!args.back())
        break;
    }
    if (llvm::is_contained(args, nullptr)) {
      env[res] = nullptr;
      continue;
    }
    const Expr *e = nullptr;
    if (auto cst = dyn_cast<arith::ConstantOp>(inner)) {
      e = trace(res, {});
    } else if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      Expr *n = make(ExprKind::Index, type);
      n->index = simplify(loops[index.getDim()]);
      e = n;
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(inner)) {
      // A gather: the table read at indices computed in the payload. An
      // index that is not affine in the loops becomes a symbol standing for
      // its expression.
      SmallVector<AffineExpr> at;
      for (const Expr *index : ArrayRef(args).drop_front()) {
        if (index->kind == ExprKind::Index) {
          at.push_back(index->index);
          continue;
        }
        if (!isa<IntegerType, IndexType>(index->type)) {
          opaque.try_emplace(result, &inner);
          return fallback();
        }
        // One symbol per distinct index expression (the same positions read
        // by several gathers are one symbol).
        unsigned sym = 0;
        while (sym < symbols.size() && !equal(symbols[sym], index))
          ++sym;
        if (sym == symbols.size())
          symbols.push_back(index);
        at.push_back(getAffineSymbolExpr(sym, context));
      }
      e = trace(extract.getTensor(), at);
    } else if (isa<arith::AddFOp>(inner)) {
      e = binary(ExprKind::Add, args[0], args[1], type);
    } else if (isa<arith::SubFOp>(inner)) {
      e = binary(ExprKind::Sub, args[0], args[1], type);
    } else if (isa<arith::MulFOp>(inner)) {
      e = binary(ExprKind::Mul, args[0], args[1], type);
    } else if (isa<arith::DivFOp>(inner)) {
      e = binary(ExprKind::Div, args[0], args[1], type);
    } else if (isa<arith::NegFOp>(inner)) {
      e = unary(ExprKind::Neg, args[0], type);
    } else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(inner)) {
      e = binary(ExprKind::Max, args[0], args[1], type);
    } else if (isa<math::ExpOp>(inner)) {
      e = unary(ExprKind::Exp, args[0], type);
    } else if (isa<math::CosOp>(inner)) {
      e = unary(ExprKind::Cos, args[0], type);
    } else if (isa<math::SinOp>(inner)) {
      e = unary(ExprKind::Sin, args[0], type);
    } else if (isa<math::SqrtOp>(inner)) {
      e = unary(ExprKind::Sqrt, args[0], type);
    } else if (isa<math::RsqrtOp>(inner)) {
      e = unary(ExprKind::Rsqrt, args[0], type);
    } else if (isa<math::TanhOp>(inner)) {
      e = unary(ExprKind::Tanh, args[0], type);
    } else if (isa<math::LogOp>(inner)) {
      e = unary(ExprKind::Log, args[0], type);
    } else if (isa<arith::ExtFOp, arith::TruncFOp>(inner)) {
      e = args[0]->isConst() ? constant(args[0]->constant, type)
                             : unary(ExprKind::Cast, args[0], type);
    } else if (isa<arith::SIToFPOp, arith::UIToFPOp>(inner)) {
      if (args[0]->kind == ExprKind::Index)
        if (std::optional<int64_t> c = constantOf(args[0]->index)) {
          e = constant(static_cast<double>(*c), type);
        }
      if (!e) {
        Expr *n = make(ExprKind::IntToFp, type);
        n->operands = {args[0]};
        n->predicate = isa<arith::UIToFPOp>(inner); // 1: unsigned
        e = n;
      }
    } else if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                   arith::ExtUIOp, arith::TruncIOp>(inner)) {
      e = args[0]; // the integer value, whatever its width
    } else if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(inner) &&
               asIndex(args[0]) && asIndex(args[1])) {
      AffineExpr a = asIndex(args[0]), b = asIndex(args[1]);
      AffineExpr r;
      if (isa<arith::AddIOp>(inner))
        r = a + b;
      else if (isa<arith::SubIOp>(inner))
        r = a - b;
      else if (isa<AffineConstantExpr>(a) || isa<AffineConstantExpr>(b))
        r = a * b;
      if (!r)
        return fallback();
      Expr *n = make(ExprKind::Index, type);
      n->index = simplify(r);
      e = n;
    } else if (auto cmp = dyn_cast<arith::CmpFOp>(inner)) {
      Expr *n = make(ExprKind::CmpF, type);
      n->predicate = static_cast<int64_t>(cmp.getPredicate());
      n->operands = {args[0], args[1]};
      e = n;
    } else if (auto cmp = dyn_cast<arith::CmpIOp>(inner)) {
      // Indices that differ by a constant (a channel compared with D / 2 once
      // the pattern fixed the channel) compare to a constant.
      std::optional<int64_t> diff;
      if (args[0]->kind == ExprKind::Index && args[1]->kind == ExprKind::Index)
        diff = constantOf(args[0]->index - args[1]->index);
      if (diff && isSignedOrEqualityPredicate(cmp.getPredicate())) {
        Expr *n = make(ExprKind::Index, type);
        n->index = getAffineConstantExpr(
            evaluateSigned(cmp.getPredicate(), *diff) ? 1 : 0, context);
        e = n;
      } else {
        Expr *n = make(ExprKind::CmpI, type);
        n->predicate = static_cast<int64_t>(cmp.getPredicate());
        n->operands = {args[0], args[1]};
        e = n;
      }
    } else if (isa<arith::SelectOp>(inner) &&
               args[0]->kind == ExprKind::Index && constantOf(args[0]->index)) {
      e = *constantOf(args[0]->index) ? args[1] : args[2];
    } else if (isa<arith::SelectOp>(inner)) {
      Expr *n = make(ExprKind::Select, type);
      n->operands = {args[0], args[1], args[2]};
      e = n;
    } else if (isa<arith::RemSIOp, arith::RemUIOp, arith::DivSIOp,
                   arith::DivUIOp, arith::FloorDivSIOp>(inner) &&
               asIndex(args[0]) && args[1]->kind == ExprKind::Index) {
      // By a positive constant: mod / floordiv, where the dividend is known
      // to be non-negative (truncating and flooring agree there).
      AffineExpr a = simplify(asIndex(args[0]));
      std::optional<int64_t> d = constantOf(args[1]->index);
      int64_t lo, hi;
      bounds(a, lo, hi);
      bool rem = isa<arith::RemSIOp, arith::RemUIOp>(inner);
      if (d && *d > 0 &&
          (lo >= 0 || (!rem && isa<arith::FloorDivSIOp>(inner)))) {
        Expr *n = make(ExprKind::Index, type);
        n->index = simplify(rem ? a % *d : a.floorDiv(*d));
        e = n;
      }
    }
    if (!e && !opaqueOp)
      opaqueOp = &inner;
    env[res] = e;
  }

  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  const Expr *yielded = get(yield.getOperand(resultNumber));
  if (!yielded) {
    // The first payload op the tracer could not express, for remarks.
    if (opaqueOp)
      opaque.try_emplace(result, opaqueOp);
    return fallback();
  }
  if (!reductionVar)
    return yielded;

  // A reduction: the payload must combine the accumulator with one value.
  ReductionKind kind;
  const Expr *value = nullptr;
  auto other = [&](const Expr *e) -> const Expr * {
    if (e->operands.size() != 2)
      return nullptr;
    if (e->operands[0] == accumulator)
      return e->operands[1];
    if (e->operands[1] == accumulator)
      return e->operands[0];
    return nullptr;
  };
  if (yielded->kind == ExprKind::Add && (value = other(yielded))) {
    kind = ReductionKind::Add;
  } else if (yielded->kind == ExprKind::Max && (value = other(yielded))) {
    kind = ReductionKind::Max;
  } else if (yielded->kind == ExprKind::Select &&
             yielded->operands[0]->kind == ExprKind::CmpF) {
    // select(x > acc, x, acc): a max written with a comparison.
    const Expr *cmp = yielded->operands[0];
    auto pred = static_cast<arith::CmpFPredicate>(cmp->predicate);
    bool gt = pred == arith::CmpFPredicate::OGT ||
              pred == arith::CmpFPredicate::UGT ||
              pred == arith::CmpFPredicate::OGE ||
              pred == arith::CmpFPredicate::UGE;
    if (!gt || cmp->operands[1] != accumulator ||
        yielded->operands[1] != cmp->operands[0] ||
        yielded->operands[2] != accumulator)
      return fallback();
    kind = ReductionKind::Max;
    value = cmp->operands[0];
  } else {
    return fallback();
  }
  // The accumulator may appear nowhere else.
  std::function<bool(const Expr *)> uses = [&](const Expr *e) {
    if (e == accumulator)
      return true;
    return llvm::any_of(e->operands, uses);
  };
  if (uses(value))
    return fallback();
  Expr *reduce = make(ExprKind::Reduce, result.getType().isIntOrFloat()
                                            ? result.getType()
                                            : getElementTypeOrSelf(result));
  reduce->reduction = kind;
  reduce->var = *reductionVar;
  reduce->operands = {value};
  if (kind == ReductionKind::Add)
    return binary(ExprKind::Add, initValue, reduce, reduce->type);
  // max(init, max_r x): an init at or below the lowest float is the identity.
  if (initValue->isConst() &&
      initValue->constant <=
          -static_cast<double>(std::numeric_limits<float>::max()))
    return reduce;
  return binary(ExprKind::Max, initValue, reduce, reduce->type);
}

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
