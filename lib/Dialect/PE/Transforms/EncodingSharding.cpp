//===- EncodingSharding.cpp - ShardingInterface of the encoding ops -------===//
//
// Part of the pe-mlir project.
//
// The ShardingInterface models of pe.rope, pe.add_sinusoidal, pe.add_learned
// (any dimension but the channels; a split sequence shifts the positions)
// and pe.alibi_bias (heads, query rows and, for the symmetric and signed
// distances, key columns). ShardingInterfaceImpl.cpp describes the approach.
//
//===----------------------------------------------------------------------===//

#include "ShardingUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::sharding;

//===----------------------------------------------------------------------===//
// pe.rope, pe.add_sinusoidal, pe.add_learned
//===----------------------------------------------------------------------===//

namespace {
/// Loops: the input's dimensions, then one private loop for the frequency
/// tables, caches and learned tables.
template <typename OpTy>
struct SequenceOpSharding
    : public CheckedShardingModel<SequenceOpSharding<OpTy>, OpTy> {
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

  /// The partition of a split `refusal` accepts (CheckedShardingModel).
  LogicalResult partitionChecked(Operation *op, ArrayRef<Value> operands,
                                 ArrayRef<Sharding> operandShardings,
                                 ArrayRef<Sharding> resultShardings,
                                 IRMapping &map,
                                 SymbolTableCollection &symbolTable,
                                 OpBuilder &builder) const {
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
    : public CheckedShardingModel<AlibiBiasSharding, AlibiBiasOp> {
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

  /// The partition of a split `refusal` accepts (CheckedShardingModel).
  LogicalResult partitionChecked(Operation *op, ArrayRef<Value> operands,
                                 ArrayRef<Sharding> operandShardings,
                                 ArrayRef<Sharding> resultShardings,
                                 IRMapping &map,
                                 SymbolTableCollection &symbolTable,
                                 OpBuilder &builder) const {
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
} // namespace

void pe::sharding::attachEncodingShardingModels(MLIRContext *ctx) {
  RopeOp::attachInterface<SequenceOpSharding<RopeOp>>(*ctx);
  AddSinusoidalOp::attachInterface<SequenceOpSharding<AddSinusoidalOp>>(*ctx);
  AddLearnedOp::attachInterface<SequenceOpSharding<AddLearnedOp>>(*ctx);
  AlibiBiasOp::attachInterface<AlibiBiasSharding>(*ctx);
}
