//===- AttentionPlan.h - pe.attention's rules, stated once ------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// The backend-neutral plan of a pe.attention: what every lowering of the op
// (the reference lowering, the CPU kernels, the GPU kernels) must agree on,
// decoded once from the op, and its index rules as IR builders on `index`
// values. A backend maps the plan to its loops, lanes or threads; it does not
// restate a rule.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_KERNELS_ATTENTIONPLAN_H
#define PE_CONVERSION_KERNELS_ATTENTIONPLAN_H

#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace mlir::pe::kernels {

/// One step of the score chain, in the order pe.attention states: the raw
/// score `q . k` is scaled, capped (before the bias), biased (ALiBi or the
/// explicit bias: they are exclusive), capped (after the bias), then masked
/// (causal, window, valid keys, explicit mask).
enum class ScoreStep { Scale, Softcap, Alibi, Bias, Mask };

/// The static facts of one pe.attention and its key rules.
///
/// Key rules, for batch row b, query token i (0-based in the op's query
/// rows) and key j:
///   L[b]  = clamp(kv_lengths[b], 0, Tk), or Tk without kv_lengths;
///   o[b]  = causal_offset (+ L[b] - Tq with bottom-right alignment);
///   j is allowed iff j < L[b], and when causal j <= i + o[b], and with a
///   window W also j > i + o[b] - W.
class AttentionPlan {
public:
  explicit AttentionPlan(AttentionOp op);

  AttentionOp getOp() const { return op; }
  AttentionLayout getLayout() const { return layout; }
  /// Axes of the heads and of the tokens in query, key, value and result.
  int64_t getHeadsAxis() const { return headsAxis; }
  int64_t getSequenceAxis() const { return sequenceAxis; }
  /// Query heads per KV head (GQA); 0 when a head count is dynamic.
  int64_t getGroupSize() const { return groupSize; }
  bool isCausal() const { return causal; }
  std::optional<int64_t> getWindow() const { return window; }
  /// The softmax scale: the op's, or 1/sqrt(D).
  double getScale() const { return scale; }
  std::optional<double> getSoftcap() const { return softcap; }
  bool hasKvLengths() const { return kvLengths; }

  /// The score chain of this op, in order; only the steps it has (Scale and
  /// Mask always).
  SmallVector<ScoreStep> getScoreChain() const;

  /// L[b]: `rawLength` (kv_lengths[b], any signless integer type, or null
  /// without kv_lengths) clamped to [0, tk]. The clamp is done in 64 bits
  /// before the result is cast to `index`, so that a length beyond the range
  /// of a 32-bit index (2^32 + 3, 2^63 - 1) is not narrowed first.
  Value buildValidKeys(OpBuilder &b, Location loc, Value rawLength,
                       Value tk) const;

  /// o[b] (index): query token i sees keys j <= i + o[b]. `causalOffset` is
  /// the op's causal_offset as an index, or null for 0. Only for causal ops.
  Value buildCausalShift(OpBuilder &b, Location loc, Value validKeys, Value tq,
                         Value causalOffset) const;

  /// The causal limit i + o[b] of query token `i`: the last key it may see.
  /// Null when the op is not causal.
  Value buildCausalLimit(OpBuilder &b, Location loc, Value i,
                         Value shift) const;

  /// Whether a query token whose causal limit is `limit` (buildCausalLimit;
  /// not read when the op is not causal) may see key `j` (i1): j < L[b]
  /// (`validKeys`, null when every key is valid), j <= limit, and with a window
  /// W j > limit - W. A backend that hoists the limit out of its key loop calls
  /// this; buildKeyAllowed is the same rule from (i, shift).
  Value buildKeyAllowedAtLimit(OpBuilder &b, Location loc, Value j, Value limit,
                               Value validKeys) const;

  /// Whether query token `i` may see key `j` (i1), from `shift` = o[b]
  /// (not read when the op is not causal; may be null then) and `validKeys` =
  /// L[b] (null when every key of the operand is valid: no kv_lengths and `j`
  /// in range): the valid length, causal and window rules. The explicit mask
  /// tensor is the caller's (it is data).
  Value buildKeyAllowed(OpBuilder &b, Location loc, Value i, Value j,
                        Value shift, Value validKeys) const;

  /// The keys [lo, hi) that any of the query tokens [firstToken, lastToken]
  /// may see (0 <= lo <= hi <= L[b]); every key outside it is masked for
  /// all of them. Without causal and window: [0, L[b]) (`shift` is not read
  /// then).
  std::pair<Value, Value> buildKeyRange(OpBuilder &b, Location loc,
                                        Value firstToken, Value lastToken,
                                        Value shift, Value validKeys) const;

  /// The tiles [begin, end) of `tileSize` keys that hold the key range of
  /// the query tokens [firstToken, lastToken] (buildKeyRange): tile t holds
  /// keys [t * tileSize, (t + 1) * tileSize). Empty (begin == end) when the
  /// range is.
  std::pair<Value, Value> buildKeyTileRange(OpBuilder &b, Location loc,
                                            Value firstToken, Value lastToken,
                                            Value shift, Value validKeys,
                                            int64_t tileSize) const;

private:
  AttentionOp op;
  AttentionLayout layout;
  int64_t headsAxis, sequenceAxis;
  int64_t groupSize = 0;
  bool causal;
  CausalAlignment alignment;
  std::optional<int64_t> window;
  double scale;
  std::optional<double> softcap;
  bool capBeforeBias;
  bool kvLengths, alibi, bias;
};

} // namespace mlir::pe::kernels

#endif // PE_CONVERSION_KERNELS_ATTENTIONPLAN_H
