//===- RaiseTrace.h - what one element of a tensor value computes -*- C++
//-*-===//
//
// Part of the pe-mlir project.
//
// The analysis behind pe-raise. A frontend spells one computation in many
// ways: a named op or a linalg.generic, a broadcast as an indexing map or as
// a linalg.broadcast, a transpose as a map or an op, a slice of a concat or a
// reshape to pairs. The tracer looks through all of them: trace(v, idx)
// returns a scalar expression tree for the element `v[idx]`, where each
// index is an affine expression over the trace's variables (the dimensions of
// the value the caller starts from, plus one variable per reduction loop it
// crosses). Elementwise payloads become arithmetic nodes, reductions become
// Reduce nodes over a fresh variable, and data movement (slices, concats,
// reshapes, transposes, broadcasts) only changes indices. What the tracer does
// not understand is a Leaf: the value read at those indices.
//
// So the raising patterns match what is computed, not how it is spelled: the
// same tree comes out of torch-mlir's generics and of tosa-to-linalg's named
// ops.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_TRANSFORMS_RAISETRACE_H
#define PE_LIB_DIALECT_PE_TRANSFORMS_RAISETRACE_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace arith {
class CmpIOp;
class ConstantOp;
} // namespace arith
namespace linalg {
class LinalgOp;
} // namespace linalg
namespace tensor {
class CollapseShapeOp;
class ConcatOp;
class ExpandShapeOp;
class ExtractOp;
class ExtractSliceOp;
class InsertSliceOp;
class ReshapeOp;
} // namespace tensor

namespace pe {
namespace raise {

enum class ExprKind {
  Leaf,  // `value` read at `indices` (a scalar value: no indices)
  Const, // `constant`
  Index, // the integer `index` (an affine expression of the variables)
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  Max,
  Exp,
  Cos,
  Sin,
  Sqrt,
  Rsqrt,
  Tanh,
  Log,
  Cast,    // extf / truncf: a change of float precision
  IntToFp, // sitofp / uitofp (also of an index_cast); `predicate` 1: uitofp
  Reduce,  // `reduction` of operands[0] over variable `var`
  Select,  // operands: condition, true value, false value
  CmpF,    // `predicate` (arith::CmpFPredicate) of two floats
  CmpI,    // `predicate` (arith::CmpIPredicate) of two integers
};

enum class ReductionKind { Add, Max };

struct Expr {
  ExprKind kind;
  Type type;
  Value value;                     // Leaf
  SmallVector<AffineExpr> indices; // Leaf
  double constant = 0;             // Const
  AffineExpr index;                // Index
  SmallVector<const Expr *> operands;
  unsigned var = 0;                             // Reduce
  ReductionKind reduction = ReductionKind::Add; // Reduce
  int64_t predicate = 0;                        // CmpF, CmpI

  bool isConst() const { return kind == ExprKind::Const; }
  bool isConst(double c) const { return isConst() && constant == c; }
};

/// A (value, indices) pair the tracer visited on its way to an expression:
/// the element `value[indices]` equals that expression.
struct Access {
  Value value;
  SmallVector<AffineExpr> indices;
};

class Tracer {
public:
  explicit Tracer(MLIRContext *context) : context(context) {}

  /// Bounds of a trace, set before tracing. Values more than `depth` values
  /// below the start are leaves (and not memoised, so that a shallower path
  /// to them still sees what they compute).
  void setMaxDepth(unsigned depth) { maxDepth = depth; }
  /// Which linalg reductions (ops with a reduction loop of extent > 1, and
  /// linalg.softmax) the tracer looks into; the others are leaves. Unset: all.
  /// The decision depends on the op only, so that memoised traces agree.
  void setReductionFilter(std::function<bool(Operation *)> filter) {
    expandReduction = std::move(filter);
  }

  /// A new variable with this extent (ShapedType::kDynamic if unknown).
  AffineExpr addVariable(int64_t extent);
  /// One variable per dimension of `type`, in order.
  SmallVector<AffineExpr> addVariables(ShapedType type);
  int64_t extent(unsigned var) const { return extents[var]; }
  unsigned numVariables() const { return extents.size(); }

  /// The expression of the element `v[indices]` (no indices for a scalar).
  const Expr *trace(Value v, ArrayRef<AffineExpr> indices);

  /// The expression a symbol of an index stands for: an index read from a
  /// tensor (a gather: `tensor.extract` inside a linalg payload), or a
  /// run-time integer scalar added to an index (a position offset).
  const Expr *symbolValue(AffineExpr e) const {
    auto s = dyn_cast<AffineSymbolExpr>(e);
    return s ? symbols[s.getPosition()] : nullptr;
  }

  /// The payload op that stopped the trace of a linalg result (an op the
  /// tracer cannot express that the yielded value depends on), if one did.
  Operation *opaqueOpOf(Value result) const { return opaque.lookup(result); }

  /// Every access the tracer visited that yields `e`, in visiting order
  /// (data movement visits several: an operand, the transpose it reads, ...).
  ArrayRef<Access> origins(const Expr *e) const;

  /// `e` with floordiv / mod simplified where the variables' extents prove
  /// the remainder in range.
  AffineExpr simplify(AffineExpr e) const;
  /// The constant value of `e` after simplification, if it is one.
  std::optional<int64_t> constantOf(AffineExpr e) const;

  /// Nodes, for the matchers (simplifying as they build).
  const Expr *constant(double c, Type type);
  const Expr *unary(ExprKind kind, const Expr *a, Type type);
  const Expr *binary(ExprKind kind, const Expr *a, const Expr *b, Type type);

  /// True when `a` equals `b` with variable `from` of `a` read as `to`
  /// (structurally, after simplification).
  bool equal(const Expr *a, const Expr *b) const {
    return equal(a, b, llvm::SmallDenseMap<unsigned, unsigned>());
  }
  bool equal(const Expr *a, const Expr *b,
             llvm::SmallDenseMap<unsigned, unsigned> rename) const;

  MLIRContext *getContext() const { return context; }

private:
  const Expr *traceUncached(Value v, ArrayRef<AffineExpr> indices);
  /// The steps of traceUncached, by the op that defines the value `v`.
  const Expr *traceScalar(Operation *def, Value v,
                          ArrayRef<AffineExpr> indices);
  const Expr *traceTensorConstant(arith::ConstantOp cst, Value v,
                                  ArrayRef<AffineExpr> indices);
  const Expr *traceExtractSlice(tensor::ExtractSliceOp slice, Value v,
                                ArrayRef<AffineExpr> indices);
  const Expr *traceInsertSlice(tensor::InsertSliceOp insert, Value v,
                               ArrayRef<AffineExpr> indices);
  const Expr *traceConcat(tensor::ConcatOp concat, Value v,
                          ArrayRef<AffineExpr> indices);
  const Expr *traceExpandShape(tensor::ExpandShapeOp expand, Value v,
                               ArrayRef<AffineExpr> indices);
  const Expr *traceCollapseShape(tensor::CollapseShapeOp collapse, Value v,
                                 ArrayRef<AffineExpr> indices);
  const Expr *traceReshape(tensor::ReshapeOp reshape, Value v,
                           ArrayRef<AffineExpr> indices);
  const Expr *leaf(Value v, ArrayRef<AffineExpr> indices);
  const Expr *traceLinalg(Operation *op, unsigned resultNumber,
                          ArrayRef<AffineExpr> indices);
  /// The steps of traceLinalg (RaiseTracePayload.cpp).
  bool bindLoops(linalg::LinalgOp linalgOp, unsigned resultNumber,
                 ArrayRef<AffineExpr> indices,
                 SmallVectorImpl<AffineExpr> &loops,
                 std::optional<unsigned> &reductionVar);
  void bindBlockArguments(linalg::LinalgOp linalgOp, unsigned resultNumber,
                          ArrayRef<AffineExpr> indices,
                          ArrayRef<AffineExpr> loops, bool reduction,
                          llvm::DenseMap<Value, const Expr *> &env,
                          const Expr *&initValue, Expr *&accumulator);
  FailureOr<const Expr *> tracePayloadOp(Operation &inner,
                                         ArrayRef<const Expr *> args,
                                         ArrayRef<AffineExpr> loops,
                                         Value result);
  FailureOr<const Expr *> traceGather(tensor::ExtractOp extract,
                                      ArrayRef<const Expr *> args,
                                      Value result);
  const Expr *traceFloatOp(Operation &inner, ArrayRef<const Expr *> args,
                           Type type);
  FailureOr<const Expr *>
  traceIntegerOp(Operation &inner, ArrayRef<const Expr *> args, Type type);
  const Expr *traceCmpI(arith::CmpIOp cmp, ArrayRef<const Expr *> args,
                        Type type);
  const Expr *traceReduction(const Expr *yielded, const Expr *accumulator,
                             const Expr *initValue, unsigned reductionVar,
                             Value result);
  const Expr *traceSoftmax(Operation *op, ArrayRef<AffineExpr> indices);
  /// An integer expression as an index: Index nodes as they are, run-time
  /// scalars as symbols; null otherwise.
  AffineExpr asIndex(const Expr *e);
  Expr *make(ExprKind kind, Type type);
  void bounds(AffineExpr e, int64_t &lo, int64_t &hi) const;
  AffineExpr simplifyBounded(AffineExpr e) const;

  MLIRContext *context;
  SmallVector<int64_t> extents;
  SmallVector<const Expr *> symbols;
  std::deque<Expr> nodes;
  std::map<std::pair<const void *, std::vector<const void *>>, const Expr *>
      cache;
  llvm::DenseMap<const Expr *, SmallVector<Access, 2>> originMap;
  llvm::DenseMap<Value, Operation *> opaque;
  unsigned depth = 0;
  /// By default a guard against pathological inputs, far beyond any
  /// attention block.
  unsigned maxDepth = 256;
  std::function<bool(Operation *)> expandReduction;
};

//===----------------------------------------------------------------------===//
// Sums of products
//===----------------------------------------------------------------------===//

/// One product of a sum: `coefficient * factors[0] * factors[1] * ...`, the
/// factors being non-constant expressions that are not sums, products or
/// negations (casts between float types are looked through).
struct Term {
  double coefficient = 1;
  SmallVector<const Expr *> factors;
};

/// `e` as a sum of products, distributing products over sums; fails (returns
/// false) when that takes more than `maxTerms` terms.
bool expandTerms(const Expr *e, SmallVectorImpl<Term> &terms,
                 unsigned maxTerms = 16);

/// `e` without the float casts around it.
const Expr *stripCasts(const Expr *e);

/// How the position of token `t` of a `[..., T, C]` tensor is given: `t + c`
/// along `tokenDim` (an arange), a constant, or a positions tensor read at the
/// token (and batch) index.
struct PositionsMatch {
  std::optional<unsigned> tokenDim; // unset: a constant position
  int64_t staticOffset = 0;
  /// A run-time offset added to every position (index, i32 or i64).
  Value offset;
  /// The positions tensor, read at `offsets` with `sizes` (rank-reduced to
  /// `shape`: [T] or [B, T]).
  Value tensor;
  SmallVector<int64_t> offsets, sizes, shape;
};

/// Matches the integer expression `p` (the position of the token the
/// variables of `type` index) as a PositionsMatch; fails with `why`.
LogicalResult matchPositions(const Tracer &tracer, const Expr *p,
                             RankedTensorType type, PositionsMatch &m,
                             std::string &why);
/// The positions operand of a PositionsMatch with a tensor (a slice of it
/// where it has other dimensions).
Value buildPositions(OpBuilder &b, Location loc, const PositionsMatch &m);

/// `e` as one product `coefficient * factors...`, without distributing over
/// sums: a sum (a biased projection, say) is one factor.
Term productOf(const Expr *e);

//===----------------------------------------------------------------------===//
// What a pattern traces (RaiseCone.cpp)
//===----------------------------------------------------------------------===//

/// How deep the patterns trace: what a rotary embedding, an absolute encoding
/// or an attention computes lies within a few dozen values of its root
/// (a Llama block's attention is about 20 deep, its RoPE tables 15). The
/// bound makes each candidate's trace cost independent of the program's size.
constexpr unsigned kPatternTraceDepth = 64;
/// The same for the encodings, which are elementwise: every elementwise op is
/// a candidate, and a residual stream is elementwise all the way up.
constexpr unsigned kEncodingTraceDepth = 32;

/// Linalg ops with a reduction loop of extent > 1, and linalg.softmax.
bool isReduction(Operation *op);
/// Reductions of at least two tensor operands (matmuls, dot products).
bool isContraction(Operation *op);

/// The producers an attention pattern rooted at a contraction may expand.
struct AttentionCone {
  /// The reductions within the attention: the root's contraction, the
  /// reductions between it and the contractions below it (a softmax's max
  /// and sum), and the contractions below it that feed an exponential
  /// (Q K^T), all within `maxDistance` ops of the root.
  llvm::SmallPtrSet<Operation *, 16> reductions;
  /// Whether an exponential (a softmax) lies between the root's contraction
  /// and the contractions below it: the cheap test that the root may be an
  /// attention at all.
  bool exponential = false;
};
AttentionCone attentionCone(Value root, unsigned maxDistance);

/// When `cond` reads a constant boolean tensor at [c..., i + a, j + b] that
/// is, over the window the variables `i`, `j` read, masked (true when
/// `maskedWhenTrue`, else false) exactly where j > i + k: that k
/// (RaiseMasks.cpp).
std::optional<int64_t> causalOffsetOfConstantMask(const Tracer &tracer,
                                                  const Expr *cond,
                                                  AffineExpr i, AffineExpr j,
                                                  bool maskedWhenTrue);

/// When the integer condition `cond` says "masked" (when true if
/// `maskedWhenTrue`, else when false) exactly where j > i + k, for the
/// variables `i` (query) and `j` (key): that k. A comparison of the indices
/// or a constant boolean tensor (causalOffsetOfConstantMask).
std::optional<int64_t> causalOffsetOfCondition(const Tracer &tracer,
                                               const Expr *cond, AffineExpr i,
                                               AffineExpr j,
                                               bool maskedWhenTrue);
/// The k of a term of the scores that is a causal mask: select(c, -big, 0)
/// (-big <= `maskedScore`), or that times a 0 / 1 indicator of another
/// comparison (Hugging Face's triu(full(min), 1) * (arange_j > pos_i)).
std::optional<int64_t> causalOffsetOfMaskTerm(const Tracer &tracer,
                                              const Term &term, AffineExpr i,
                                              AffineExpr j, double maskedScore);

/// True when `a` and `b` agree to `relTol` (relative) or both are 0.
bool nearlyEqual(double a, double b, double relTol);

//===----------------------------------------------------------------------===//
// Entry points of the raising patterns (for the pass's remarks)
//===----------------------------------------------------------------------===//

/// A frequency op that computes a given inv_freq table.
struct FrequencyOpMatch {
  /// Creates the op (results: inv_freq with this element type, the attention
  /// scaling).
  std::function<Operation *(OpBuilder &, Location, Type)> build;
  /// The attention scaling the op computes.
  double attentionScaling;
};

/// The frequency op whose inv_freq table matches `freqs` (each entry within
/// `tolerance`, relative), if one does (RaiseFrequencies.cpp).
std::optional<FrequencyOpMatch>
matchFrequencyOp(ArrayRef<double> freqs, int64_t rotaryDim, double tolerance);

} // namespace raise

struct RaiseOptions;
namespace raise {
/// Why `op`, which computes something close to a rotary embedding, was not
/// raised; empty if it was not close (or would be raised).
std::string whyRopeNotRaised(Operation *op, const RaiseOptions &options);
/// The same for absolute encodings (RaiseAbsolute.cpp).
std::string whyAbsoluteNotRaised(Operation *op, const RaiseOptions &options);
/// The same for attention.
std::string whyAttentionNotRaised(Operation *op, const RaiseOptions &options);
} // namespace raise
} // namespace pe
} // namespace mlir

#endif // PE_LIB_DIALECT_PE_TRANSFORMS_RAISETRACE_H
