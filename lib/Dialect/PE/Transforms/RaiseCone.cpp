//===- RaiseCone.cpp - which producers a raising pattern may trace --------===//
//
// Part of the pe-mlir project.
//
// The tracer (RaiseTrace.cpp) expands a value into what one element of it
// computes, through everything upstream. Without bounds that is exponential
// in the depth of the program: every reduction crossed adds a variable, so
// the same producer is traced again at new indices, and a whole model lies
// upstream of its last layer. The patterns therefore say beforehand, from
// the ops alone, which reductions a trace may expand: a rotary embedding or
// an absolute encoding is elementwise work and data movement (no reduction
// at all); an attention is the contraction P V, the softmax's reductions
// between it and the exponential, and the contraction Q K^T under that
// exponential. Everything else (the projections producing Q, K and V, layer
// norms, earlier layers) is a leaf. Because the decision depends on the op
// only, memoised traces agree wherever they meet.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include <tuple>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::raise;

bool mlir::pe::raise::isReduction(Operation *op) {
  if (isa<linalg::SoftmaxOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return false;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (auto [range, iterator] : llvm::zip(ranges, iterators))
    if (iterator == utils::IteratorType::reduction && range != 1)
      return true;
  return false;
}

bool mlir::pe::raise::isContraction(Operation *op) {
  if (!isa<linalg::LinalgOp>(op) || !isReduction(op))
    return false;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  return llvm::count_if(linalgOp.getDpsInputOperands(), [](OpOperand *o) {
           return isa<ShapedType>(o->get().getType());
         }) >= 2;
}

/// A linalg.softmax, or a linalg op whose payload computes an exponential.
static bool computesExp(Operation *op) {
  if (isa<linalg::SoftmaxOp>(op))
    return true;
  if (!isa<linalg::LinalgOp>(op) || op->getNumRegions() != 1)
    return false;
  return op->getRegion(0)
      .walk([](math::ExpOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

AttentionCone mlir::pe::raise::attentionCone(Value root, unsigned maxDistance) {
  AttentionCone cone;
  // A search over (op, contractions crossed, exponential crossed) keeping
  // the shortest distance of each state; a state is expanded again only
  // when it is reached by a shorter path, so the search ends.
  using State = std::tuple<Operation *, unsigned, bool>;
  std::map<State, unsigned> distance;
  SmallVector<std::pair<State, unsigned>> worklist;
  auto visit = [&](Value v, unsigned level, bool viaExp, unsigned dist) {
    Operation *def = v.getDefiningOp();
    if (!def || dist + 1 > maxDistance)
      return;
    bool contraction = isContraction(def);
    unsigned l = level + (contraction ? 1 : 0);
    // The root's contraction is level 1; Q K^T is level 2, under an
    // exponential; whatever lies further is a leaf.
    if (contraction && (l > 2 || (l == 2 && !viaExp)))
      return;
    if (!contraction && isReduction(def) && l != 1)
      return;
    bool e = viaExp || (l == 1 && computesExp(def));
    State s{def, l, e};
    auto [it, inserted] = distance.try_emplace(s, dist + 1);
    if (!inserted && it->second <= dist + 1)
      return;
    it->second = dist + 1;
    worklist.push_back({s, dist + 1});
  };
  visit(root, 0, false, 0);
  while (!worklist.empty()) {
    auto [s, dist] = worklist.pop_back_val();
    auto [op, level, viaExp] = s;
    if (distance[s] < dist)
      continue; // a shorter path expanded it already
    if (isReduction(op))
      cone.reductions.insert(op);
    cone.exponential |= viaExp;
    for (Value operand : op->getOperands())
      visit(operand, level, viaExp, dist);
    // Tensors a payload reads by tensor.extract (gathers).
    llvm::SetVector<Value> captured;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, captured);
    for (Value v : captured)
      visit(v, level, viaExp, dist);
  }
  return cone;
}
