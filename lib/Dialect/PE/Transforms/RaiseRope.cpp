//===- RaiseRope.cpp - rotary embeddings in linalg IR to pe.rope ----------===//
//
// Part of the pe-mlir project.
//
// A rotary embedding of x : [..., D] computes, for each channel c,
//
//   out[c] = x[c] * cos(c) + sign(c) * x[partner(c)] * sin(c)      (c < R)
//   out[c] = x[c]                                                  (c >= R)
//
// with partner(c) = c +- R/2 and sign -, + for the two halves (split-half,
// rotate_half) or partner(c) = c +- 1 and sign -, + for even and odd
// channels (interleaved, rotate_every_two). The pattern traces every output
// channel of a candidate value into a sum of products (RaiseTrace.h), finds
// the rotated tensor x as the factor every product reads at the output's
// own indices, and checks that structure channel by channel. The cos and sin
// factors of both channels of a pair must then be the same table entry:
//
//   * computed in the IR: cos(p * f) and sin(p * f) of one angle, with the
//     same position expression p for every channel and the same frequency f
//     for both channels of a pair (a constant, or an element of a frequency
//     tensor) -> pe.rope inv_freq(...), the positions as an offset or a
//     positions tensor;
//   * read from tensors: cos[... t ..., k(c)] and sin[... t ..., k(c)] ->
//     pe.rope cache(...), with the table slices of the first channel of each
//     pair; the second channel must read the same entry, or
//     assume-duplicated-tables must say so: then the raised program checks
//     at run time, before the pe.rope, that the entries the second channels
//     read equal those of the first channels in every row of the table
//     (cf.assert), since pe.rope reads only the first ones. A constant
//     table is compared at compile time instead, with or without the
//     option.
//
// A constant coefficient on both products is the attention scaling.
//
//===----------------------------------------------------------------------===//

#include "RaiseRope.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

#define DEBUG_TYPE "pe-raise"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

namespace {

/// Largest head dimension the pattern traces channel by channel.
constexpr int64_t kMaxChannels = 1024;

} // namespace

/// A constant floating-point tensor.
static bool isConstantFPTable(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && isa<DenseFPElementsAttr>(cst.getValue());
}

int64_t RopeMatcher::partner(int64_t c) const {
  if (layout == RopeLayout::Half) {
    int64_t h = rotaryDim / 2;
    return c < h ? c + h : c - h;
  }
  return c % 2 == 0 ? c + 1 : c - 1;
}

/// The channel of `f` if it reads `x` at the output's own indices except a
/// constant channel (through any data movement the tracer looked through).
static std::optional<int64_t> channelRead(Tracer &tracer, const Expr *f,
                                          Value x, ArrayRef<AffineExpr> vars) {
  f = stripCasts(f);
  for (const Access &a : tracer.origins(f)) {
    if (a.value != x || a.indices.size() != vars.size())
      continue;
    bool same = true;
    for (size_t i = 0; i + 1 < vars.size(); ++i)
      same &= tracer.simplify(a.indices[i]) == tracer.simplify(vars[i]);
    if (same)
      if (std::optional<int64_t> c = tracer.constantOf(a.indices.back()))
        return c;
  }
  return std::nullopt;
}

bool RopeMatcher::findInput() {
  // Candidates: values that channel 0's first product reads at the output's
  // indices; x is the one every product of every channel reads.
  SmallVector<Value> candidates;
  for (const Term &t : terms[0])
    for (const Expr *f : t.factors)
      for (const Access &a : tracer.origins(stripCasts(f)))
        if (a.value != root && a.value.getType() == type &&
            channelRead(tracer, f, a.value, vars) &&
            !llvm::is_contained(candidates, a.value))
          candidates.push_back(a.value);
  for (Value x : candidates) {
    bool all = true;
    for (const SmallVector<Term> &channelTerms : terms)
      for (const Term &t : channelTerms) {
        int reads = 0;
        for (const Expr *f : t.factors)
          reads += channelRead(tracer, f, x, vars).has_value();
        all &= reads == 1;
      }
    if (all) {
      input = x;
      return true;
    }
  }
  return false;
}

bool RopeMatcher::matchLayout(RopeLayout candidate) {
  layout = candidate;
  // Rotated channels: everything before the trailing pass-through channels.
  rotaryDim = channels;
  while (rotaryDim > 0) {
    const SmallVector<Term> &t = terms[rotaryDim - 1];
    if (t.size() != 1 || t[0].coefficient != 1 || t[0].factors.size() != 1 ||
        channelRead(tracer, t[0].factors[0], input, vars) != rotaryDim - 1)
      break;
    --rotaryDim;
  }
  if (rotaryDim < 2 || rotaryDim % 2 != 0)
    return false;
  cosOf.assign(rotaryDim, {});
  sinOf.assign(rotaryDim, {});
  std::optional<double> m;
  for (int64_t c = 0; c < rotaryDim; ++c) {
    const SmallVector<Term> &t = terms[c];
    if (t.size() != 2)
      return false;
    const Term *self = nullptr, *other = nullptr;
    for (const Term &term : t) {
      SmallVector<const Expr *> rest;
      std::optional<int64_t> ch;
      for (const Expr *f : term.factors) {
        if (auto r = channelRead(tracer, f, input, vars))
          ch = r;
        else
          rest.push_back(f);
      }
      if (ch == c)
        self = &term;
      else if (ch == partner(c))
        other = &term;
    }
    if (!self || !other)
      return false;
    // x[c] * m * cos + sign * x[partner] * m * sin, sign = - for the first
    // channel of a pair.
    double sign = partner(c) > c ? -1.0 : 1.0;
    if (!m)
      m = self->coefficient;
    if (!nearlyEqual(self->coefficient, *m, 1e-12) ||
        !nearlyEqual(other->coefficient, sign * *m, 1e-12))
      return false;
    auto tableOf = [&](const Term *term) {
      SmallVector<const Expr *> rest;
      for (const Expr *f : term->factors)
        if (!channelRead(tracer, f, input, vars))
          rest.push_back(f);
      return rest;
    };
    std::optional<TableFactor> cos = tableFactor(tableOf(self), ExprKind::Cos);
    std::optional<TableFactor> sin = tableFactor(tableOf(other), ExprKind::Sin);
    if (!cos || !sin || cos->computed != sin->computed)
      return false;
    cosOf[c] = *cos;
    sinOf[c] = *sin;
  }
  scaling = *m;
  return true;
}

std::optional<TableFactor>
RopeMatcher::tableFactor(ArrayRef<const Expr *> factors, ExprKind trig) {
  if (factors.size() != 1)
    return std::nullopt;
  const Expr *f = stripCasts(factors[0]);
  TableFactor result;
  if (f->kind == ExprKind::Leaf) {
    if (f->value == input || !isa<RankedTensorType>(f->value.getType()))
      return std::nullopt;
    result.leaf = f;
    return result;
  }
  if (f->kind != trig)
    return std::nullopt;
  SmallVector<Term> angle;
  if (!expandTerms(f->operands[0], angle, 1) || angle.size() != 1)
    return std::nullopt;
  result.computed = true;
  const Term &t = angle[0];
  for (const Expr *g : t.factors) {
    const Expr *s = stripCasts(g);
    bool constIndices = s->kind == ExprKind::Leaf &&
                        llvm::all_of(s->indices, [&](AffineExpr e) {
                          return tracer.constantOf(e).has_value();
                        });
    if (constIndices && !result.angle.frequencyLeaf &&
        isa<FloatType>(s->type)) {
      result.angle.frequencyLeaf = s;
    } else if (!result.angle.position) {
      result.angle.position = s;
    } else {
      return std::nullopt;
    }
  }
  if (!result.angle.position)
    return std::nullopt;
  if (result.angle.frequencyLeaf) {
    if (t.coefficient != 1)
      return std::nullopt;
  } else {
    result.angle.frequency = t.coefficient;
  }
  return result;
}

bool RopeMatcher::sameEntry(const TableFactor &a, const TableFactor &b) {
  if (a.computed != b.computed)
    return false;
  if (!a.computed)
    return tracer.equal(a.leaf, b.leaf);
  if (!tracer.equal(a.angle.position, b.angle.position))
    return false;
  if (a.angle.frequency || b.angle.frequency)
    return a.angle.frequency == b.angle.frequency;
  return tracer.equal(a.angle.frequencyLeaf, b.angle.frequencyLeaf);
}

bool RopeMatcher::matchTables() {
  for (int64_t c = 0; c < rotaryDim; ++c) {
    // cos and sin of one angle.
    if (cosOf[c].computed) {
      TableFactor s = sinOf[c];
      if (!sameEntry(cosOf[c], s)) {
        reason = "the cosine and the sine of a channel are not of the same "
                 "angle (position times frequency)";
        return false;
      }
    }
    // Both channels of a pair use one entry.
    int64_t p = partner(c);
    if (p < c)
      continue;
    for (auto *tables : {&cosOf, &sinOf}) {
      if (sameEntry((*tables)[c], (*tables)[p]))
        continue;
      const TableFactor &a = (*tables)[c], &b = (*tables)[p];
      // A constant table is compared at compile time by the rewrite.
      bool constant = !a.computed && isConstantFPTable(a.leaf->value);
      if (!a.computed && (options.assumeDuplicatedTables || constant) &&
          a.leaf->value == b.leaf->value) {
        assumedDuplicated = true;
        continue;
      }
      if (a.computed)
        reason = "the two channels of a rotated pair have different angles";
      else if (!options.assumeDuplicatedTables)
        reason = "the two channels of a rotated pair read different entries "
                 "of a cos/sin table the pass cannot see; "
                 "assume-duplicated-tables raises it anyway";
      else
        reason = "the two channels of a rotated pair read different cos/sin "
                 "tensors; assume-duplicated-tables is about the two halves "
                 "of one table";
      return false;
    }
  }
  // assume-duplicated-tables is checked at run time by comparing two slices
  // of each table: the second channel of every pair must read it at one
  // constant offset, along one dimension, from the first channel.
  if (assumedDuplicated) {
    for (auto *tables : {&cosOf, &sinOf}) {
      std::optional<std::pair<unsigned, int64_t>> shift;
      for (int64_t c = 0; c < rotaryDim; ++c) {
        int64_t p = partner(c);
        if (p < c)
          continue;
        const Expr *a = (*tables)[c].leaf, *b = (*tables)[p].leaf;
        bool uniform = a && b && a->value == b->value &&
                       a->indices.size() == b->indices.size();
        std::optional<std::pair<unsigned, int64_t>> here;
        for (unsigned d = 0; uniform && d < a->indices.size(); ++d) {
          std::optional<int64_t> k =
              tracer.constantOf(tracer.simplify(b->indices[d] - a->indices[d]));
          if (!k || (*k != 0 && here))
            uniform = false;
          else if (*k != 0)
            here = std::make_pair(d, *k);
        }
        if (!uniform || !here || (shift && *shift != *here)) {
          reason = "assume-duplicated-tables: the second channel of each "
                   "rotated pair does not read the cos/sin table at one "
                   "constant offset along one dimension from the first "
                   "channel, so the two halves cannot be checked at run time";
          return false;
        }
        shift = here;
      }
    }
  }
  // Every channel: the same position expression (computed) or table (read).
  for (int64_t c = 1; c < rotaryDim; ++c) {
    if (cosOf[c].computed != cosOf[0].computed)
      return false;
    if (cosOf[0].computed &&
        !tracer.equal(cosOf[c].angle.position, cosOf[0].angle.position)) {
      reason = "the channels' angles have different positions";
      return false;
    }
    if (!cosOf[0].computed && (cosOf[c].leaf->value != cosOf[0].leaf->value ||
                               sinOf[c].leaf->value != sinOf[0].leaf->value))
      return false;
  }
  return true;
}

bool RopeMatcher::match() {
  type = dyn_cast<RankedTensorType>(root.getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return false;
  channels = type.getShape().back();
  if (ShapedType::isDynamic(channels) || channels < 2 ||
      channels > kMaxChannels)
    return false;
  // A rotary embedding is elementwise work and data movement: reductions
  // (a projection producing x, a norm) are leaves.
  tracer.setMaxDepth(kEncodingTraceDepth);
  tracer.setReductionFilter([](Operation *) { return false; });
  vars = tracer.addVariables(type);
  MLIRContext *ctx = root.getContext();
  auto channelTerms = [&](int64_t c) -> bool {
    SmallVector<AffineExpr> idx(vars);
    idx.back() = getAffineConstantExpr(c, ctx);
    SmallVector<Term> t;
    if (!expandTerms(tracer.trace(root, idx), t, 4))
      return false;
    terms.push_back(std::move(t));
    return true;
  };
  // Cheap rejection first: channel 0 must be a sum of two products.
  if (!channelTerms(0) || terms[0].size() != 2) {
    // A payload that gathers (tensor.extract) at indices the tracer cannot
    // follow is opaque: say which op stopped it.
    Operation *def = root.getDefiningOp();
    Operation *opaque = tracer.opaqueOpOf(root);
    bool gathers =
        def && def->getNumRegions() == 1 &&
        def->getRegion(0)
            .walk([](tensor::ExtractOp) { return WalkResult::interrupt(); })
            .wasInterrupted();
    if (opaque && gathers)
      reason = "an opaque gather: the payload reads a tensor (tensor.extract) "
               "through '" +
               opaque->getName().getStringRef().str() +
               "', which the tracer does not follow, so what the element "
               "computes is unknown";
    return false;
  }
  // Still cheap: both products of channel 0 read one input x at the
  // output's indices (a bias added to a projection does not).
  if (!findInput())
    return false;
  for (int64_t c = 1; c < channels; ++c)
    if (!channelTerms(c))
      return false;
  if (!findInput())
    return false;
  if (!matchLayout(RopeLayout::Half) && !matchLayout(RopeLayout::Interleaved)) {
    // Close enough to say why: channel 0 is x * cos(..) + x * sin(..).
    bool cos = false, sin = false;
    for (const Term &t : terms[0])
      for (const Expr *f : t.factors) {
        cos |= stripCasts(f)->kind == ExprKind::Cos;
        sin |= stripCasts(f)->kind == ExprKind::Sin;
      }
    if (cos && sin)
      reason = "the products pair no channel c with c +- R/2 (split-half) or "
               "c +- 1 (interleaved) with the signs of a rotation "
               "(x[c] cos - x[c'] sin for the first channel of a pair, "
               "x[c] cos + x[c'] sin for the second)";
    return false;
  }
  LLVM_DEBUG(llvm::dbgs() << "pe-raise: rope structure, layout "
                          << stringifyRopeLayout(layout)
                          << ", R = " << rotaryDim << "\n");
  return matchTables();
}

/// Roots: elementwise linalg ops and concats whose result is a float tensor
/// with a static last dimension, that are not merely cast by their only user
/// (that user is the root then).
static bool isCandidateRoot(Operation *op) {
  if (op->getNumResults() != 1 || op->getResult(0).use_empty())
    return false;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (linalgOp.getNumReductionLoops() != 0 ||
        !linalgOp.hasPureTensorSemantics())
      return false;
  } else if (!isa<tensor::ConcatOp>(op)) {
    return false;
  }
  if (op->hasOneUse())
    if (auto user = dyn_cast<linalg::GenericOp>(*op->getUsers().begin()))
      if (user.getNumDpsInputs() == 1 && user.getNumReductionLoops() == 0 &&
          isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(
              user.getBody()->getTerminator()->getOperand(0).getDefiningOp()))
        return false;
  return true;
}

static LogicalResult raiseRope(Operation *op, PatternRewriter &rewriter,
                               const RaiseOptions &options) {
  if (!isCandidateRoot(op))
    return failure();
  RopeMatcher matcher(op->getResult(0), options);
  if (!matcher.match())
    return rewriter.notifyMatchFailure(op, "not a rotary embedding");
  if (failed(matcher.rewrite(rewriter, /*dry=*/true)))
    return failure();
  return matcher.rewrite(rewriter, /*dry=*/false);
}

namespace {

/// A rotary embedding whose root is an elementwise linalg op (the sum of the
/// two products).
struct RaiseRopeAtLinalgOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  RaiseRopeAtLinalgOp(MLIRContext *ctx, const RaiseOptions &options)
      : OpInterfaceRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    return raiseRope(op, rewriter, options);
  }

  RaiseOptions options;
};

/// A partial rotary embedding whose root is the concat of the rotated and
/// the pass-through channels.
struct RaiseRopeAtConcat : OpRewritePattern<tensor::ConcatOp> {
  RaiseRopeAtConcat(MLIRContext *ctx, const RaiseOptions &options)
      : OpRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    return raiseRope(op, rewriter, options);
  }

  RaiseOptions options;
};

} // namespace

std::string mlir::pe::raise::whyRopeNotRaised(Operation *op,
                                              const RaiseOptions &options) {
  if (!isCandidateRoot(op))
    return "";
  RopeMatcher matcher(op->getResult(0), options);
  if (!matcher.match())
    return matcher.reason;
  // What the dry rewrite refuses with a reason (a constant table whose halves
  // differ).
  PatternRewriter rewriter(op->getContext());
  if (failed(matcher.rewrite(rewriter, /*dry=*/true)))
    return matcher.reason;
  return "";
}

void mlir::pe::populateRaiseRopePatterns(RewritePatternSet &patterns,
                                         const RaiseOptions &options) {
  patterns.add<RaiseRopeAtLinalgOp, RaiseRopeAtConcat>(patterns.getContext(),
                                                       options);
}
