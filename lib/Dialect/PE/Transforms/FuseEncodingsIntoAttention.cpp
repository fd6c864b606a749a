//===- FuseEncodingsIntoAttention.cpp - RoPE and ALiBi inside attention ---===//
//
// Part of the pe-mlir project.
//
// Two typed patterns on pe.attention: one moves the pe.rope producers of its
// query (and key) into a rope encoding, the other moves a pe.alibi_bias
// producer of its bias into an alibi encoding. Each leaves the op's other
// parts as they are, so they apply in any order and any combination (a bias,
// a mask, softcap and the other encoding stay). Where a producer is there but
// cannot move for a reason the user can change, the passes report a
// missed-optimization remark (category = the pass name).
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "pe-fuse-encodings-into-attention"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FUSEALIBIINTOATTENTION
#define GEN_PASS_DEF_FUSEENCODINGSINTOATTENTION
#define GEN_PASS_DEF_FUSEROPEINTOATTENTION
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// The pe.rope producers an attention's rope encoding can take over.
struct RopeMatch {
  RopeOp query, key; // `key` is null when the keys are used as given
};

/// Decides whether two values are equal by the structure of their producers.
/// Raising builds one `tensor.extract_slice` of the cos/sin tables (or one
/// frequency computation) per rotated tensor, so the query's and the key's
/// tables are distinct but equal values until CSE runs; comparing them by
/// structure lets the fusion fire without it.
class ValueEquivalence {
public:
  /// True when `a` and `b` hold the same value: both absent, the same SSA
  /// value, or the same result of two equivalent ops (the same name,
  /// attributes, properties and result types, ignoring locations) that have
  /// no memory effects and no regions, with operands that hold the same
  /// values in turn, up to `kMaxDepth` producers deep. Block arguments and
  /// ops with effects compare by identity only.
  bool equal(Value a, Value b) { return equal(a, b, kMaxDepth); }

private:
  static constexpr unsigned kMaxDepth = 16;

  bool equal(Value a, Value b, unsigned depth) {
    if (a == b)
      return true;
    if (!a || !b || a.getType() != b.getType() || depth == 0)
      return false;
    auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
    if (!ra || !rb || ra.getResultNumber() != rb.getResultNumber())
      return false;
    // Each pair is compared once (shared producers make the walk a DAG).
    auto [it, inserted] = known.try_emplace({a, b}, false);
    if (!inserted)
      return it->second;
    Operation *x = ra.getOwner(), *y = rb.getOwner();
    bool same =
        x->getNumRegions() == 0 && y->getNumRegions() == 0 &&
        isMemoryEffectFree(x) && isMemoryEffectFree(y) &&
        OperationEquivalence::isEquivalentTo(
            x, y,
            [&](Value l, Value r) { return success(equal(l, r, depth - 1)); },
            /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
    known[{a, b}] = same;
    return same;
  }

  DenseMap<std::pair<Value, Value>, bool> known;
};

/// True when two ropes rotate with the same channels and frequencies (the
/// frequency, table and scaling operands compared by value,
/// `ValueEquivalence`).
bool sameRotation(RopeOp a, RopeOp b) {
  ValueEquivalence values;
  return a.getLayout() == b.getLayout() &&
         a.getRotaryDimOrHeadDim() == b.getRotaryDimOrHeadDim() &&
         values.equal(a.getInvFreq(), b.getInvFreq()) &&
         values.equal(a.getCosCache(), b.getCosCache()) &&
         values.equal(a.getSinCache(), b.getSinCache()) &&
         values.equal(a.getAttentionScaling(), b.getAttentionScaling());
}

/// True when the result of `rope` has one use besides tensor.dim ops (the
/// sizes of an attention's destination, say), which the rope's input
/// answers as well: a rotation keeps the shape.
bool hasOneValueUse(RopeOp rope) {
  return llvm::count_if(rope->getUses(), [](OpOperand &use) {
           return !isa<tensor::DimOp>(use.getOwner());
         }) == 1;
}

/// Makes the tensor.dim users of `rope` ask its input instead.
void redirectDims(PatternRewriter &rewriter, RopeOp rope) {
  for (OpOperand &use : llvm::make_early_inc_range(rope->getUses()))
    if (auto dim = dyn_cast<tensor::DimOp>(use.getOwner()))
      rewriter.modifyOpInPlace(
          dim, [&] { dim.getSourceMutable().assign(rope.getInput()); });
}

/// Why the pe.rope producer `rope` (of the query or key) cannot move into
/// the attention; empty when it can.
std::string ropeProducerProblem(RopeOp rope, StringRef which) {
  if (rope.hasPerTokenCaches())
    return (which + " pe.rope takes per-token [B, T, R/2] caches; the rope "
                    "encoding takes position-indexed tables")
        .str();
  if (!hasOneValueUse(rope))
    return (which + " pe.rope result has other users, so it must exist "
                    "anyway")
        .str();
  return "";
}

/// Matches the rope producers of `op`. Returns failure with a reason when
/// producers exist but cannot move; `std::nullopt` reason when there is
/// nothing to fuse at all.
FailureOr<RopeMatch> matchRope(AttentionOp op, std::string &reason) {
  reason.clear();
  if (op.getRopeAttr())
    return failure(); // already rotates
  auto qRope = op.getQuery().getDefiningOp<RopeOp>();
  auto kRope = op.getKey().getDefiningOp<RopeOp>();
  if (!qRope) {
    if (kRope)
      reason = "only the key is rotated by a pe.rope; the rope encoding "
               "rotates the queries (and the keys)";
    return failure();
  }
  // The producers must rotate along the attention's sequence dimension
  // (sequence_dim = 1 for [B, S, H, D], the default 2 for [B, H, S, D]).
  for (RopeOp rope : {qRope, kRope})
    if (rope && rope.getSequenceDimOrDefault() != op.getSequenceAxis()) {
      reason = (Twine("a pe.rope rotates along dimension ") +
                Twine(rope.getSequenceDimOrDefault()) +
                ", not the attention's sequence dimension " +
                Twine(op.getSequenceAxis()))
                   .str();
      return failure();
    }
  reason = ropeProducerProblem(qRope, "the query's");
  if (reason.empty() && kRope)
    reason = ropeProducerProblem(kRope, "the key's");
  if (reason.empty() && kRope && !sameRotation(qRope, kRope))
    reason = "the query's and the key's pe.rope differ in layout, rotary "
             "dimension, frequencies or attention scaling";
  if (!reason.empty())
    return failure();
  return RopeMatch{qRope, kRope};
}

struct FuseRope : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason;
    FailureOr<RopeMatch> match = matchRope(op, reason);
    if (failed(match))
      return rewriter.notifyMatchFailure(
          op, reason.empty() ? "no fusable pe.rope producer" : reason);
    RopeOp q = match->query, k = match->key;
    std::optional<int64_t> rotaryDim;
    if (std::optional<uint64_t> r = q.getRotaryDim())
      rotaryDim = static_cast<int64_t>(*r);
    auto encoding = RopeEncodingAttr::get(
        op.getContext(), q.getLayout(), rotaryDim, /*rotateKey=*/bool(k),
        static_cast<int64_t>(q.getStaticOffset()),
        k ? static_cast<int64_t>(k.getStaticOffset()) : 0);
    rewriter.modifyOpInPlace(op, [&] {
      op.getQueryMutable().assign(q.getInput());
      if (k)
        op.getKeyMutable().assign(k.getInput());
      if (Value f = q.getInvFreq())
        op.getInvFreqMutable().assign(f);
      if (Value c = q.getCosCache()) {
        op.getCosCacheMutable().assign(c);
        op.getSinCacheMutable().assign(q.getSinCache());
      }
      if (Value m = q.getAttentionScaling())
        op.getAttentionScalingMutable().assign(m);
      // Each side keeps its own positions: an offset, or a positions
      // tensor ([T] or [B, T], as pe.rope's, which has the tokens of the
      // attention operand it rotates).
      if (Value o = q.getOffset())
        op.getQueryOffsetMutable().assign(o);
      if (Value p = q.getPositions())
        op.getQueryPositionsMutable().assign(p);
      if (k) {
        if (Value o = k.getOffset())
          op.getKeyOffsetMutable().assign(o);
        if (Value p = k.getPositions())
          op.getKeyPositionsMutable().assign(p);
      }
      op.setRopeAttr(encoding);
    });
    redirectDims(rewriter, q);
    rewriter.eraseOp(q);
    if (k) {
      redirectDims(rewriter, k);
      rewriter.eraseOp(k);
    }
    return success();
  }
};

/// Matches the pe.alibi_bias producer of `op`'s bias, as FuseRope does.
FailureOr<AlibiBiasOp> matchAlibi(AttentionOp op, std::string &reason) {
  reason.clear();
  if (op.getAlibiAttr() || !op.getBias())
    return failure();
  auto alibi = op.getBias().getDefiningOp<AlibiBiasOp>();
  if (!alibi)
    return failure();
  auto biasType = alibi.getResult().getType();
  auto qType = op.getQuery().getType();
  if (!alibi->hasOneUse())
    reason = "the pe.alibi_bias result has other users, so it must exist "
             "anyway";
  else if (qType.isDynamicDim(1) ||
           biasType.getDimSize(0) != qType.getDimSize(1))
    reason = "the pe.alibi_bias head count differs from the query's";
  else if (biasType.getDimSize(1) == 1 &&
           qType.getDimSize(op.getSequenceAxis()) != 1)
    reason = "the pe.alibi_bias broadcasts over the queries";
  else if (biasType.getDimSize(2) == 1 &&
           op.getKey().getType().getDimSize(op.getSequenceAxis()) != 1)
    reason = "the pe.alibi_bias broadcasts over the keys";
  if (!reason.empty())
    return failure();
  return alibi;
}

struct FuseAlibi : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason;
    FailureOr<AlibiBiasOp> alibi = matchAlibi(op, reason);
    if (failed(alibi))
      return rewriter.notifyMatchFailure(
          op, reason.empty() ? "no fusable pe.alibi_bias producer" : reason);
    // A dynamic size of the bias may be 1 at run time, and then it
    // broadcasts (the bias of query row 0 for every row), which the encoding,
    // computed from each row's own index, does not do: the fused op is the
    // same function only when the sizes are those of the scores, which is
    // checked at run time where the types cannot tell.
    auto biasType = alibi->getResult().getType();
    Location loc = op.getLoc();
    unsigned next = 0;
    for (int64_t d = 1; d <= 2; ++d) {
      if (!biasType.isDynamicDim(d))
        continue;
      Value size = alibi->getDynamicSizes()[next++];
      Value operand = d == 1 ? op.getQuery() : op.getKey();
      Value actual =
          tensor::DimOp::create(rewriter, loc, operand, op.getSequenceAxis());
      Value same = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, size, actual);
      createRuntimeCheck(
          rewriter, op, same,
          d == 1 ? "has a fused pe.alibi_bias, which must have one row per "
                   "query (it may not broadcast over the queries)"
                 : "has a fused pe.alibi_bias, which must have one column "
                   "per key (it may not broadcast over the keys)");
    }
    auto encoding = AlibiEncodingAttr::get(
        op.getContext(), alibi->getDistance(), alibi->getMaxBias(),
        static_cast<int64_t>(alibi->getStaticOffset()));
    rewriter.modifyOpInPlace(op, [&] {
      op.getBiasMutable().clear();
      if (Value o = alibi->getOffset())
        op.getAlibiOffsetMutable().assign(o);
      if (Value slopes = alibi->getSlopes())
        op.getAlibiSlopesMutable().assign(slopes);
      op.setAlibiAttr(encoding);
    });
    rewriter.eraseOp(*alibi);
    return success();
  }
};

/// Reports, after fusion, every encoding producer that stayed outside its
/// attention for a reason the user can change.
void reportMissedFusions(Operation *root, StringRef passName, bool rope,
                         bool alibi) {
  root->walk([&](AttentionOp op) {
    std::string reason;
    if (rope && failed(matchRope(op, reason)) && !reason.empty())
      emitMissedRemark(op, passName, "rope-not-fused", reason);
    if (alibi && failed(matchAlibi(op, reason)) && !reason.empty())
      emitMissedRemark(op, passName, "alibi-not-fused", reason);
  });
}

template <typename Base> struct FusePassBase : Base {
  /// Runs the patterns `populate` adds with one greedy driver, then reports
  /// what did not fuse.
  void run(function_ref<void(RewritePatternSet &)> populate, bool rope,
           bool alibi) {
    RewritePatternSet patterns(&this->getContext());
    populate(patterns);
    if (failed(
            applyPatternsGreedily(this->getOperation(), std::move(patterns))))
      return this->signalPassFailure();
    reportMissedFusions(this->getOperation(), this->getArgument(), rope, alibi);
  }
};

struct FuseRopeIntoAttentionPass
    : FusePassBase<
          pe::impl::FuseRopeIntoAttentionBase<FuseRopeIntoAttentionPass>> {
  void runOnOperation() override {
    run(populateFuseRopeIntoAttentionPatterns, /*rope=*/true,
        /*alibi=*/false);
  }
};

struct FuseAlibiIntoAttentionPass
    : FusePassBase<
          pe::impl::FuseAlibiIntoAttentionBase<FuseAlibiIntoAttentionPass>> {
  void runOnOperation() override {
    run(populateFuseAlibiIntoAttentionPatterns, /*rope=*/false,
        /*alibi=*/true);
  }
};

struct FuseEncodingsIntoAttentionPass
    : FusePassBase<pe::impl::FuseEncodingsIntoAttentionBase<
          FuseEncodingsIntoAttentionPass>> {
  void runOnOperation() override {
    run(populateFuseEncodingsIntoAttentionPatterns, /*rope=*/true,
        /*alibi=*/true);
  }
};
} // namespace

void mlir::pe::populateFuseRopeIntoAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseRope>(patterns.getContext());
}

void mlir::pe::populateFuseAlibiIntoAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseAlibi>(patterns.getContext());
}

void mlir::pe::populateFuseEncodingsIntoAttentionPatterns(
    RewritePatternSet &patterns) {
  populateFuseRopeIntoAttentionPatterns(patterns);
  populateFuseAlibiIntoAttentionPatterns(patterns);
}
