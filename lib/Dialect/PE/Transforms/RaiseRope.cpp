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

#include "RaiseTrace.h"

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

/// One product of a rotated channel: x[channel] * coefficient * table.
struct ChannelTerm {
  int64_t channel;
  double coefficient;
  SmallVector<const Expr *> table;
};

/// The angle p * f of a computed cos/sin factor.
struct Angle {
  const Expr *position = nullptr;
  std::optional<double> frequency;     // a constant frequency
  const Expr *frequencyLeaf = nullptr; // or an element of a tensor
};

/// What the cos or sin factor of one channel reads.
struct TableFactor {
  bool computed = false;
  Angle angle;                // computed
  const Expr *leaf = nullptr; // read from a tensor
};

class RopeMatcher {
public:
  RopeMatcher(Value root, const RaiseOptions &options)
      : root(root), options(options), tracer(root.getContext()) {}

  /// Fills in everything below; false (with `reason` set when the IR is close
  /// enough to a rotary embedding to say why) when it is not one.
  bool match();

  /// Checks (dry) or performs the rewrite: a dry run creates nothing.
  LogicalResult rewrite(PatternRewriter &rewriter, bool dry);

  std::string reason;

private:
  bool findInput();
  bool matchLayout(RopeLayout layout);
  bool matchTables();
  std::optional<TableFactor> tableFactor(ArrayRef<const Expr *> factors,
                                         ExprKind trig);
  bool sameEntry(const TableFactor &a, const TableFactor &b);
  int64_t partner(int64_t c) const;
  LogicalResult checkDuplicated(PatternRewriter &rewriter, bool dry,
                                Location loc, ArrayRef<TableFactor> tables,
                                unsigned channelAt, ArrayRef<int64_t> start,
                                ArrayRef<int64_t> sizes,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> shape, Value firsts);

  Value root;
  const RaiseOptions &options;
  Tracer tracer;
  RankedTensorType type;
  SmallVector<AffineExpr> vars;
  int64_t channels = 0;
  std::vector<SmallVector<Term>> terms;

public:
  Value input;
  RopeLayout layout = RopeLayout::Half;
  int64_t rotaryDim = 0;
  double scaling = 1;
  // Some pair's two channels read different entries of a table, raised on
  // assume-duplicated-tables: the rewrite checks the tables at run time.
  bool assumedDuplicated = false;
  // Per channel c < R: the cos and sin factor.
  std::vector<TableFactor> cosOf, sinOf;
};

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

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

/// The first channel of pair i.
static int64_t firstOfPair(RopeLayout layout, int64_t i) {
  return layout == RopeLayout::Half ? i : 2 * i;
}

/// Which root dimension a variable is, if it is one.
static std::optional<unsigned> rootDim(AffineExpr e, unsigned rank) {
  if (auto d = dyn_cast<AffineDimExpr>(e))
    if (d.getPosition() < rank)
      return d.getPosition();
  return std::nullopt;
}

/// A slice of `table` (rank-reduced to the non-constant dimensions), reading
/// `offsets` with the given `sizes` and `strides`.
static Value sliceTable(PatternRewriter &rewriter, bool dry, Location loc,
                        Value table, ArrayRef<int64_t> offsets,
                        ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> resultShape) {
  auto type = cast<RankedTensorType>(table.getType());
  bool identity = type.getShape() == resultShape &&
                  llvm::all_of(offsets, [](int64_t o) { return o == 0; }) &&
                  llvm::all_of(strides, [](int64_t s) { return s == 1; });
  if (identity || dry)
    return table;
  auto resultType = RankedTensorType::get(resultShape, type.getElementType());
  SmallVector<OpFoldResult> o, s, st;
  for (auto [a, b, c] : llvm::zip(offsets, sizes, strides)) {
    o.push_back(rewriter.getIndexAttr(a));
    s.push_back(rewriter.getIndexAttr(b));
    st.push_back(rewriter.getIndexAttr(c));
  }
  return tensor::ExtractSliceOp::create(rewriter, loc, resultType, table, o, s,
                                        st);
}

/// Largest constant table slice compared at compile time.
constexpr int64_t kMaxComparedEntries = int64_t(1) << 22;

/// Whether the slices of `table` at offsets `a` and `b` (both with `sizes`
/// and `strides`) hold the same values; std::nullopt for a slice larger than
/// kMaxComparedEntries.
static std::optional<bool> sameSlices(DenseFPElementsAttr table,
                                      ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                                      ArrayRef<int64_t> sizes,
                                      ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = table.getType().getShape();
  int64_t count = 1;
  for (int64_t s : sizes) {
    if (s <= 0)
      return true;
    count *= s;
    if (count > kMaxComparedEntries)
      return std::nullopt;
  }
  auto values = table.getValues<APFloat>();
  SmallVector<int64_t> at(sizes.size(), 0);
  auto flat = [&](ArrayRef<int64_t> offsets) {
    int64_t index = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      index = index * shape[d] + offsets[d] + at[d] * strides[d];
    return index;
  };
  for (int64_t n = 0; n < count; ++n) {
    if (values[flat(a)].compare(values[flat(b)]) != APFloat::cmpEqual)
      return false;
    for (int64_t d = sizes.size() - 1; d >= 0; --d) {
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
    }
  }
  return true;
}

/// On assume-duplicated-tables: checks that the entries of `tables`' table
/// that the second channels of the pairs read follow those of the first
/// channels (`firsts`, the slice of the first channels: offsets `start`,
/// channel dimension `channelAt`) with the same sizes and strides, and (not
/// dry) inserts a run-time check that the two slices are equal: pe.rope reads
/// only the first channels' entries, so a table whose halves differ must stop
/// the program instead of giving a different result.
LogicalResult
RopeMatcher::checkDuplicated(PatternRewriter &rewriter, bool dry, Location loc,
                             ArrayRef<TableFactor> tables, unsigned channelAt,
                             ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> shape,
                             Value firsts) {
  const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
  // Refusals give the remark's reason (whyRopeNotRaised asks the dry run).
  auto refuse = [&](const Twine &why) {
    reason = why.str();
    return rewriter.notifyMatchFailure(loc, reason);
  };
  std::optional<int64_t> base;
  int64_t half = rotaryDim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const Expr *first = tables[firstOfPair(layout, i)].leaf;
    const Expr *second = tables[partner(firstOfPair(layout, i))].leaf;
    if (!first || !second || second->value != l0->value ||
        second->indices.size() != first->indices.size())
      return refuse("assume-duplicated-tables: the second channels of the "
                    "pairs read another table than the first channels");
    for (auto [d, e] : llvm::enumerate(second->indices)) {
      if (d != channelAt) {
        if (tracer.simplify(e) != tracer.simplify(first->indices[d]))
          return refuse("assume-duplicated-tables: the second channels of "
                        "the pairs read other rows of the table than the "
                        "first channels");
        continue;
      }
      std::optional<int64_t> at = tracer.constantOf(e);
      if (at && !base)
        base = at;
      if (!at || *at != *base + i * strides[channelAt])
        return refuse("assume-duplicated-tables: the second channels of the "
                      "pairs do not read the table's channels with the "
                      "first channels' stride");
    }
  }
  SmallVector<int64_t> offsets(start);
  offsets[channelAt] = *base;
  // A constant table is compared here: equal halves need no run-time check,
  // and a table whose halves differ is not raised.
  if (auto cst = l0->value.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue()))
      if (std::optional<bool> same =
              sameSlices(dense, start, offsets, sizes, strides)) {
        if (*same)
          return success();
        return refuse(Twine("the constant ") +
                      (tables.data() == cosOf.data() ? "cos" : "sin") +
                      " table holds different values for the two channels "
                      "of a rotated pair");
      }
  if (dry)
    return success();

  Value seconds = sliceTable(rewriter, /*dry=*/false, loc, l0->value, offsets,
                             sizes, strides, shape);
  // all(firsts == seconds), then cf.assert.
  auto type = cast<RankedTensorType>(firsts.getType());
  unsigned rank = type.getRank();
  MLIRContext *ctx = rewriter.getContext();
  Value empty = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{},
                                        rewriter.getI1Type());
  Value yes =
      arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
  Value init =
      linalg::FillOp::create(rewriter, loc, ValueRange{yes}, ValueRange{empty})
          .getResult(0);
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  AffineMap scalar = AffineMap::get(rank, 0, {}, ctx);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto all = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{firsts, seconds},
      ValueRange{init}, ArrayRef<AffineMap>{identity, identity, scalar},
      iterators, [](OpBuilder &b, Location l, ValueRange args) {
        Value same = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                           args[0], args[1]);
        linalg::YieldOp::create(
            b, l, arith::AndIOp::create(b, l, args[2], same).getResult());
      });
  Value ok =
      tensor::ExtractOp::create(rewriter, loc, all.getResult(0), ValueRange{});

  std::string message;
  llvm::raw_string_ostream os(message);
  os << "pe-raise assume-duplicated-tables: the "
     << (tables.data() == cosOf.data() ? "cos" : "sin") << " table (";
  if (auto arg = dyn_cast<BlockArgument>(l0->value)) {
    os << "argument #" << arg.getArgNumber();
    if (auto func = dyn_cast_or_null<FunctionOpInterface>(
            arg.getOwner()->getParentOp()))
      os << " of @" << func.getName();
  } else {
    os << "the value at " << l0->value.getLoc();
  }
  os << ") of the rotary embedding at ";
  if (auto at = dyn_cast<FileLineColLoc>(loc))
    os << at.getFilename().getValue() << ":" << at.getLine() << ":"
       << at.getColumn();
  else
    os << loc;
  os << " holds different values for the two channels of a rotated pair ("
     << (layout == RopeLayout::Half ? "c and c + " + std::to_string(half)
                                    : std::string("2i and 2i + 1"))
     << "); the raised pe.rope would read only the first";
  cf::AssertOp::create(rewriter, loc, ok, message);
  return success();
}

LogicalResult RopeMatcher::rewrite(PatternRewriter &rewriter, bool dry) {
  Location loc = root.getLoc();
  unsigned rank = type.getRank();
  int64_t half = rotaryDim / 2;
  Value invFreq, cosCache, sinCache, attentionScaling, positions, offset;
  int64_t staticOffset = 0;
  std::optional<unsigned> sequenceDim;
  MLIRContext *ctx = rewriter.getContext();

  // Positions: an affine function t + c of one root dimension, or an
  // integer tensor read at the token (and batch) index.
  auto positionsFrom = [&](const Expr *p) -> LogicalResult {
    PositionsMatch m;
    std::string why;
    if (failed(matchPositions(tracer, p, type, m, why)))
      return rewriter.notifyMatchFailure(loc, why);
    sequenceDim = m.tokenDim;
    staticOffset = m.staticOffset;
    offset = m.offset;
    if (m.tensor)
      positions = dry ? m.tensor : buildPositions(rewriter, loc, m);
    return success();
  };

  if (cosOf[0].computed) {
    const Expr *p = stripCasts(cosOf[0].angle.position);
    if (p->kind == ExprKind::IntToFp)
      p = p->operands[0];
    else if (!p->isConst())
      return rewriter.notifyMatchFailure(loc, "positions are not integers");
    if (failed(positionsFrom(p)))
      return failure();

    // Frequencies: constants (maybe a frequency op) or a tensor's elements.
    Type angleType =
        getElementTypeOrSelf(stripCasts(cosOf[0].angle.position)->type);
    Type freqType = angleType.isF64() ? Type(rewriter.getF64Type())
                                      : Type(rewriter.getF32Type());
    if (cosOf[0].angle.frequency) {
      SmallVector<double> freqs;
      for (int64_t i = 0; i < half; ++i) {
        const TableFactor &f = cosOf[firstOfPair(layout, i)];
        if (!f.angle.frequency)
          return rewriter.notifyMatchFailure(loc, "mixed frequencies");
        freqs.push_back(*f.angle.frequency);
      }
      std::optional<FrequencyOpMatch> op;
      if (options.recoverScaling)
        op = matchFrequencyOp(freqs, rotaryDim, options.tolerance);
      if (op && dry) {
        invFreq = root;
      } else if (op) {
        Operation *freqOp = op->build(rewriter, loc, freqType);
        invFreq = freqOp->getResult(0);
        // The op's attention scaling when it is the IR's, else the IR's.
        if (scaling != 1 &&
            nearlyEqual(op->attentionScaling, scaling, options.tolerance))
          attentionScaling = freqOp->getResult(1);
      } else if (dry) {
        invFreq = root;
      } else {
        auto tableType = RankedTensorType::get({half}, freqType);
        SmallVector<Attribute> values;
        for (double f : freqs)
          values.push_back(rewriter.getFloatAttr(freqType, f));
        invFreq = arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(tableType, values));
      }
    } else {
      // One frequency tensor element per pair, its index moving with i.
      const Expr *f0 = cosOf[firstOfPair(layout, 0)].angle.frequencyLeaf;
      auto table = dyn_cast<RankedTensorType>(f0->value.getType());
      if (!table || !isa<FloatType>(table.getElementType()) ||
          table.getElementTypeBitWidth() < 32)
        return rewriter.notifyMatchFailure(loc, "frequency tensor type");
      SmallVector<int64_t> start;
      for (AffineExpr e : f0->indices)
        start.push_back(*tracer.constantOf(e));
      std::optional<unsigned> moving;
      for (int64_t i = 0; i < half; ++i) {
        const Expr *fi = cosOf[firstOfPair(layout, i)].angle.frequencyLeaf;
        if (!fi || fi->value != f0->value)
          return rewriter.notifyMatchFailure(loc, "frequency tensors");
        for (auto [d, e] : llvm::enumerate(fi->indices)) {
          int64_t at = *tracer.constantOf(e);
          if (at == start[d])
            continue;
          if (moving && *moving != d)
            return rewriter.notifyMatchFailure(loc, "frequency indexing");
          moving = d;
          if (at != start[d] + i)
            return rewriter.notifyMatchFailure(loc, "frequency indexing");
        }
      }
      if (!moving && half > 1)
        return rewriter.notifyMatchFailure(loc, "frequency indexing");
      unsigned dim = moving ? *moving : table.getRank() - 1;
      SmallVector<int64_t> sizes(start.size(), 1), strides(start.size(), 1);
      sizes[dim] = half;
      invFreq = sliceTable(rewriter, dry, loc, f0->value, start, sizes, strides,
                           {half});
    }
  } else {
    // Tables read from tensors: cos[..., token, ..., k(i)] for pair i, the
    // token index either the token itself (+ an offset) or a position
    // gathered from a tensor.
    const Expr *gatherPositions = nullptr;
    auto cacheOf = [&](std::vector<TableFactor> &tables, Value &cache,
                       bool &perToken, int64_t &offset) -> LogicalResult {
      const Expr *l0 = tables[firstOfPair(layout, 0)].leaf;
      auto tableType = cast<RankedTensorType>(l0->value.getType());
      SmallVector<int64_t> start;
      std::optional<unsigned> tokenAt, batchAt, channelAt;
      for (auto [i, e] : llvm::enumerate(l0->indices)) {
        AffineExpr s = tracer.simplify(e);
        if (auto c = dyn_cast<AffineConstantExpr>(s)) {
          start.push_back(c.getValue());
          continue;
        }
        start.push_back(0);
        if (const Expr *gathered = tracer.symbolValue(s)) {
          // Rows gathered at positions read from a tensor.
          if (tokenAt ||
              (gatherPositions && !tracer.equal(gatherPositions, gathered)))
            return failure();
          tokenAt = i;
          gatherPositions = gathered;
          continue;
        }
        AffineExpr var = s;
        if (auto add = dyn_cast<AffineBinaryOpExpr>(s);
            add && add.getKind() == AffineExprKind::Add &&
            isa<AffineConstantExpr>(add.getRHS())) {
          var = add.getLHS();
          start.back() = cast<AffineConstantExpr>(add.getRHS()).getValue();
        }
        std::optional<unsigned> d = rootDim(var, rank);
        if (!d || *d == rank - 1)
          return failure();
        if (*d == 0 && rank > 2 && !batchAt && !tokenAt &&
            i + 2 < l0->indices.size()) {
          if (start.back() != 0)
            return failure();
          batchAt = i;
        } else if (!tokenAt) {
          tokenAt = i;
          if (sequenceDim && *sequenceDim != *d)
            return failure();
          sequenceDim = *d;
        } else {
          return failure();
        }
      }
      // The channel index: the one that moves with the pair.
      int64_t stride = 1;
      for (int64_t i = 1; i < half; ++i) {
        const Expr *li = tables[firstOfPair(layout, i)].leaf;
        if (li->value != l0->value)
          return failure();
        if (li->indices.size() != l0->indices.size())
          return failure();
        for (auto [d, e] : llvm::enumerate(li->indices)) {
          if (tokenAt == d || batchAt == d) {
            // Every pair reads the row of the same token.
            if (tracer.simplify(e) != tracer.simplify(l0->indices[d]))
              return failure();
            continue;
          }
          std::optional<int64_t> c = tracer.constantOf(e);
          if (!c)
            return failure();
          int64_t at = *c;
          if (at == start[d])
            continue;
          if (channelAt && *channelAt != d)
            return failure();
          if (!channelAt) {
            channelAt = d;
            stride = at - start[d];
            if (stride <= 0)
              return failure();
          }
          if (at != start[d] + i * stride)
            return failure();
        }
      }
      if (!channelAt)
        channelAt = tableType.getRank() - 1;
      if (!tokenAt || *channelAt == *tokenAt || batchAt == *channelAt)
        return failure();
      perToken = batchAt.has_value() && type.getDimSize(0) != 1;
      SmallVector<int64_t> sizes, strides, shape;
      for (unsigned d = 0; d < start.size(); ++d) {
        int64_t size = 1;
        if (d == *channelAt)
          size = half;
        else if (d == *tokenAt || (batchAt && d == *batchAt))
          size = tableType.getDimSize(d) - start[d];
        if (batchAt && d == *batchAt && !perToken)
          size = 1;
        sizes.push_back(size);
        strides.push_back(d == *channelAt ? stride : 1);
        if (size != 1 || d == *channelAt || d == *tokenAt)
          shape.push_back(size);
      }
      if (ShapedType::isDynamic(tableType.getDimSize(*tokenAt)))
        return failure();
      // With per-token tables the row is the token; otherwise the row is
      // the position, token t reading row offset + t.
      offset = start[*tokenAt];
      if (perToken) {
        if (offset != 0)
          return failure();
        // [B, T, h]: the token dimension must be the input's.
        sizes[*tokenAt] = type.getDimSize(*sequenceDim);
        shape = {type.getDimSize(0), type.getDimSize(*sequenceDim), half};
      } else {
        start[*tokenAt] = 0;
        sizes[*tokenAt] = tableType.getDimSize(*tokenAt);
        shape.clear();
        shape = {tableType.getDimSize(*tokenAt), half};
      }
      cache = sliceTable(rewriter, dry, loc, l0->value, start, sizes, strides,
                         shape);
      if (assumedDuplicated)
        return checkDuplicated(rewriter, dry, loc, tables, *channelAt, start,
                               sizes, strides, shape, cache);
      return success();
    };
    bool cosPerToken = false, sinPerToken = false;
    int64_t cosOffset = 0, sinOffset = 0;
    if (failed(cacheOf(cosOf, cosCache, cosPerToken, cosOffset)) ||
        failed(cacheOf(sinOf, sinCache, sinPerToken, sinOffset)) ||
        cosPerToken != sinPerToken || cosOffset != sinOffset ||
        cosCache.getType() != sinCache.getType())
      return rewriter.notifyMatchFailure(loc, "unsupported table indexing");
    staticOffset = cosOffset;
    if (gatherPositions) {
      if (cosPerToken || cosOffset != 0 ||
          failed(positionsFrom(gatherPositions)))
        return rewriter.notifyMatchFailure(loc, "unsupported gather");
    }
  }
  if (!attentionScaling && scaling != 1)
    attentionScaling =
        dry ? root
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getF32FloatAttr(scaling))
                  .getResult();

  if (!sequenceDim) {
    // Positions do not vary along any dimension (one token): take a
    // dimension of extent 1, the default one if it has.
    for (int64_t d = rank - 2; d >= 0; --d)
      if (type.getDimSize(d) == 1) {
        sequenceDim = d;
        break;
      }
    if (!sequenceDim)
      return rewriter.notifyMatchFailure(loc, "no token dimension");
  }
  if (dry)
    return success();
  IntegerAttr rotary = rotaryDim == channels
                           ? IntegerAttr()
                           : rewriter.getI64IntegerAttr(rotaryDim);
  IntegerAttr seq = *sequenceDim == rank - 2
                        ? IntegerAttr()
                        : rewriter.getI64IntegerAttr(*sequenceDim);
  auto rope = RopeOp::create(
      rewriter, loc, type, input, invFreq, cosCache, sinCache, attentionScaling,
      RopeLayoutAttr::get(ctx, layout), rotary, seq, offset, positions,
      staticOffset ? rewriter.getI64IntegerAttr(staticOffset) : IntegerAttr());
  rewriter.replaceAllUsesWith(root, rope.getResult());
  return success();
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

struct RaiseRope : RewritePattern {
  RaiseRope(MLIRContext *ctx, const RaiseOptions &options)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        options(options) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isCandidateRoot(op))
      return failure();
    RopeMatcher matcher(op->getResult(0), options);
    if (!matcher.match())
      return rewriter.notifyMatchFailure(op, "not a rotary embedding");
    if (failed(matcher.rewrite(rewriter, /*dry=*/true)))
      return failure();
    return matcher.rewrite(rewriter, /*dry=*/false);
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
  patterns.add<RaiseRope>(patterns.getContext(), options);
}
