//===- ShardReplicateUnusedArguments.cpp - annotate unused arguments ------===//
//
// Part of the pe-mlir project.
//
// MLIR 22's shard-partition takes each tensor block argument's sharding from
// its one shard.shard user and dereferences the first user of an argument
// that has none. An unused argument is the same on every process, so it is
// annotated here as replicated, which partitioning accepts and which keeps
// it whole in the partitioned function's signature.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#define DEBUG_TYPE "pe-shard-replicate-unused-arguments"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_SHARDREPLICATEUNUSEDARGUMENTS
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

/// Annotates the unused tensor arguments of `block` as replicated on the
/// grid of its first shard.shard; a block without one is not partitioned.
static void replicateUnusedArguments(Block &block) {
  FlatSymbolRefAttr grid;
  for (Operation &op : block) {
    auto shardOp = dyn_cast<shard::ShardOp>(op);
    if (!shardOp)
      continue;
    if (auto sharding =
            shardOp.getSharding().getDefiningOp<shard::ShardingOp>()) {
      grid = sharding.getGridAttr();
      break;
    }
  }
  if (!grid)
    return;
  OpBuilder b = OpBuilder::atBlockBegin(&block);
  Value replicated;
  for (BlockArgument arg : block.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 || !arg.use_empty())
      continue;
    if (!replicated)
      replicated = shard::ShardingOp::create(b, arg.getLoc(),
                                             shard::Sharding::get(grid, {}));
    shard::ShardOp::create(b, arg.getLoc(), arg, replicated,
                           /*annotate_for_users=*/false);
  }
}

namespace {
struct ShardReplicateUnusedArgumentsPass
    : public pe::impl::ShardReplicateUnusedArgumentsBase<
          ShardReplicateUnusedArgumentsPass> {
  void runOnOperation() override {
    getOperation()->walk([](FunctionOpInterface fn) {
      for (Block &block : fn.getFunctionBody())
        replicateUnusedArguments(block);
    });
  }
};
} // namespace
