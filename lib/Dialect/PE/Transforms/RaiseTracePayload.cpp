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
      // A boolean widened and compared with 0 (`cmpi ne (trunci (extui
      // c)), 0`, as TOSA lowers casts i1 -> i32 -> i8 -> i1) is the boolean
      // itself.
      auto isZero = [&](const Expr *x) {
        return x->kind == ExprKind::Index && constantOf(x->index) == 0;
      };
      auto pred = cmp.getPredicate();
      const Expr *boolean = nullptr;
      for (int k = 0; k < 2; ++k)
        if (isZero(args[1 - k]) && (args[k]->kind == ExprKind::CmpI ||
                                    args[k]->kind == ExprKind::CmpF))
          boolean = args[k];
      if (boolean && pred == arith::CmpIPredicate::ne) {
        e = boolean;
      } else if (diff && isSignedOrEqualityPredicate(pred)) {
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
