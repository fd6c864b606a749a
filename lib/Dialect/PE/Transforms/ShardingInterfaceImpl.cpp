//===- ShardingInterfaceImpl.cpp - ShardingInterface for the pe ops -------===//
//
// Part of the pe-mlir project.
//
// The upstream ShardingInterface describes an op by loops and one indexing
// map per operand and result; `sharding-propagation` assigns grid axes to the
// loops and `shard-partition` asks the op for its per-shard form. A shard of
// a pe op is the op on its block of the data, like a tile (PETiling.cpp), but
// with operands that are already local: the models below clone the op onto
// the local operands and then make it compute at the shard's global
// positions: the sequence start is added to the position offset, the ALiBi
// slope table is sliced at the shard's first head, causal offsets follow the
// query and key blocks. Dimensions that are never split (channels, frequency
// tables, broadcast dimensions of a bias) are mapped to one private loop that
// is never split. getShardingOption drops the splits a model does not
// support (the op then works on gathered or whole values, and partitioning
// reshards around it); partitioning an op whose own annotations ask for an
// unsupported split (IR annotated by hand, without propagation) is an error.
//
// A split of the attention key sequence is a reduction over shards: each
// shard computes its attention and its log-sum-exp over its keys, and the
// shards combine them exactly (up to the summation order) with
// shard.all_reduce: m = max lse, w = exp(lse - m), out = sum(w * o) / sum(w),
// lse = m + log(sum w).
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/ShardingInterfaceImpl.h"
#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "pe-sharding"

using namespace mlir;
using namespace mlir::pe;
using shard::GridAxis;
using shard::Sharding;
using shard::ShardingOption;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The grid axes that dimension `dim` of a value with sharding `s` is split
/// on (empty when it is not split).
static ArrayRef<GridAxis> axesOf(const Sharding &s, int64_t dim) {
  if (!s || dim >= static_cast<int64_t>(s.getSplitAxes().size()))
    return {};
  return s.getSplitAxes()[dim].asArrayRef();
}

/// The grid axes of loop `loop` (empty when not split).
static ArrayRef<GridAxis> loopAxes(shard::ShardingArrayRef loops,
                                   unsigned loop) {
  if (loop >= loops.size())
    return {};
  return loops[loop];
}

/// The number of shards along `axes` of `grid` (1 for no axes), or nullopt
/// when the grid or one of its axes is dynamic.
static std::optional<int64_t> shardCount(shard::GridOp grid,
                                         ArrayRef<GridAxis> axes) {
  int64_t n = 1;
  for (GridAxis a : axes) {
    if (a < 0 || a >= grid.getRank())
      return std::nullopt;
    int64_t s = grid.getShape()[a];
    if (ShapedType::isDynamic(s))
      return std::nullopt;
    n *= s;
  }
  return n;
}

/// Why a split of the loops (`loops[l]`: the grid axes of loop l) is not
/// supported: a split loop must have a static extent (`extents[l]`,
/// kDynamic if unknown) that its shard count divides. The shard dialect
/// itself accepts uneven splits, but the position and slope fix-ups below
/// assume equal blocks.
static std::optional<std::string> unevenSplit(shard::GridOp grid,
                                              shard::ShardingArrayRef loops,
                                              ArrayRef<int64_t> extents) {
  for (auto [loop, axes] : llvm::enumerate(loops)) {
    if (axes.empty())
      continue;
    std::optional<int64_t> n =
        grid ? shardCount(grid, axes) : std::optional<int64_t>();
    if (!n || loop >= extents.size() || ShapedType::isDynamic(extents[loop]) ||
        extents[loop] % *n != 0)
      return "a split dimension must be static and divisible by its shard "
             "count";
  }
  return std::nullopt;
}

/// The model's getShardingOption: upstream's default, with the splits the
/// model does not support (`Model::refusal` gives a reason) dropped: first
/// one split loop at a time, else every split (the op computed whole on each
/// process). Propagation then annotates the op's values with what it does
/// support, and partitioning reshards them (gathers a split channel
/// dimension, slices a result computed whole); the program stays correct.
template <typename Model>
static FailureOr<ShardingOption>
getCheckedShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                         ArrayRef<Sharding> resultShardings) {
  FailureOr<ShardingOption> opt = shard::detail::defaultGetShardingOption(
      op, operandShardings, resultShardings);
  if (failed(opt) || opt->empty)
    return opt;
  SymbolTableCollection symbolTable;
  shard::GridOp grid = shard::getGridOrNull(op, opt->grid, symbolTable);
  std::optional<std::string> why = Model::refusal(op, grid, opt->shardingArray);
  if (!why)
    return opt;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName()
                          << ": dropping a split: " << *why << "\n");
  for (size_t loop = 0; loop < opt->shardingArray.size(); ++loop) {
    if (opt->shardingArray[loop].empty())
      continue;
    ShardingOption fewer = *opt;
    fewer.shardingArray[loop].clear();
    if (!Model::refusal(op, grid, fewer.shardingArray))
      return fewer;
  }
  return ShardingOption(shard::ShardingArray(), opt->grid);
}

/// Why `op` does not support the split that these operand and result
/// shardings give its loops (nullopt when it does).
template <typename Model>
static std::optional<std::string>
refusalFor(Operation *op, ArrayRef<Sharding> operandShardings,
           ArrayRef<Sharding> resultShardings,
           SymbolTableCollection &symbolTable) {
  // (Upstream's getGridAxisAssignmentForLoopIterators reads the operands'
  // shardings only.)
  auto iface = cast<shard::ShardingInterface>(op);
  SmallVector<AffineMap> maps = iface.getIndexingMaps();
  shard::ShardingArray loops(iface.getLoopIteratorTypes().size());
  FlatSymbolRefAttr gridAttr;
  for (auto [s, map] : llvm::zip(
           llvm::concat<const Sharding>(operandShardings, resultShardings),
           maps)) {
    if (!s)
      continue;
    gridAttr = s.getGridAttr();
    for (auto [axes, expr] : llvm::zip(s.getSplitAxes(), map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && !axes.empty() && loops[dim.getPosition()].empty())
        loops[dim.getPosition()].assign(axes.asArrayRef().begin(),
                                        axes.asArrayRef().end());
  }
  shard::GridOp grid =
      gridAttr ? shard::getGridOrNull(op, gridAttr, symbolTable) : nullptr;
  return Model::refusal(op, grid, loops);
}

/// In partition: an error when the op's own annotations ask for a split the
/// model does not support (IR annotated by hand; propagation drops such
/// splits), and a missed-optimization remark when propagation dropped one:
/// the sharding a value had before the op's annotation resharded it (an
/// operand's source, what a result's users ask for) is unsupported.
template <typename Model>
static LogicalResult checkPartition(Operation *op,
                                    ArrayRef<Sharding> operandShardings,
                                    ArrayRef<Sharding> resultShardings,
                                    SymbolTableCollection &symbolTable) {
  if (std::optional<std::string> why =
          refusalFor<Model>(op, operandShardings, resultShardings, symbolTable))
    return op->emitOpError("cannot be partitioned with these shardings: ")
           << *why
           << " (annotate it with a supported sharding, e.g. replicated, and "
              "reshard the value for its users)";
  std::vector<Sharding> operands(operandShardings.begin(),
                                 operandShardings.end());
  std::vector<Sharding> results(resultShardings.begin(), resultShardings.end());
  bool resharded = false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto forOp = operand.get().getDefiningOp<shard::ShardOp>();
    auto source =
        forOp ? forOp.getSrc().getDefiningOp<shard::ShardOp>() : nullptr;
    if (!source || source.getAnnotateForUsers())
      continue;
    Sharding before(source.getSharding());
    if (before != operands[operand.getOperandNumber()]) {
      operands[operand.getOperandNumber()] = before;
      resharded = true;
    }
  }
  for (OpResult result : op->getResults()) {
    if (!result.hasOneUse())
      continue;
    auto own = dyn_cast<shard::ShardOp>(*result.getUsers().begin());
    if (!own)
      continue;
    for (Operation *user : own->getUsers()) {
      auto next = dyn_cast<shard::ShardOp>(user);
      if (!next)
        continue;
      Sharding after(next.getSharding());
      if (after != results[result.getResultNumber()]) {
        results[result.getResultNumber()] = after;
        resharded = true;
      }
      break;
    }
  }
  if (!resharded)
    return success();
  if (std::optional<std::string> why =
          refusalFor<Model>(op, operands, results, symbolTable))
    emitMissedRemark(op, DEBUG_TYPE, "split-dropped",
                     *why + "; the op computes on resharded (gathered or "
                            "whole) values instead");
  return success();
}

/// The global index of this shard's first element along a dimension of
/// local size `localSize` split on `axes`: process index * local size.
static Value shardStart(ImplicitLocOpBuilder &b, StringRef grid,
                        ArrayRef<GridAxis> axes, int64_t localSize) {
  Value idx = shard::createProcessLinearIndex(grid, axes, b);
  Value len = arith::ConstantIndexOp::create(b, localSize);
  return arith::MulIOp::create(b, idx, len);
}

/// `offset` (index or integer, may be null) plus `delta` (index), as index.
static Value addIndex(ImplicitLocOpBuilder &b, Value offset, Value delta) {
  if (!offset)
    return delta;
  if (!offset.getType().isIndex())
    offset = arith::IndexCastOp::create(b, b.getIndexType(), offset);
  return arith::AddIOp::create(b, offset, delta);
}

/// `offset` (index or integer, may be null) minus `delta` (index), as index.
static Value subIndex(ImplicitLocOpBuilder &b, Value offset, Value delta) {
  if (!offset)
    offset = arith::ConstantIndexOp::create(b, 0);
  else if (!offset.getType().isIndex())
    offset = arith::IndexCastOp::create(b, b.getIndexType(), offset);
  return arith::SubIOp::create(b, offset, delta);
}

/// The local size of dimension `dim` of `type` under sharding `s`.
static int64_t localDim(Operation *op, Type type, int64_t dim,
                        const Sharding &s, SymbolTableCollection &symbolTable) {
  shard::GridOp grid = shard::getGrid(op, s.getGridAttr(), symbolTable);
  return cast<RankedTensorType>(shard::shardType(type, grid, s))
      .getDimSize(dim);
}

/// Clones `op` onto its partitioned operands with the local result types
/// (the upstream helper) and returns the clone.
static Operation *cloneLocal(Operation *op, ArrayRef<Value> operands,
                             ArrayRef<Sharding> operandShardings,
                             ArrayRef<Sharding> resultShardings, IRMapping &map,
                             SymbolTableCollection &symbolTable,
                             OpBuilder &builder) {
  shard::partitionTriviallyShardableOperation(*op, operands, operandShardings,
                                              resultShardings, map, symbolTable,
                                              builder);
  return map.lookup(op->getResult(0)).getDefiningOp();
}

/// True when operand `range` of an op (an ODS operand group, possibly
/// optional) is the op's operand number `n`. (Operands are told apart by
/// position: one value may be passed as two operands.)
static bool isOperand(MutableOperandRange range, unsigned n) {
  return range.size() == 1 && range[0].getOperandNumber() == n;
}

/// A map of `numLoops` loops onto the given loops.
static AffineMap loopsMap(MLIRContext *ctx, unsigned numLoops,
                          ArrayRef<unsigned> loops) {
  return AffineMap::getMultiDimMapWithTargets(numLoops, loops, ctx);
}

/// A map of a tensor all of whose dimensions go to the private loop (never
/// split), or the empty map of a scalar.
static AffineMap privateMap(MLIRContext *ctx, unsigned numLoops,
                            unsigned privateLoop, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return AffineMap::get(numLoops, 0, {}, ctx);
  SmallVector<unsigned> loops(tensor.getRank(), privateLoop);
  return loopsMap(ctx, numLoops, loops);
}

/// The slope table of `heads` heads for `maxBias`, as an f64 constant.
static Value slopeTable(ImplicitLocOpBuilder &b, int64_t heads,
                        double maxBias) {
  std::vector<double> slopes = formula::alibiSlopes(heads, maxBias);
  auto type = RankedTensorType::get({heads}, b.getF64Type());
  return arith::ConstantOp::create(
      b, DenseElementsAttr::get(type, ArrayRef<double>(slopes)));
}

/// The rows [start, start + size) of a 1-D table.
static Value sliceTable(ImplicitLocOpBuilder &b, Value table, Value start,
                        int64_t size) {
  SmallVector<OpFoldResult> offsets = {start}, sizes = {b.getIndexAttr(size)},
                            strides = {b.getIndexAttr(1)};
  return tensor::ExtractSliceOp::create(b, table, offsets, sizes, strides);
}

/// The default annotation of an op's operands and results, restricted to
/// its tensors: the upstream default also annotates scalar operands (an
/// offset, an attention scaling) with a sharding without a grid.
static LogicalResult addTensorShardingAnnotations(Operation *op, OpBuilder &b,
                                                  const ShardingOption &opt) {
  FailureOr<std::vector<Sharding>> shardings =
      cast<shard::ShardingInterface>(op).getShardingAnnotations(opt);
  if (failed(shardings))
    return failure();
  unsigned numOperands = op->getNumOperands();
  for (OpResult r : op->getResults())
    if (isa<RankedTensorType>(r.getType()))
      shard::maybeInsertTargetShardingAnnotation(
          (*shardings)[numOperands + r.getResultNumber()], r, b);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    OpBuilder::InsertionGuard guard(b);
    shard::maybeInsertSourceShardingAnnotation(
        (*shardings)[operand.getOperandNumber()], operand, b);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// pe.rope, pe.add_sinusoidal, pe.add_learned
//===----------------------------------------------------------------------===//

namespace {
/// Loops: the input's dimensions, then one private loop for the frequency
/// tables, caches and learned tables.
template <typename OpTy>
struct SequenceOpSharding
    : public shard::ShardingInterface::ExternalModel<SequenceOpSharding<OpTy>,
                                                     OpTy> {
  static int64_t rankOf(OpTy op) { return op.getInput().getType().getRank(); }
  static int64_t seqDimOf(OpTy op) {
    if constexpr (std::is_same_v<OpTy, RopeOp>)
      return op.getSequenceDimOrDefault();
    return rankOf(op) - 2;
  }
  static bool perTokenCaches(OpTy op) {
    if constexpr (std::is_same_v<OpTy, RopeOp>)
      return op.hasPerTokenCaches();
    return false;
  }
  /// True when operand `number` is a per-token [B, T, R/2] cos/sin cache.
  static bool isPerTokenCache(OpTy op, unsigned number) {
    if constexpr (std::is_same_v<OpTy, RopeOp>)
      return op.hasPerTokenCaches() &&
             (isOperand(op.getCosCacheMutable(), number) ||
              isOperand(op.getSinCacheMutable(), number));
    return false;
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(rankOf(cast<OpTy>(op)) + 1,
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto seqOp = cast<OpTy>(op);
    MLIRContext *ctx = op->getContext();
    unsigned r = rankOf(seqOp), n = r + 1, priv = r;
    unsigned seq = seqDimOf(seqOp);
    AffineMap identity =
        loopsMap(ctx, n, llvm::to_vector(llvm::seq<unsigned>(0, r)));
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      unsigned number = operand.getOperandNumber();
      if (seqOp.getInputMutable().getOperandNumber() == number) {
        maps.push_back(identity);
      } else if (isOperand(seqOp.getPositionsMutable(), number)) {
        auto posType = cast<RankedTensorType>(v.getType());
        maps.push_back(posType.getRank() == 2 ? loopsMap(ctx, n, {0, seq})
                                              : loopsMap(ctx, n, {seq}));
      } else if (isPerTokenCache(seqOp, number)) {
        // [B, T, R/2]: one row per token.
        maps.push_back(loopsMap(ctx, n, {0, seq, priv}));
      } else {
        maps.push_back(privateMap(ctx, n, priv, v.getType()));
      }
    }
    maps.push_back(identity);
    return maps;
  }

  static std::optional<std::string> refusal(Operation *op, shard::GridOp grid,
                                            shard::ShardingArrayRef loops) {
    auto seqOp = cast<OpTy>(op);
    int64_t r = rankOf(seqOp);
    // The channels are never split: a rotation pairs channels, and the
    // sinusoidal frequencies depend on the channel count.
    if (!loopAxes(loops, r - 1).empty())
      return std::string("the channel dimension is never split");
    if (!loopAxes(loops, r).empty())
      return std::string("frequency, cache and learned tables are not split "
                         "along their rows or channels");
    return unevenSplit(grid, loops, seqOp.getInput().getType().getShape());
  }

  FailureOr<ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    return getCheckedShardingOption<SequenceOpSharding>(op, operandShardings,
                                                        resultShardings);
  }

  LogicalResult addShardingAnnotations(Operation *op, OpBuilder &b,
                                       const ShardingOption &opt) const {
    return addTensorShardingAnnotations(op, b, opt);
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> operands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &map,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkPartition<SequenceOpSharding>(
            op, operandShardings, resultShardings, symbolTable)))
      return failure();
    auto seqOp = cast<OpTy>(op);
    Sharding rs = resultShardings[0];
    int64_t seq = seqDimOf(seqOp);
    auto local =
        cast<OpTy>(cloneLocal(op, operands, operandShardings, resultShardings,
                              map, symbolTable, builder));
    ArrayRef<GridAxis> seqAxes = axesOf(rs, seq);
    // Explicit positions and per-token caches are split with the tokens;
    // implicit positions start at the shard's first global token.
    if (seqAxes.empty() || seqOp.getPositions() || perTokenCaches(seqOp))
      return success();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(local);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    int64_t localSize =
        localDim(op, seqOp.getInput().getType(), seq, rs, symbolTable);
    Value start = shardStart(b, rs.getGrid(), seqAxes, localSize);
    local.getOffsetMutable().assign(addIndex(b, local.getOffset(), start));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.alibi_bias
//===----------------------------------------------------------------------===//

/// Loops (h, i, j): the result's dimensions; the slopes follow h.
struct AlibiBiasSharding
    : public shard::ShardingInterface::ExternalModel<AlibiBiasSharding,
                                                     AlibiBiasOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    return SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *ctx = op->getContext();
    SmallVector<AffineMap> maps;
    for (Value v : op->getOperands())
      maps.push_back(isa<RankedTensorType>(v.getType())
                         ? loopsMap(ctx, 3, {0})
                         : AffineMap::get(3, 0, {}, ctx));
    maps.push_back(AffineMap::getMultiDimIdentityMap(3, ctx));
    return maps;
  }

  static std::optional<std::string> refusal(Operation *op, shard::GridOp grid,
                                            shard::ShardingArrayRef loops) {
    auto alibi = cast<AlibiBiasOp>(op);
    // `key` (b = j) has no key offset to shift.
    if (!loopAxes(loops, 2).empty() &&
        alibi.getDistance() == AlibiDistance::Key)
      return std::string("the key columns of the `key` distance are not "
                         "split (it has no key offset)");
    // Split dimensions are static (the local sizes are operands otherwise).
    return unevenSplit(grid, loops, alibi.getType().getShape());
  }

  FailureOr<ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    return getCheckedShardingOption<AlibiBiasSharding>(op, operandShardings,
                                                       resultShardings);
  }

  LogicalResult addShardingAnnotations(Operation *op, OpBuilder &b,
                                       const ShardingOption &opt) const {
    return addTensorShardingAnnotations(op, b, opt);
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> operands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &map,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkPartition<AlibiBiasSharding>(op, operandShardings,
                                                 resultShardings, symbolTable)))
      return failure();
    auto alibi = cast<AlibiBiasOp>(op);
    auto type = alibi.getType();
    Sharding rs = resultShardings[0];
    auto local = cast<AlibiBiasOp>(cloneLocal(op, operands, operandShardings,
                                              resultShardings, map, symbolTable,
                                              builder));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(local);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    // Heads: the slopes of the global heads (an explicit table is split by
    // its indexing map).
    if (ArrayRef<GridAxis> axes = axesOf(rs, 0);
        !axes.empty() && !alibi.getSlopes()) {
      int64_t heads = localDim(op, type, 0, rs, symbolTable);
      Value table = slopeTable(b, type.getDimSize(0),
                               alibi.getMaxBias().convertToDouble());
      Value start = shardStart(b, rs.getGrid(), axes, heads);
      local.getSlopesMutable().assign(sliceTable(b, table, start, heads));
    }
    // Query rows: the queries' positions start later.
    Value offset = local.getOffset();
    bool changed = false;
    if (ArrayRef<GridAxis> axes = axesOf(rs, 1); !axes.empty()) {
      offset = addIndex(b, offset,
                        shardStart(b, rs.getGrid(), axes,
                                   localDim(op, type, 1, rs, symbolTable)));
      changed = true;
    }
    // Key columns: both distances depend on q - j only, so a block of keys
    // starting at k0 is the bias with the query offset lowered by k0.
    if (ArrayRef<GridAxis> axes = axesOf(rs, 2); !axes.empty()) {
      offset = subIndex(b, offset,
                        shardStart(b, rs.getGrid(), axes,
                                   localDim(op, type, 2, rs, symbolTable)));
      changed = true;
    }
    if (changed)
      local.getOffsetMutable().assign(offset);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

/// Loops (b, h, i, j, d, e, p): batch, query head, query row, key, the
/// query/key channels, the value channels, and a private loop. Key and value
/// heads are mapped to h: splitting the query heads into n equal blocks
/// splits the KV heads into n equal blocks of the same groups when n divides
/// the KV head count (checked), which is the GQA-consistent split. A single
/// KV head (MQA) is replicated instead.
struct AttentionSharding
    : public shard::ShardingInterface::ExternalModel<AttentionSharding,
                                                     AttentionOp> {
  enum Loop : unsigned { B, H, I, J, D, E, P, NumLoops };

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    using IT = utils::IteratorType;
    return {IT::parallel,  IT::parallel, IT::parallel, IT::reduction,
            IT::reduction, IT::parallel, IT::parallel};
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *) const {
    // The key loop is a softmax (combined through max and sums), the channel
    // loop a sum.
    return {shard::ReductionKind::Generic, shard::ReductionKind::Sum};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto att = cast<AttentionOp>(op);
    MLIRContext *ctx = op->getContext();
    SmallVector<int64_t> perm = att.getOperandPermutation();
    // (batch, head, token, channel) loops in the operands' layout.
    auto layoutMap = [&](unsigned head, unsigned token, unsigned channel) {
      SmallVector<unsigned> meaning = {B, head, token, channel}, loops;
      for (int64_t p = 0; p < 4; ++p)
        loops.push_back(meaning[perm[p]]);
      return loopsMap(ctx, NumLoops, loops);
    };
    // Bias and mask broadcast to [B, H, Tq, Tk]; unit dimensions are private.
    auto scoresMap = [&](Value v) {
      auto type = cast<RankedTensorType>(v.getType());
      int64_t rank = type.getRank();
      SmallVector<unsigned> loops;
      for (int64_t d = 0; d < rank; ++d)
        loops.push_back(type.getDimSize(d) == 1 ? unsigned(P)
                                                : unsigned(4 - rank + d));
      return loopsMap(ctx, NumLoops, loops);
    };
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      unsigned n = operand.getOperandNumber();
      if (n == 0)
        maps.push_back(layoutMap(H, I, D));
      else if (n == 1)
        maps.push_back(layoutMap(kvHeadLoop(att), J, D));
      else if (n == 2)
        maps.push_back(layoutMap(kvHeadLoop(att), J, E));
      else if (isOperand(att.getBiasMutable(), n) ||
               isOperand(att.getMaskMutable(), n))
        maps.push_back(scoresMap(v));
      else if (isOperand(att.getKvLengthsMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {B}));
      // RoPE positions [T] or [B, T] follow their tokens (and the batch).
      else if (isOperand(att.getQueryPositionsMutable(), n) ||
               isOperand(att.getKeyPositionsMutable(), n)) {
        unsigned token =
            isOperand(att.getQueryPositionsMutable(), n) ? unsigned(I) : J;
        if (cast<RankedTensorType>(v.getType()).getRank() == 1)
          maps.push_back(loopsMap(ctx, NumLoops, {token}));
        else
          maps.push_back(loopsMap(ctx, NumLoops, {B, token}));
      } else if (isOperand(att.getAlibiSlopesMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {H}));
      // The destinations are indexed like the results they are tied to.
      else if (isOperand(att.getOutInitMutable(), n))
        maps.push_back(layoutMap(H, I, E));
      else if (isOperand(att.getLseInitMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {B, H, I}));
      else
        maps.push_back(privateMap(ctx, NumLoops, P, v.getType()));
    }
    maps.push_back(layoutMap(H, I, E));
    if (att.getLse())
      maps.push_back(loopsMap(ctx, NumLoops, {B, H, I}));
    return maps;
  }

  /// The loop of the key/value heads: the query heads' (their blocks are
  /// split together), or, with a single KV head (MQA) under several query
  /// heads, the private loop: every block of query heads reads that head.
  static unsigned kvHeadLoop(AttentionOp att) {
    SmallVector<int64_t> perm = att.getOperandPermutation();
    int64_t kvHeads = att.getKey().getType().getDimSize(perm[1]);
    int64_t heads = att.getQuery().getType().getDimSize(perm[1]);
    return kvHeads == 1 && heads != 1 ? unsigned(P) : unsigned(H);
  }

  /// Extents of the loops (kDynamic when unknown).
  static SmallVector<int64_t> loopExtents(AttentionOp att) {
    SmallVector<int64_t> perm = att.getOperandPermutation();
    auto q = att.getQuery().getType(), k = att.getKey().getType(),
         v = att.getValue().getType();
    return {q.getDimSize(perm[0]), q.getDimSize(perm[1]), q.getDimSize(perm[2]),
            k.getDimSize(perm[2]), q.getDimSize(perm[3]), v.getDimSize(perm[3]),
            ShapedType::kDynamic};
  }

  static std::optional<std::string> refusal(Operation *op, shard::GridOp grid,
                                            shard::ShardingArrayRef loops) {
    auto att = cast<AttentionOp>(op);
    // Channels are contracted or rotated whole.
    if (!loopAxes(loops, D).empty() || !loopAxes(loops, E).empty())
      return std::string("the channel dimensions are never split");
    if (!loopAxes(loops, P).empty())
      return std::string("frequency tables and broadcast dimensions of a bias "
                         "or mask are not split");
    if (std::optional<std::string> why =
            unevenSplit(grid, loops, loopExtents(att)))
      return why;
    // Heads: the KV heads must split into the same number of blocks (or be
    // the single head of MQA).
    if (ArrayRef<GridAxis> axes = loopAxes(loops, H);
        !axes.empty() && kvHeadLoop(att) == H) {
      SmallVector<int64_t> perm = att.getOperandPermutation();
      int64_t kvHeads = att.getKey().getType().getDimSize(perm[1]);
      int64_t heads = att.getQuery().getType().getDimSize(perm[1]);
      std::optional<int64_t> n =
          grid ? shardCount(grid, axes) : std::optional<int64_t>();
      std::string why = "a head split must also split the key/value heads "
                        "evenly (GQA groups stay on one process)";
      if (n && !ShapedType::isDynamic(kvHeads) && kvHeads % *n != 0 &&
          !ShapedType::isDynamic(heads))
        why += ": " + std::to_string(heads) + " query heads over " +
               std::to_string(kvHeads) + " key/value heads cannot be split " +
               "over " + std::to_string(*n) +
               " processes; a process count that divides " +
               std::to_string(kvHeads) + " would split them";
      if (!n || ShapedType::isDynamic(kvHeads) || kvHeads % *n != 0)
        return why;
    }
    // Keys: each shard's keys are a contiguous block with a known start. A
    // valid length L becomes L - k0 on the block (clamped by the op), but the
    // bottom-right causal base L - Tq would then use the clamped length.
    if (!loopAxes(loops, J).empty() && att.getKvLengths() && att.getCausal() &&
        att.getCausalAlignment() == CausalAlignment::BottomRight)
      return std::string("the key sequence is not split with kv_lengths "
                         "and bottom-right causal alignment");
    return std::nullopt;
  }

  FailureOr<ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    return getCheckedShardingOption<AttentionSharding>(op, operandShardings,
                                                       resultShardings);
  }

  LogicalResult addShardingAnnotations(Operation *op, OpBuilder &b,
                                       const ShardingOption &opt) const {
    return addTensorShardingAnnotations(op, b, opt);
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> operands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &map,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkPartition<AttentionSharding>(op, operandShardings,
                                                 resultShardings, symbolTable)))
      return failure();
    auto att = cast<AttentionOp>(op);
    SmallVector<int64_t> perm = att.getOperandPermutation();
    Sharding qs = operandShardings[0], ks = operandShardings[1];
    // Loop axes, read off the operands' shardings.
    ArrayRef<GridAxis> headAxes = axesOf(qs, perm[1]);
    ArrayRef<GridAxis> rowAxes = axesOf(qs, perm[2]);
    ArrayRef<GridAxis> keyAxes = axesOf(ks, perm[2]);
    bool splitKeys = !keyAxes.empty();

    // The local op; with split keys it also returns its log-sum-exp.
    AttentionOp local;
    if (!splitKeys || att.getLse()) {
      local = cast<AttentionOp>(cloneLocal(op, operands, operandShardings,
                                           resultShardings, map, symbolTable,
                                           builder));
    } else {
      SmallVector<Type> types;
      for (auto [result, s] : llvm::zip(op->getResults(), resultShardings))
        types.push_back(shard::shardType(
            result.getType(),
            shard::getGridOrNull(op, s.getGridAttr(), symbolTable), s));
      SmallVector<int64_t> rows;
      auto resultType = cast<RankedTensorType>(types[0]);
      rows = {resultType.getDimSize(0), resultType.getDimSize(perm[1]),
              resultType.getDimSize(perm[2])};
      Type computeType = getElementTypeOrSelf(att.getQuery().getType()).isF64()
                             ? builder.getF64Type()
                             : builder.getF32Type();
      types.push_back(RankedTensorType::get(rows, computeType));
      // Its lse destination.
      Value lseInit =
          AttentionOp::buildInits(builder, op->getLoc(), types[0], types[1],
                                  operands[0], operands[2], att.getLayout())
              .back();
      OperationState state(op->getLoc(), op->getName(), operands, types,
                           op->getAttrs());
      local = cast<AttentionOp>(builder.create(state));
      local.setInits(local.getOutInit(), lseInit);
    }

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(local);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    StringRef grid = qs ? qs.getGrid() : ks.getGrid();
    auto qType = att.getQuery().getType(), kType = att.getKey().getType();
    auto lqType = local.getQuery().getType(), lkType = local.getKey().getType();
    int64_t tq = qType.getDimSize(perm[2]), tk = kType.getDimSize(perm[2]);
    int64_t ltq = lqType.getDimSize(perm[2]), ltk = lkType.getDimSize(perm[2]);
    Value rowStart =
        rowAxes.empty() ? Value() : shardStart(b, grid, rowAxes, ltq);
    Value keyStart =
        keyAxes.empty() ? Value() : shardStart(b, grid, keyAxes, ltk);

    // Heads: the global heads' ALiBi slopes.
    if (!headAxes.empty() && att.getAlibiAttr() && !att.getAlibiSlopes()) {
      int64_t heads = lqType.getDimSize(perm[1]);
      Value table =
          slopeTable(b, qType.getDimSize(perm[1]),
                     att.getAlibiAttr().getMaxBias().convertToDouble());
      Value start = shardStart(b, grid, headAxes, heads);
      local.getAlibiSlopesMutable().assign(sliceTable(b, table, start, heads));
    }
    // RoPE positions of the query and key blocks (positions tensors are
    // split with their tokens).
    if (att.getRopeAttr()) {
      if (rowStart && !att.getQueryPositions())
        local.getQueryOffsetMutable().assign(
            addIndex(b, local.getQueryOffset(), rowStart));
      if (keyStart && att.rotatesKey() && !att.getKeyPositions())
        local.getKeyOffsetMutable().assign(
            addIndex(b, local.getKeyOffset(), keyStart));
    }
    // Valid key lengths: the block's keys are valid up to L - k0 (the op
    // clamps it to the block).
    if (keyStart && att.getKvLengths())
      local.getKvLengthsMutable().assign(
          shiftLengths(b, local.getKvLengths(), keyStart));
    // ALiBi: the distance of query ao + i to key j, with both blocks moved.
    if (att.getAlibiAttr() && (rowStart || keyStart)) {
      Value offset = local.getAlibiOffset();
      if (rowStart)
        offset = addIndex(b, offset, rowStart);
      if (keyStart)
        offset = subIndex(b, offset, keyStart);
      local.getAlibiOffsetMutable().assign(offset);
    }
    // Causal (and window): key j is allowed for query i when
    // j <= i + base + c, base = 0 (top-left) or Tk - Tq (bottom-right). For
    // the blocks [r0, r0 + tq') x [k0, k0 + tk'), the local op's base is
    // computed from its local sizes, so
    //   c' = c + r0 - k0 + (base(Tk, Tq) - base(tk', tq')).
    if (att.getCausal() && (rowStart || keyStart)) {
      Value shift = arith::ConstantIndexOp::create(
          b, att.getCausalAlignment() == CausalAlignment::BottomRight
                 ? (tk - tq) - (ltk - ltq)
                 : 0);
      if (rowStart)
        shift = arith::AddIOp::create(b, shift, rowStart);
      if (keyStart)
        shift = arith::SubIOp::create(b, shift, keyStart);
      local.getCausalOffsetMutable().assign(
          addIndex(b, local.getCausalOffset(), shift));
    }

    if (!splitKeys)
      return success();
    builder.setInsertionPointAfter(local);
    b.setInsertionPointAfter(local);
    Value lse = local.getLse();
    // The `key` distance (b = j) of key k0 + j is the block's plus k0: every
    // score of a row of head h grows by m_h k0, which softmax ignores within
    // the block but the combination needs: the block's lse grows by m_h k0.
    if (att.getAlibiAttr() &&
        att.getAlibiAttr().getDistance() == AlibiDistance::Key) {
      Value slopes = local.getAlibiSlopes();
      if (!slopes)
        slopes = slopeTable(b, qType.getDimSize(perm[1]),
                            att.getAlibiAttr().getMaxBias().convertToDouble());
      lse = shiftRows(b, lse, slopes, keyStart);
    }
    auto [out, combinedLse] = combineKeyShards(b, local.getResult(), lse, grid,
                                               keyAxes, att.getLayout());
    map.map(op->getResult(0), out);
    if (att.getLse())
      map.map(op->getResult(1), combinedLse);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    return success();
  }

  /// `lengths - start` elementwise (a 1-D i32 or i64 tensor).
  static Value shiftLengths(ImplicitLocOpBuilder &b, Value lengths,
                            Value start) {
    auto type = cast<RankedTensorType>(lengths.getType());
    Type et = type.getElementType();
    Value delta = arith::IndexCastOp::create(b, et, start);
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, b.getContext());
    Value init = tensor::EmptyOp::create(b, type.getShape(), et);
    return linalg::GenericOp::create(
               b, TypeRange{type}, ValueRange{lengths}, ValueRange{init},
               ArrayRef<AffineMap>{id, id},
               ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
               [&](OpBuilder &nb, Location loc, ValueRange args) {
                 Value r = arith::SubIOp::create(nb, loc, args[0], delta);
                 linalg::YieldOp::create(nb, loc, r);
               })
        .getResult(0);
  }

  /// lse[b, h, i] + slopes[h] * start, in the type of `lse`.
  static Value shiftRows(ImplicitLocOpBuilder &b, Value lse, Value slopes,
                         Value start) {
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(lse.getType());
    auto ct = cast<FloatType>(type.getElementType());
    Value k0 = arith::SIToFPOp::create(
        b, ct, arith::IndexCastOp::create(b, b.getI64Type(), start));
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    Value init = tensor::EmptyOp::create(b, type.getShape(), ct);
    return linalg::GenericOp::create(
               b, TypeRange{type}, ValueRange{lse, slopes}, ValueRange{init},
               ArrayRef<AffineMap>{id3, loopsMap(ctx, 3, {1}), id3},
               SmallVector<utils::IteratorType>(3,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location loc, ValueRange args) {
                 Value m = args[1];
                 if (m.getType() != ct)
                   m = cast<FloatType>(m.getType()).getWidth() > ct.getWidth()
                           ? Value(arith::TruncFOp::create(nb, loc, ct, m))
                           : Value(arith::ExtFOp::create(nb, loc, ct, m));
                 Value shift = arith::MulFOp::create(nb, loc, m, k0);
                 Value r = arith::AddFOp::create(nb, loc, args[0], shift);
                 linalg::YieldOp::create(nb, loc, r);
               })
        .getResult(0);
  }

  /// The exact combination of the per-shard attention outputs `o_s` and
  /// log-sum-exps `l_s` of the shards along `axes`:
  ///   m = max_s l_s, w_s = exp(l_s - m) (0 for a shard with no allowed key),
  ///   out = sum_s w_s o_s / sum_s w_s (0 where no shard has an allowed key),
  ///   lse = m + log(sum_s w_s).
  static std::pair<Value, Value>
  combineKeyShards(ImplicitLocOpBuilder &b, Value o, Value l, StringRef grid,
                   ArrayRef<GridAxis> axes, AttentionLayout layout) {
    MLIRContext *ctx = b.getContext();
    auto oType = cast<RankedTensorType>(o.getType());
    auto lType = cast<RankedTensorType>(l.getType());
    auto ct = cast<FloatType>(lType.getElementType());
    Type et = oType.getElementType();
    auto par3 =
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel);
    auto par4 =
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel);
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    // The lse [B, H, Tq] element of a result element, in the layout.
    AffineMap rowOf = layout == AttentionLayout::BSHD
                          ? loopsMap(ctx, 4, {0, 2, 1})
                          : loopsMap(ctx, 4, {0, 1, 2});
    auto zero = [&](OpBuilder &nb, Location loc, Type t) -> Value {
      return arith::ConstantOp::create(nb, loc, t, nb.getFloatAttr(t, 0.0));
    };

    Value m =
        shard::AllReduceOp::create(b, l, grid, axes, shard::ReductionKind::Max);
    Value wInit = tensor::EmptyOp::create(b, lType.getShape(), ct);
    Value w = linalg::GenericOp::create(
                  b, TypeRange{lType}, ValueRange{l, m}, ValueRange{wInit},
                  ArrayRef<AffineMap>{id3, id3, id3}, par3,
                  [&](OpBuilder &nb, Location loc, ValueRange args) {
                    Value ninf = arith::ConstantOp::create(
                        nb, loc, ct,
                        nb.getFloatAttr(
                            ct, -std::numeric_limits<double>::infinity()));
                    Value empty = arith::CmpFOp::create(
                        nb, loc, arith::CmpFPredicate::OEQ, args[0], ninf);
                    Value d = arith::SubFOp::create(nb, loc, args[0], args[1]);
                    Value e = math::ExpOp::create(nb, loc, d);
                    Value r = arith::SelectOp::create(nb, loc, empty,
                                                      zero(nb, loc, ct), e);
                    linalg::YieldOp::create(nb, loc, r);
                  })
                  .getResult(0);
    auto wideType = RankedTensorType::get(oType.getShape(), ct);
    Value wideInit = tensor::EmptyOp::create(b, oType.getShape(), ct);
    Value weighted =
        linalg::GenericOp::create(
            b, TypeRange{wideType}, ValueRange{o, w}, ValueRange{wideInit},
            ArrayRef<AffineMap>{id4, rowOf, id4}, par4,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value x = args[0];
              if (x.getType() != ct)
                x = arith::ExtFOp::create(nb, loc, ct, x);
              Value r = arith::MulFOp::create(nb, loc, x, args[1]);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    Value num = shard::AllReduceOp::create(b, weighted, grid, axes,
                                           shard::ReductionKind::Sum);
    Value den =
        shard::AllReduceOp::create(b, w, grid, axes, shard::ReductionKind::Sum);
    Value outInit = tensor::EmptyOp::create(b, oType.getShape(), et);
    Value out =
        linalg::GenericOp::create(
            b, TypeRange{oType}, ValueRange{num, den}, ValueRange{outInit},
            ArrayRef<AffineMap>{id4, rowOf, id4}, par4,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value z = zero(nb, loc, ct);
              Value any = arith::CmpFOp::create(
                  nb, loc, arith::CmpFPredicate::OGT, args[1], z);
              Value q = arith::DivFOp::create(nb, loc, args[0], args[1]);
              Value r = arith::SelectOp::create(nb, loc, any, q, z);
              if (r.getType() != et)
                r = arith::TruncFOp::create(nb, loc, et, r);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    Value lseInit = tensor::EmptyOp::create(b, lType.getShape(), ct);
    Value lse =
        linalg::GenericOp::create(
            b, TypeRange{lType}, ValueRange{m, den}, ValueRange{lseInit},
            ArrayRef<AffineMap>{id3, id3, id3}, par3,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value lg = math::LogOp::create(nb, loc, args[1]);
              Value r = arith::AddFOp::create(nb, loc, args[0], lg);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    return {out, lse};
  }
};

//===----------------------------------------------------------------------===//
// Frequency ops
//===----------------------------------------------------------------------===//

/// The frequency ops have no tensor operands and produce a small table and a
/// scalar: they are computed whole on every shard.
template <typename OpTy>
struct ReplicatedFrequencySharding
    : public shard::ShardingInterface::ExternalModel<
          ReplicatedFrequencySharding<OpTy>, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    return {utils::IteratorType::parallel};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *ctx = op->getContext();
    SmallVector<AffineMap> maps(op->getNumOperands(),
                                AffineMap::get(1, 0, {}, ctx));
    for (Value v : op->getResults())
      maps.push_back(privateMap(ctx, 1, 0, v.getType()));
    return maps;
  }

  FailureOr<ShardingOption>
  getShardingOption(Operation *, ArrayRef<Sharding>,
                    ArrayRef<Sharding> resultShardings) const {
    for (const Sharding &s : resultShardings) {
      if (!s)
        continue;
      if (!shard::isFullReplication(s))
        return failure();
      return ShardingOption(shard::ShardingArray{}, s.getGridAttr());
    }
    return ShardingOption::makeEmpty();
  }

  FailureOr<std::vector<Sharding>>
  getShardingAnnotations(Operation *op, const ShardingOption &opt) const {
    std::vector<Sharding> shardings(op->getNumOperands(), Sharding());
    for (Value v : op->getResults())
      shardings.push_back(isa<RankedTensorType>(v.getType())
                              ? Sharding::get(opt.grid, {})
                              : Sharding());
    return shardings;
  }

  LogicalResult addShardingAnnotations(Operation *op, OpBuilder &b,
                                       const ShardingOption &opt) const {
    for (OpResult r : op->getResults())
      if (isa<RankedTensorType>(r.getType()))
        shard::maybeInsertTargetShardingAnnotation(Sharding::get(opt.grid, {}),
                                                   r, b);
    return success();
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> operands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings, IRMapping &map,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    shard::partitionFullyReplicatedOperation(*op, operands, operandShardings,
                                             resultShardings, map, symbolTable,
                                             builder);
    return success();
  }
};
} // namespace

/// Attaches the replicated model to each of `OpTys` that is a frequency op
/// (FrequencyOpInterface), so that a new frequency op needs no entry here.
template <typename OpTy> static void attachIfFrequencyOp(MLIRContext *ctx) {
  if constexpr (OpTy::template hasTrait<FrequencyOpInterface::Trait>())
    OpTy::template attachInterface<ReplicatedFrequencySharding<OpTy>>(*ctx);
}
template <typename... OpTys>
static void attachFrequencyModels(MLIRContext *ctx) {
  (attachIfFrequencyOp<OpTys>(ctx), ...);
}

void mlir::pe::registerShardingInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, PEDialect *) {
    // What the partitioned ops build.
    ctx->loadDialect<shard::ShardDialect, arith::ArithDialect,
                     linalg::LinalgDialect, math::MathDialect,
                     tensor::TensorDialect>();
    RopeOp::attachInterface<SequenceOpSharding<RopeOp>>(*ctx);
    AddSinusoidalOp::attachInterface<SequenceOpSharding<AddSinusoidalOp>>(*ctx);
    AddLearnedOp::attachInterface<SequenceOpSharding<AddLearnedOp>>(*ctx);
    AlibiBiasOp::attachInterface<AlibiBiasSharding>(*ctx);
    AttentionOp::attachInterface<AttentionSharding>(*ctx);
    attachFrequencyModels<
#define GET_OP_LIST
#include "pe/Dialect/PE/IR/PEOps.cpp.inc"
        >(ctx);
  });
}
