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
// This file holds the helpers the models share (ShardingUtils.h), the
// replicated model of the frequency ops and the registration; the models of
// the encoding ops are in EncodingSharding.cpp, pe.attention's in
// AttentionSharding.cpp.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/ShardingInterfaceImpl.h"
#include "ShardingUtils.h"
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
using namespace mlir::pe::sharding;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

ArrayRef<GridAxis> pe::sharding::axesOf(const Sharding &s, int64_t dim) {
  if (!s || dim >= static_cast<int64_t>(s.getSplitAxes().size()))
    return {};
  return s.getSplitAxes()[dim].asArrayRef();
}

ArrayRef<GridAxis> pe::sharding::loopAxes(shard::ShardingArrayRef loops,
                                          unsigned loop) {
  if (loop >= loops.size())
    return {};
  return loops[loop];
}

std::optional<int64_t> pe::sharding::shardCount(shard::GridOp grid,
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

std::optional<std::string>
pe::sharding::unevenSplit(shard::GridOp grid, shard::ShardingArrayRef loops,
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

FailureOr<ShardingOption> pe::sharding::getCheckedShardingOption(
    Operation *op, ArrayRef<Sharding> operandShardings,
    ArrayRef<Sharding> resultShardings, ShardingRefusal refusal) {
  FailureOr<ShardingOption> opt = shard::detail::defaultGetShardingOption(
      op, operandShardings, resultShardings);
  if (failed(opt) || opt->empty)
    return opt;
  SymbolTableCollection symbolTable;
  shard::GridOp grid = shard::getGridOrNull(op, opt->grid, symbolTable);
  std::optional<std::string> why = refusal(op, grid, opt->shardingArray);
  if (!why)
    return opt;
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] " << op->getName()
                          << ": dropping a split: " << *why << "\n");
  for (size_t loop = 0; loop < opt->shardingArray.size(); ++loop) {
    if (opt->shardingArray[loop].empty())
      continue;
    ShardingOption fewer = *opt;
    fewer.shardingArray[loop].clear();
    if (!refusal(op, grid, fewer.shardingArray))
      return fewer;
  }
  return ShardingOption(shard::ShardingArray(), opt->grid);
}

/// Why `op` does not support the split that these operand and result
/// shardings give its loops (nullopt when it does).
static std::optional<std::string>
refusalFor(Operation *op, ArrayRef<Sharding> operandShardings,
           ArrayRef<Sharding> resultShardings,
           SymbolTableCollection &symbolTable, ShardingRefusal refusal) {
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
  return refusal(op, grid, loops);
}

LogicalResult pe::sharding::checkPartition(Operation *op,
                                           ArrayRef<Sharding> operandShardings,
                                           ArrayRef<Sharding> resultShardings,
                                           SymbolTableCollection &symbolTable,
                                           ShardingRefusal refusal) {
  if (std::optional<std::string> why = refusalFor(
          op, operandShardings, resultShardings, symbolTable, refusal))
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
          refusalFor(op, operands, results, symbolTable, refusal))
    emitMissedRemark(op, DEBUG_TYPE, "split-dropped",
                     *why + "; the op computes on resharded (gathered or "
                            "whole) values instead");
  return success();
}

Value pe::sharding::shardStart(ImplicitLocOpBuilder &b, StringRef grid,
                               ArrayRef<GridAxis> axes, int64_t localSize) {
  Value idx = shard::createProcessLinearIndex(grid, axes, b);
  Value len = arith::ConstantIndexOp::create(b, localSize);
  return arith::MulIOp::create(b, idx, len);
}

Value pe::sharding::addIndex(ImplicitLocOpBuilder &b, Value offset,
                             Value delta) {
  if (!offset)
    return delta;
  if (!offset.getType().isIndex())
    offset = arith::IndexCastOp::create(b, b.getIndexType(), offset);
  return arith::AddIOp::create(b, offset, delta);
}

Value pe::sharding::subIndex(ImplicitLocOpBuilder &b, Value offset,
                             Value delta) {
  if (!offset)
    offset = arith::ConstantIndexOp::create(b, 0);
  else if (!offset.getType().isIndex())
    offset = arith::IndexCastOp::create(b, b.getIndexType(), offset);
  return arith::SubIOp::create(b, offset, delta);
}

int64_t pe::sharding::localDim(Operation *op, Type type, int64_t dim,
                               const Sharding &s,
                               SymbolTableCollection &symbolTable) {
  shard::GridOp grid = shard::getGrid(op, s.getGridAttr(), symbolTable);
  return cast<RankedTensorType>(shard::shardType(type, grid, s))
      .getDimSize(dim);
}

Operation *pe::sharding::cloneLocal(Operation *op, ArrayRef<Value> operands,
                                    ArrayRef<Sharding> operandShardings,
                                    ArrayRef<Sharding> resultShardings,
                                    IRMapping &map,
                                    SymbolTableCollection &symbolTable,
                                    OpBuilder &builder) {
  shard::partitionTriviallyShardableOperation(*op, operands, operandShardings,
                                              resultShardings, map, symbolTable,
                                              builder);
  return map.lookup(op->getResult(0)).getDefiningOp();
}

bool pe::sharding::isOperand(MutableOperandRange range, unsigned n) {
  return range.size() == 1 && range[0].getOperandNumber() == n;
}

AffineMap pe::sharding::loopsMap(MLIRContext *ctx, unsigned numLoops,
                                 ArrayRef<unsigned> loops) {
  return AffineMap::getMultiDimMapWithTargets(numLoops, loops, ctx);
}

AffineMap pe::sharding::privateMap(MLIRContext *ctx, unsigned numLoops,
                                   unsigned privateLoop, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return AffineMap::get(numLoops, 0, {}, ctx);
  SmallVector<unsigned> loops(tensor.getRank(), privateLoop);
  return loopsMap(ctx, numLoops, loops);
}

Value pe::sharding::slopeTable(ImplicitLocOpBuilder &b, int64_t heads,
                               double maxBias) {
  std::vector<double> slopes = formula::alibiSlopes(heads, maxBias);
  auto type = RankedTensorType::get({heads}, b.getF64Type());
  return arith::ConstantOp::create(
      b, DenseElementsAttr::get(type, ArrayRef<double>(slopes)));
}

Value pe::sharding::sliceTable(ImplicitLocOpBuilder &b, Value table,
                               Value start, int64_t size) {
  SmallVector<OpFoldResult> offsets = {start}, sizes = {b.getIndexAttr(size)},
                            strides = {b.getIndexAttr(1)};
  return tensor::ExtractSliceOp::create(b, table, offsets, sizes, strides);
}

LogicalResult
pe::sharding::addTensorShardingAnnotations(Operation *op, OpBuilder &b,
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
// Frequency ops
//===----------------------------------------------------------------------===//

/// The frequency ops have no tensor operands and produce a small table and a
/// scalar: they are computed whole on every shard.
namespace {
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
    attachEncodingShardingModels(ctx);
    attachAttentionShardingModel(ctx);
    attachFrequencyModels<
#define GET_OP_LIST
#include "pe/Dialect/PE/IR/PEOps.cpp.inc"
        >(ctx);
  });
}
