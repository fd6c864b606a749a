//===- RaiseTracePayload.cpp - linalg payloads as element expressions ----===//
//
// Part of the pe-mlir project.
//
// The part of the tracer that evaluates a linalg op's payload at one element:
// its operands read through their indexing maps, payload ops as expression
// nodes, and a reduction's combiner recognised from its payload.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

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

/// The loop variables of a linalg op traced at the element `indices` of
/// result `resultNumber`: parallel loops from the result indices, reduction
/// loops fresh variables (or 0 when their range is 1), at most one of them
/// (`reductionVar`). False when the op is not traced (a leaf).
bool Tracer::bindLoops(linalg::LinalgOp linalgOp, unsigned resultNumber,
                       ArrayRef<AffineExpr> indices,
                       SmallVectorImpl<AffineExpr> &loops,
                       std::optional<unsigned> &reductionVar) {
  unsigned numLoops = linalgOp.getNumLoops();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  AffineMap outMap =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInitOperand(resultNumber));
  loops.assign(numLoops, AffineExpr());
  for (auto [pos, e] : llvm::enumerate(outMap.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim) {
      // A constant result index (a broadcast output) must match.
      continue;
    }
    loops[dim.getPosition()] = indices[pos];
  }
  for (unsigned l = 0; l < numLoops; ++l) {
    if (loops[l])
      continue;
    if (iterators[l] != utils::IteratorType::reduction)
      return false;
    if (ranges[l] == 1) {
      loops[l] = getAffineConstantExpr(0, context);
      continue;
    }
    if (reductionVar)
      return false; // one reduction loop at a time
    if (expandReduction && !expandReduction(linalgOp.getOperation()))
      return false;
    loops[l] = addVariable(ranges[l]);
    reductionVar = cast<AffineDimExpr>(loops[l]).getPosition();
  }
  return true;
}

/// The expressions of a linalg op's block arguments: its inputs read through
/// their indexing maps at `loops`, the accumulator of result `resultNumber`
/// (the init's element, `initValue`, or inside a reduction a placeholder leaf,
/// `accumulator`, the combiner is recognised from), null for the other
/// results' accumulators (unsupported).
void Tracer::bindBlockArguments(linalg::LinalgOp linalgOp,
                                unsigned resultNumber,
                                ArrayRef<AffineExpr> indices,
                                ArrayRef<AffineExpr> loops, bool reduction,
                                llvm::DenseMap<Value, const Expr *> &env,
                                const Expr *&initValue, Expr *&accumulator) {
  OpOperand *init = linalgOp.getDpsInitOperand(resultNumber);
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
  initValue = trace(init->get(), indices);
  accumulator = nullptr;
  for (OpOperand &out : linalgOp.getDpsInitsMutable()) {
    BlockArgument arg = linalgOp.getMatchingBlockArgument(&out);
    if (out.getOperandNumber() != init->getOperandNumber()) {
      env[arg] = nullptr; // another result's accumulator: unsupported
      continue;
    }
    if (reduction) {
      accumulator = make(ExprKind::Leaf, arg.getType());
      env[arg] = accumulator;
    } else {
      env[arg] = initValue;
    }
  }
}

/// A gather: the table read at indices computed in the payload. An index
/// that is not affine in the loops becomes a symbol standing for its
/// expression. Fails (the trace of `result` stops at `extract`) for an index
/// that is not an integer.
FailureOr<const Expr *> Tracer::traceGather(tensor::ExtractOp extract,
                                            ArrayRef<const Expr *> args,
                                            Value result) {
  SmallVector<AffineExpr> at;
  for (const Expr *index : args.drop_front()) {
    if (index->kind == ExprKind::Index) {
      at.push_back(index->index);
      continue;
    }
    if (!isa<IntegerType, IndexType>(index->type)) {
      opaque.try_emplace(result, extract.getOperation());
      return failure();
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
  return trace(extract.getTensor(), at);
}

/// A float payload op (arithmetic, math functions, casts between floats and
/// from integers) as a node; null for any other op.
const Expr *Tracer::traceFloatOp(Operation &inner, ArrayRef<const Expr *> args,
                                 Type type) {
  if (isa<arith::AddFOp>(inner))
    return binary(ExprKind::Add, args[0], args[1], type);
  if (isa<arith::SubFOp>(inner))
    return binary(ExprKind::Sub, args[0], args[1], type);
  if (isa<arith::MulFOp>(inner))
    return binary(ExprKind::Mul, args[0], args[1], type);
  if (isa<arith::DivFOp>(inner))
    return binary(ExprKind::Div, args[0], args[1], type);
  if (isa<arith::NegFOp>(inner))
    return unary(ExprKind::Neg, args[0], type);
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(inner))
    return binary(ExprKind::Max, args[0], args[1], type);
  if (isa<math::ExpOp>(inner))
    return unary(ExprKind::Exp, args[0], type);
  if (isa<math::CosOp>(inner))
    return unary(ExprKind::Cos, args[0], type);
  if (isa<math::SinOp>(inner))
    return unary(ExprKind::Sin, args[0], type);
  if (isa<math::SqrtOp>(inner))
    return unary(ExprKind::Sqrt, args[0], type);
  if (isa<math::RsqrtOp>(inner))
    return unary(ExprKind::Rsqrt, args[0], type);
  if (isa<math::TanhOp>(inner))
    return unary(ExprKind::Tanh, args[0], type);
  if (isa<math::LogOp>(inner))
    return unary(ExprKind::Log, args[0], type);
  if (isa<arith::ExtFOp, arith::TruncFOp>(inner))
    return args[0]->isConst() ? constant(args[0]->constant, type)
                              : unary(ExprKind::Cast, args[0], type);
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(inner)) {
    if (args[0]->kind == ExprKind::Index)
      if (std::optional<int64_t> c = constantOf(args[0]->index))
        return constant(static_cast<double>(*c), type);
    Expr *n = make(ExprKind::IntToFp, type);
    n->operands = {args[0]};
    n->predicate = isa<arith::UIToFPOp>(inner); // 1: unsigned
    return n;
  }
  return nullptr;
}

/// An integer payload op on indices (casts, +, -, * by a constant, mod and
/// floordiv by a positive constant) as an index; null when it is not one
/// (or not on indices); failure for a product of two non-constant indices.
FailureOr<const Expr *> Tracer::traceIntegerOp(Operation &inner,
                                               ArrayRef<const Expr *> args,
                                               Type type) {
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(inner))
    return args[0]; // the integer value, whatever its width
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(inner) &&
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
      return failure();
    Expr *n = make(ExprKind::Index, type);
    n->index = simplify(r);
    return n;
  }
  if (isa<arith::RemSIOp, arith::RemUIOp, arith::DivSIOp, arith::DivUIOp,
          arith::FloorDivSIOp>(inner) &&
      asIndex(args[0]) && args[1]->kind == ExprKind::Index) {
    // By a positive constant: mod / floordiv, where the dividend is known
    // to be non-negative (truncating and flooring agree there).
    AffineExpr a = simplify(asIndex(args[0]));
    std::optional<int64_t> d = constantOf(args[1]->index);
    int64_t lo, hi;
    bounds(a, lo, hi);
    bool rem = isa<arith::RemSIOp, arith::RemUIOp>(inner);
    if (d && *d > 0 && (lo >= 0 || (!rem && isa<arith::FloorDivSIOp>(inner)))) {
      Expr *n = make(ExprKind::Index, type);
      n->index = simplify(rem ? a % *d : a.floorDiv(*d));
      return n;
    }
  }
  return static_cast<const Expr *>(nullptr);
}

/// An integer comparison: of indices that differ by a constant, a constant;
/// of a widened boolean with 0, the boolean; else a CmpI node.
const Expr *Tracer::traceCmpI(arith::CmpIOp cmp, ArrayRef<const Expr *> args,
                              Type type) {
  // Indices that differ by a constant (a channel compared with D / 2 once
  // the pattern fixed the channel) compare to a constant.
  std::optional<int64_t> diff;
  if (args[0]->kind == ExprKind::Index && args[1]->kind == ExprKind::Index)
    diff = constantOf(args[0]->index - args[1]->index);
  // A boolean widened and compared with 0 (`cmpi ne (trunci (extui
  // c)), 0`, as TOSA lowers casts i1 -> i32 -> i8 -> i1) is the boolean
  // itself.
  auto isZero = [&](const Expr *x) {
    return x->kind == ExprKind::Index && constantOf(x->index) == 0;
  };
  auto pred = cmp.getPredicate();
  const Expr *boolean = nullptr;
  for (int k = 0; k < 2; ++k)
    if (isZero(args[1 - k]) &&
        (args[k]->kind == ExprKind::CmpI || args[k]->kind == ExprKind::CmpF))
      boolean = args[k];
  if (boolean && pred == arith::CmpIPredicate::ne)
    return boolean;
  if (diff && isSignedOrEqualityPredicate(pred)) {
    Expr *n = make(ExprKind::Index, type);
    n->index = getAffineConstantExpr(
        evaluateSigned(cmp.getPredicate(), *diff) ? 1 : 0, context);
    return n;
  }
  Expr *n = make(ExprKind::CmpI, type);
  n->predicate = static_cast<int64_t>(cmp.getPredicate());
  n->operands = {args[0], args[1]};
  return n;
}

/// The expression of one payload op of a linalg op traced at `loops`, given
/// its operands' expressions; null when the tracer cannot express it;
/// failure when the trace of `result` must stop (a leaf).
FailureOr<const Expr *> Tracer::tracePayloadOp(Operation &inner,
                                               ArrayRef<const Expr *> args,
                                               ArrayRef<AffineExpr> loops,
                                               Value result) {
  Value res = inner.getResult(0);
  Type type = res.getType();
  if (isa<arith::ConstantOp>(inner))
    return trace(res, {});
  if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
    Expr *n = make(ExprKind::Index, type);
    n->index = simplify(loops[index.getDim()]);
    return n;
  }
  if (auto extract = dyn_cast<tensor::ExtractOp>(inner))
    return traceGather(extract, args, result);
  if (const Expr *e = traceFloatOp(inner, args, type))
    return e;
  if (auto cmp = dyn_cast<arith::CmpFOp>(inner)) {
    Expr *n = make(ExprKind::CmpF, type);
    n->predicate = static_cast<int64_t>(cmp.getPredicate());
    n->operands = {args[0], args[1]};
    return n;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(inner))
    return traceCmpI(cmp, args, type);
  if (isa<arith::SelectOp>(inner)) {
    if (args[0]->kind == ExprKind::Index && constantOf(args[0]->index))
      return *constantOf(args[0]->index) ? args[1] : args[2];
    Expr *n = make(ExprKind::Select, type);
    n->operands = {args[0], args[1], args[2]};
    return n;
  }
  return traceIntegerOp(inner, args, type);
}

/// The reduction a linalg payload yields: `yielded` must combine the
/// `accumulator` with one value (an add, a max, or a max written as
/// select(x > acc, x, acc)) that does not read the accumulator. The result
/// (the init `initValue` combined with a Reduce node over `reductionVar`), or
/// null when the payload is not such a reduction.
const Expr *Tracer::traceReduction(const Expr *yielded, const Expr *accumulator,
                                   const Expr *initValue, unsigned reductionVar,
                                   Value result) {
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
      return nullptr;
    kind = ReductionKind::Max;
    value = cmp->operands[0];
  } else {
    return nullptr;
  }
  // The accumulator may appear nowhere else.
  std::function<bool(const Expr *)> uses = [&](const Expr *e) {
    if (e == accumulator)
      return true;
    return llvm::any_of(e->operands, uses);
  };
  if (uses(value))
    return nullptr;
  Expr *reduce = make(ExprKind::Reduce, result.getType().isIntOrFloat()
                                            ? result.getType()
                                            : getElementTypeOrSelf(result));
  reduce->reduction = kind;
  reduce->var = reductionVar;
  reduce->operands = {value};
  if (kind == ReductionKind::Add)
    return binary(ExprKind::Add, initValue, reduce, reduce->type);
  // max(init, max_r x): an init at or below the lowest finite value of the
  // element type is the identity (-65504 for f16, as TOSA initialises).
  double lowest = -static_cast<double>(std::numeric_limits<float>::max());
  if (auto ft = dyn_cast<FloatType>(reduce->type))
    lowest =
        llvm::APFloat::getLargest(ft.getFloatSemantics(), /*Negative=*/true)
            .convertToDouble();
  if (initValue->isConst() && initValue->constant <= lowest)
    return reduce;
  return binary(ExprKind::Max, initValue, reduce, reduce->type);
}

const Expr *Tracer::traceLinalg(Operation *op, unsigned resultNumber,
                                ArrayRef<AffineExpr> indices) {
  auto linalgOp = cast<linalg::LinalgOp>(op);
  Value result = op->getResult(resultNumber);
  auto fallback = [&] { return leaf(result, indices); };
  if (!linalgOp.hasPureTensorSemantics() || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return fallback();

  SmallVector<AffineExpr> loops;
  std::optional<unsigned> reductionVar;
  if (!bindLoops(linalgOp, resultNumber, indices, loops, reductionVar))
    return fallback();

  Block &body = op->getRegion(0).front();
  llvm::DenseMap<Value, const Expr *> env;
  const Expr *initValue;
  Expr *accumulator;
  bindBlockArguments(linalgOp, resultNumber, indices, loops,
                     reductionVar.has_value(), env, initValue, accumulator);

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
    FailureOr<const Expr *> e = tracePayloadOp(inner, args, loops, result);
    if (failed(e))
      return fallback();
    if (!*e && !opaqueOp)
      opaqueOp = &inner;
    env[res] = *e;
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
  if (const Expr *reduced = traceReduction(yielded, accumulator, initValue,
                                           *reductionVar, result))
    return reduced;
  return fallback();
}
