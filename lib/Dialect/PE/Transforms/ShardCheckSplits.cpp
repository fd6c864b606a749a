//===- ShardCheckSplits.cpp - splits that shard-partition gets wrong ------===//
//
// Part of the pe-mlir project.
//
// MLIR 22's shard-partition divides each split dimension by its number of
// shards without checking the grid or the remainder: a split over an axis
// the grid does not have gives blocks of size 0, and an uneven split blocks
// that drop the remainder. Both are reported here, at the annotation.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"

#define DEBUG_TYPE "pe-shard-check-splits"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_SHARDCHECKSPLITS
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

/// "[0, 1]".
template <typename T> static std::string listString(ArrayRef<T> values) {
  std::string s = "[";
  for (auto [i, v] : llvm::enumerate(values))
    s += (i ? ", " : "") + std::to_string(v);
  return s + "]";
}

/// The grid axes of `sharding` exist on its grid.
static LogicalResult checkAxes(shard::ShardingOp sharding,
                               SymbolTableCollection &symbols) {
  shard::GridOp grid =
      shard::getGridOrNull(sharding, sharding.getGridAttr(), symbols);
  if (!grid)
    return sharding.emitOpError() << "refers to grid " << sharding.getGridAttr()
                                  << ", which does not exist";
  for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes()))
    for (shard::GridAxis axis : axes.asArrayRef())
      if (axis < 0 || axis >= grid.getRank())
        return sharding.emitOpError()
               << "splits dimension " << dim << " over grid axis " << axis
               << ", but grid " << sharding.getGridAttr() << " has "
               << grid.getRank() << (grid.getRank() == 1 ? " axis" : " axes")
               << " (shape " << listString(grid.getShape()) << ")";
  return success();
}

/// The split dimensions of the tensor `shardOp` annotates exist and divide
/// evenly over their shards.
static LogicalResult checkBlocks(shard::ShardOp shardOp,
                                 SymbolTableCollection &symbols) {
  auto sharding = shardOp.getSharding().getDefiningOp<shard::ShardingOp>();
  auto type = dyn_cast<RankedTensorType>(shardOp.getType());
  if (!sharding || !type)
    return success();
  // Explicit offsets state the blocks (uneven ones included).
  if (!sharding.getStaticShardedDimsOffsets().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty())
    return success();
  shard::GridOp grid =
      shard::getGridOrNull(sharding, sharding.getGridAttr(), symbols);
  if (!grid)
    return success(); // reported by checkAxes
  ArrayRef<shard::GridAxesAttr> split = sharding.getSplitAxes().getAxes();
  for (auto [dim, axesAttr] : llvm::enumerate(split)) {
    ArrayRef<shard::GridAxis> axes = axesAttr.asArrayRef();
    if (axes.empty())
      continue;
    if (int64_t(dim) >= type.getRank())
      return shardOp.emitOpError()
             << "splits dimension " << dim << " of a tensor of rank "
             << type.getRank() << " (" << type << ")";
    int64_t count = 1;
    for (shard::GridAxis axis : axes) {
      if (axis < 0 || axis >= grid.getRank() ||
          ShapedType::isDynamic(grid.getShape()[axis]))
        return success(); // reported by checkAxes, or known at run time
      count *= grid.getShape()[axis];
    }
    int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size) || size % count == 0)
      continue;
    return shardOp.emitOpError()
           << "splits dimension " << dim << " of size " << size << " over "
           << count << " processes (axes " << listString(axes) << " of grid "
           << sharding.getGridAttr() << "), which do not divide it: "
           << "shard-partition supports even splits only (give the "
              "dimension a multiple of "
           << count << " elements, or split another dimension)";
  }
  return success();
}

namespace {
struct ShardCheckSplitsPass
    : public pe::impl::ShardCheckSplitsBase<ShardCheckSplitsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    bool ok = true;
    getOperation()->walk([&](Operation *op) {
      if (auto sharding = dyn_cast<shard::ShardingOp>(op))
        ok &= succeeded(checkAxes(sharding, symbols));
      else if (auto shardOp = dyn_cast<shard::ShardOp>(op))
        ok &= succeeded(checkBlocks(shardOp, symbols));
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
