//===- RaiseAbsolute.cpp - absolute encodings to pe.add_* -----------------===//
//
// Part of the pe-mlir project.
//
// An absolute position encoding adds a row of a table to each token's
// embedding:
//
//   out[..., t, c] = s * x[..., t, c] + table[p(t), c]
//
// (GPT-2 / BERT `inputs_embeds + wpe(position_ids)`, fairseq and
// tensor2tensor sinusoid tables). The pattern traces one element of an
// elementwise op's result with the channel left symbolic, and matches the
// sum of x read at the result's own indices (times s) and a rank-2 table
// read at [position, c]. A constant table that holds the sinusoidal
// encoding (interleaved or concatenated sin/cos, some base; checked entry by
// entry against the formula) becomes pe.add_sinusoidal, any other table
// pe.add_learned. s must be 1, or sqrt(C) for a sinusoidal table
// (`scale_input`). When both addends are rows of tables (GPT-2's
// wte[input_ids] + wpe[t]) either is a valid reading; the position table is
// the one read at t + c, else the one with fewer rows.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

namespace {

/// Largest constant table (rows * channels) checked against the sinusoidal
/// formula.
constexpr int64_t kMaxCheckedEntries = int64_t(1) << 22;

/// The base and layout of the sinusoidal encoding a constant [P, C] table
/// holds, if it holds one.
std::optional<std::pair<formula::SinusoidalLayout, double>>
sinusoidalTable(DenseFPElementsAttr table, double tolerance) {
  auto type = cast<RankedTensorType>(table.getType());
  int64_t rows = type.getDimSize(0), dim = type.getDimSize(1);
  if (rows < 2 || dim < 2 || rows * dim > kMaxCheckedEntries)
    return std::nullopt;
  SmallVector<double> values;
  for (const APFloat &v : table.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  auto at = [&](int64_t p, int64_t c) { return values[p * dim + c]; };
  using Layout = formula::SinusoidalLayout;
  for (Layout layout : {Layout::Interleaved, Layout::Concat}) {
    // Row 1 holds sin(w) of every frequency w <= 1; the lowest one gives
    // the base: interleaved w = base^(-2k/C) at k = C/2 - 1, concat
    // w = base^(-1) at k = h - 1.
    double estimate;
    if (layout == Layout::Interleaved) {
      int64_t k = dim / 2 - 1;
      if (k < 1)
        continue;
      double w = std::asin(std::clamp(at(1, 2 * k), -1.0, 1.0));
      estimate = std::pow(w, -static_cast<double>(dim) / (2.0 * k));
    } else {
      int64_t h = dim / 2;
      if (h < 2)
        continue;
      estimate = 1.0 / std::asin(std::clamp(at(1, h - 1), -1.0, 1.0));
    }
    if (!std::isfinite(estimate) || estimate <= 1)
      continue;
    double magnitude = std::pow(10.0, std::floor(std::log10(estimate)));
    for (int digits = 1; digits <= 7; ++digits) {
      double unit = magnitude / std::pow(10.0, digits - 1);
      double base = std::round(estimate / unit) * unit;
      bool same = true;
      for (int64_t p = 0; same && p < rows; ++p)
        for (int64_t c = 0; same && c < dim; ++c)
          same = std::fabs(at(p, c) -
                           formula::sinusoidal(static_cast<double>(p), c, dim,
                                               base, layout)) <= tolerance;
      if (same)
        return std::make_pair(layout, base);
    }
  }
  return std::nullopt;
}

struct AbsoluteMatch {
  Value input, table;
  double scale = 1;
  PositionsMatch positions;
  /// The table's rows are gathered (at a tensor of ids), and whether the
  /// input is itself a row of a table read at gathered ids (a token
  /// embedding).
  bool gatheredRows = false, inputIsLookup = false;
};

/// Matches `root` as input * scale + table[position, c].
std::optional<AbsoluteMatch> matchAbsolute(Value root) {
  auto type = dyn_cast<RankedTensorType>(root.getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  Tracer tracer(root.getContext());
  // An absolute encoding is a table read added elementwise: reductions are
  // leaves.
  tracer.setMaxDepth(kEncodingTraceDepth);
  tracer.setReductionFilter([](Operation *) { return false; });
  SmallVector<AffineExpr> vars = tracer.addVariables(type);
  SmallVector<Term> terms;
  if (!expandTerms(tracer.trace(root, vars), terms, 2) || terms.size() != 2)
    return std::nullopt;
  unsigned rank = type.getRank();
  AbsoluteMatch m;
  const Expr *tableRead = nullptr;
  // A rank-2 table read at [row, c]; and the input read at the result's own
  // indices (a table read through a gather is such a read too, so the table
  // is chosen first).
  auto isTable = [&](const Term &t) {
    const Expr *f = stripCasts(t.factors[0]);
    // A table is read, not computed: a projection or another reduction the
    // trace stopped at is not one.
    return t.coefficient == 1 && f->kind == ExprKind::Leaf &&
           f->indices.size() == 2 &&
           !isa_and_nonnull<linalg::LinalgOp>(f->value.getDefiningOp()) &&
           tracer.simplify(f->indices[1]) == tracer.simplify(vars.back());
  };
  auto inputOf = [&](const Term &t) -> Value {
    for (const Access &a : tracer.origins(stripCasts(t.factors[0]))) {
      if (a.value == root || a.value.getType() != type)
        continue;
      if (llvm::all_of(llvm::zip(a.indices, vars), [&](auto pair) {
            return tracer.simplify(std::get<0>(pair)) ==
                   tracer.simplify(std::get<1>(pair));
          }))
        return a.value;
    }
    return Value();
  };
  if (llvm::any_of(terms, [](const Term &t) { return t.factors.size() != 1; }))
    return std::nullopt;
  // When both addends are table rows (GPT-2's wte[ids] + wpe[t]) either
  // reading is the same sum; the position table is the one read at t + c
  // rather than at gathered indices, else the one with fewer rows.
  int best = -1;
  std::tuple<bool, int64_t> bestKey;
  for (int k = 0; k < 2; ++k) {
    if (!isTable(terms[k]) || !inputOf(terms[1 - k]))
      continue;
    const Expr *f = stripCasts(terms[k].factors[0]);
    bool affineRow = !tracer.symbolValue(tracer.simplify(f->indices[0]));
    int64_t rows = cast<RankedTensorType>(f->value.getType()).getDimSize(0);
    std::tuple<bool, int64_t> key{affineRow, -rows};
    if (best < 0 || key > bestKey) {
      best = k;
      bestKey = key;
    }
  }
  if (best >= 0) {
    tableRead = stripCasts(terms[best].factors[0]);
    m.input = inputOf(terms[1 - best]);
    m.scale = terms[1 - best].coefficient;
    const Expr *in = stripCasts(terms[1 - best].factors[0]);
    m.inputIsLookup = in->kind == ExprKind::Leaf && !in->indices.empty() &&
                      tracer.symbolValue(tracer.simplify(in->indices[0]));
  }
  if (!m.input || !tableRead)
    return std::nullopt;
  auto tableType = cast<RankedTensorType>(tableRead->value.getType());
  if (tableType.getElementType() != type.getElementType() ||
      tableType.getDimSize(1) != type.getDimSize(rank - 1))
    return std::nullopt;
  // The row: t + c along the token dimension (rank - 2), or a gathered
  // position.
  AffineExpr row = tracer.simplify(tableRead->indices[0]);
  const Expr *position = tracer.symbolValue(row);
  m.gatheredRows = position != nullptr;
  std::string why;
  if (position) {
    if (failed(matchPositions(tracer, position, type, m.positions, why)))
      return std::nullopt;
  } else {
    Expr index;
    index.kind = ExprKind::Index;
    index.index = row;
    if (failed(matchPositions(tracer, &index, type, m.positions, why)))
      return std::nullopt;
  }
  // pe.add_* take the tokens along dimension rank - 2.
  if (m.positions.tokenDim && *m.positions.tokenDim != rank - 2)
    return std::nullopt;
  if (!m.positions.tokenDim && type.getDimSize(rank - 2) != 1)
    return std::nullopt;
  m.table = tableRead->value;
  return m;
}

/// Rows of a learned table gathered at ids and added to a tensor that is not
/// itself a token-embedding lookup: the ids may as well be tokens (a residual
/// `embed[ids] + x`) as positions, so the sum is not raised. Next to a token
/// lookup (`wte[ids] + wpe[position_ids]`), or for a constant table holding
/// the sinusoidal encoding, the table is a position encoding.
constexpr const char *kAmbiguousRows =
    "a learned table read at gathered rows is added to a tensor that is not a "
    "token-embedding lookup: the rows may be token ids (a residual embed[ids] "
    "+ x) rather than positions; not raised as pe.add_learned";

bool ambiguousRows(const AbsoluteMatch &m) {
  return m.gatheredRows && !m.inputIsLookup;
}

/// An absolute encoding whose root is the elementwise linalg op adding the
/// table's rows.
struct RaiseAbsoluteEncoding : OpInterfaceRewritePattern<linalg::LinalgOp> {
  RaiseAbsoluteEncoding(MLIRContext *ctx, const RaiseOptions &options)
      : OpInterfaceRewritePattern(ctx), options(options) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp linalgOp,
                                PatternRewriter &rewriter) const override {
    Operation *op = linalgOp;
    if (op->getNumResults() != 1 || linalgOp.getNumReductionLoops() != 0 ||
        !linalgOp.hasPureTensorSemantics())
      return failure();
    Value root = op->getResult(0);
    std::optional<AbsoluteMatch> m = matchAbsolute(root);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not an absolute encoding");
    auto type = cast<RankedTensorType>(root.getType());
    int64_t channels = type.getShape().back();
    std::optional<std::pair<formula::SinusoidalLayout, double>> sinusoid;
    if (auto cst = m->table.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue()))
        sinusoid = sinusoidalTable(dense, 1e-6 + options.tolerance);
    if (!sinusoid && ambiguousRows(*m))
      return rewriter.notifyMatchFailure(op, kAmbiguousRows);
    bool scaled = !ShapedType::isDynamic(channels) &&
                  nearlyEqual(m->scale, std::sqrt(double(channels)), 1e-6);
    if (m->scale != 1 && !(sinusoid && scaled))
      return rewriter.notifyMatchFailure(op, "input scaled by other than 1 "
                                             "or sqrt(C)");
    Location loc = op->getLoc();
    Value positions;
    if (m->positions.tensor)
      positions = buildPositions(rewriter, loc, m->positions);
    IntegerAttr offset =
        m->positions.staticOffset
            ? rewriter.getI64IntegerAttr(m->positions.staticOffset)
            : IntegerAttr();
    Value result;
    if (sinusoid) {
      auto layout = sinusoid->first == formula::SinusoidalLayout::Interleaved
                        ? SinusoidalLayout::Interleaved
                        : SinusoidalLayout::Concat;
      result = AddSinusoidalOp::create(
          rewriter, loc, type, m->input,
          SinusoidalLayoutAttr::get(rewriter.getContext(), layout),
          rewriter.getF64FloatAttr(sinusoid->second),
          m->scale != 1 ? rewriter.getUnitAttr() : UnitAttr(),
          m->positions.offset, positions, offset);
    } else {
      result = AddLearnedOp::create(rewriter, loc, type, m->input, m->table,
                                    m->positions.offset, positions, offset);
    }
    rewriter.replaceOp(op, result);
    return success();
  }

  RaiseOptions options;
};

} // namespace

std::string mlir::pe::raise::whyAbsoluteNotRaised(Operation *op,
                                                  const RaiseOptions &options) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1 ||
      linalgOp.getNumReductionLoops() != 0 ||
      !linalgOp.hasPureTensorSemantics())
    return "";
  std::optional<AbsoluteMatch> m = matchAbsolute(op->getResult(0));
  if (!m || !ambiguousRows(*m))
    return "";
  if (auto cst = m->table.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue()))
      if (sinusoidalTable(dense, 1e-6 + options.tolerance))
        return "";
  return kAmbiguousRows;
}

void mlir::pe::populateRaiseAbsoluteEncodingPatterns(
    RewritePatternSet &patterns, const RaiseOptions &options) {
  patterns.add<RaiseAbsoluteEncoding>(patterns.getContext(), options);
}
