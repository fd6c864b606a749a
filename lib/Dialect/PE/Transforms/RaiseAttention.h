//===- RaiseAttention.h - the attention matcher of pe-raise -----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// Shared by RaiseAttention.cpp (matching) and RaiseAttentionRewrite.cpp (the
// rewrite to pe.attention). Internal to pe-raise.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_TRANSFORMS_RAISEATTENTION_H
#define PE_LIB_DIALECT_PE_TRANSFORMS_RAISEATTENTION_H

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::pe::raise {

/// Matches the scaled dot-product attention whose product with V is `root`
/// (RaiseAttention.cpp describes the formula) and rewrites it to one
/// pe.attention.
class AttentionMatcher {
public:
  AttentionMatcher(Value root) : root(root), tracer(root.getContext()) {}

  bool match();
  LogicalResult rewrite(PatternRewriter &rewriter);

  std::string reason;

private:
  bool matchScores(const Expr *s);
  /// exp(S - M) and Z of a softmax written as exp(S - M - log Z).
  std::pair<const Expr *, const Expr *> splitLogSumExp(const Expr *p);
  bool matchBias(const Term &term);
  bool matchAlibi(const Term &term);
  bool parseCausal(const Expr *cond, bool maskedWhenTrue);
  /// An access of `e` that reads a rank-4 tensor at `indices` (after
  /// simplification).
  std::optional<Access> accessAt(const Expr *e, ArrayRef<AffineExpr> indices,
                                 bool allowBroadcast = false);
  /// A tensor whose elements `e` reads at `want`, maybe in another
  /// dimension order (`permutation`, for a linalg.transpose to `want`'s).
  struct Operand {
    Value value;
    SmallVector<int64_t> permutation; // empty: already in order
    bool expand = false; // a [H, T, D] tensor of a rank-3 attention
    /// Dimension k of the [B, H, T, D] view of the operand.
    int64_t dim(unsigned k) const {
      auto t = cast<RankedTensorType>(value.getType());
      if (expand && k == 0)
        return 1;
      unsigned at = expand ? k - 1 : k;
      return t.getDimSize(permutation.empty() ? at : permutation[at]);
    }
  };
  /// The permutation taking the dimensions of the tensor `a` reads to
  /// `want`'s (empty: in order), if `a` reads it at `want` in some order.
  std::optional<SmallVector<int64_t>> permutationOf(const Access &a,
                                                    ArrayRef<AffineExpr> want);
  /// A tensor read at `want` (maybe in another order, or as [H, T, D]) with
  /// `heads` heads in its [B, H, T, D] view.
  std::optional<Operand> operandAt(const Expr *e, ArrayRef<AffineExpr> want,
                                   int64_t heads);
  /// K or V: [B, H / g, Tk, last] read at head h / g, for some g.
  std::optional<Operand> groupedOperandAt(const Expr *e, AffineExpr last);

  /// The steps of the rewrite (RaiseAttentionRewrite.cpp).
  Value buildOrdered(PatternRewriter &rewriter, const Operand &o);
  CausalAlignment buildCausalOffset(PatternRewriter &rewriter, int64_t tq,
                                    int64_t tk, Value &causalOffsetValue);
  Value buildAlibiSlopes(PatternRewriter &rewriter,
                         std::optional<double> &maxBias);
  Value buildBiasPlusAlibi(PatternRewriter &rewriter, Value alibiBias,
                           int64_t tq, int64_t tk);

  Value root;
  Tracer tracer;
  RankedTensorType type; // [B, H, Tq, Dv]; [1, H, Tq, Dv] for a rank-3 root
  bool rank3 = false;
  AffineExpr b, h, i, e, j, d;

public:
  Value bias;
  Operand query, key, value;
  double scale = 1;
  std::optional<int64_t> causalOffset; // j <= i + offset
  /// slope[h] * distance(i, j) added to the scores.
  struct AlibiMatch {
    AlibiDistance distance;
    Value table; // the slopes, read at [start with h at headAt]
    SmallVector<int64_t> start;
    unsigned headAt;
    double coefficient;
    SmallVector<double> values; // when the table is a constant (scaled)
  };
  std::optional<AlibiMatch> alibi;
};

} // namespace mlir::pe::raise

#endif // PE_LIB_DIALECT_PE_TRANSFORMS_RAISEATTENTION_H
