//===- RaiseRope.h - the rotary-embedding matcher of pe-raise ---*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// Shared by RaiseRope.cpp (matching) and RaiseRopeRewrite.cpp (the rewrite
// to pe.rope and its run-time checks). Internal to pe-raise.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_TRANSFORMS_RAISEROPE_H
#define PE_LIB_DIALECT_PE_TRANSFORMS_RAISEROPE_H

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::pe::raise {

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

/// The operands of the pe.rope a rewrite builds.
struct RopeOperands {
  Value invFreq, cosCache, sinCache, attentionScaling, positions, offset;
  int64_t staticOffset = 0;
  std::optional<unsigned> sequenceDim;
};

/// How the entries of a cos or sin table are read: the slice's start, the
/// dimensions of the token, the batch and the channel, the channel stride.
struct CacheIndexing {
  SmallVector<int64_t> start;
  std::optional<unsigned> tokenAt, batchAt, channelAt;
  int64_t stride = 1;
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
  /// The steps of rewrite (RaiseRopeRewrite.cpp).
  LogicalResult matchRopePositions(PatternRewriter &rewriter, bool dry,
                                   const Expr *p, RopeOperands &ops);
  LogicalResult buildFrequencies(PatternRewriter &rewriter, bool dry,
                                 RopeOperands &ops);
  LogicalResult buildConstantFrequencies(PatternRewriter &rewriter, bool dry,
                                         Type freqType, RopeOperands &ops);
  LogicalResult sliceFrequencyTensor(PatternRewriter &rewriter, bool dry,
                                     RopeOperands &ops);
  LogicalResult buildCaches(PatternRewriter &rewriter, bool dry,
                            RopeOperands &ops);
  LogicalResult sliceCache(PatternRewriter &rewriter, bool dry,
                           std::vector<TableFactor> &tables, Value &cache,
                           bool &perToken, int64_t &rowOffset,
                           const Expr *&gatherPositions, RopeOperands &ops);
  LogicalResult indexCacheRows(const Expr *l0, CacheIndexing &ix,
                               const Expr *&gatherPositions, RopeOperands &ops);
  LogicalResult indexCacheChannels(ArrayRef<TableFactor> tables,
                                   CacheIndexing &ix);

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

} // namespace mlir::pe::raise

#endif // PE_LIB_DIALECT_PE_TRANSFORMS_RAISEROPE_H
