//===- ShardUnfoldConstants.cpp - constants that shard-partition accepts --===//
//
// Part of the pe-mlir project.
//
// Upstream's arith.constant sharding model partitions only splat constants
// and fails silently on any other. A constant is the same on every process,
// so it is rewritten here into an op without a sharding model
// (tensor.from_elements of scalar constants), which shard-partition clones
// onto every process, and the constant's own sharding becomes a reshard of
// that replicated value.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#define DEBUG_TYPE "pe-shard-unfold-constants"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_SHARDUNFOLDCONSTANTS
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {
struct ShardUnfoldConstantsPass
    : public pe::impl::ShardUnfoldConstantsBase<ShardUnfoldConstantsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<arith::ConstantOp> constants;
    getOperation()->walk([&](arith::ConstantOp op) {
      auto value = dyn_cast<DenseElementsAttr>(op.getValue());
      auto type = dyn_cast<RankedTensorType>(op.getType());
      if (!value || !type || value.isSplat() || type.getRank() == 0)
        return;
      // Only constants that take part in sharding.
      if (llvm::any_of(op->getUsers(),
                       [](Operation *u) { return isa<shard::ShardOp>(u); }))
        constants.push_back(op);
    });
    for (arith::ConstantOp op : constants)
      if (failed(unfold(op)))
        return signalPassFailure();
  }

  LogicalResult unfold(arith::ConstantOp op) {
    auto type = cast<RankedTensorType>(op.getType());
    auto value = cast<DenseElementsAttr>(op.getValue());
    if (type.getNumElements() > maxElements)
      return op.emitError()
             << "a non-splat tensor constant of " << type.getNumElements()
             << " elements cannot be partitioned by "
                "shard-partition, and is larger than "
                "pe-shard-unfold-constants' max-elements ("
             << maxElements.getValue() << ")";
    // The sharding propagation gave the constant (at most one, from a
    // shard.shard that is not for its users).
    shard::ShardOp own;
    for (Operation *user : op->getUsers())
      if (auto s = dyn_cast<shard::ShardOp>(user);
          s && !s.getAnnotateForUsers())
        own = s;
    OpBuilder b(op);
    Location loc = op.getLoc();
    SmallVector<Value> elements;
    elements.reserve(type.getNumElements());
    for (Attribute e : value.getValues<Attribute>())
      elements.push_back(arith::ConstantOp::create(b, loc, cast<TypedAttr>(e)));
    Value unfolded = tensor::FromElementsOp::create(b, loc, type, elements);
    if (!own) {
      op.replaceAllUsesWith(unfolded);
      op.erase();
      return success();
    }
    // unfolded -> replicated -> the constant's sharding.
    shard::Sharding sharding(own.getSharding());
    Value replicated = shard::ShardingOp::create(
        b, loc, shard::Sharding::get(sharding.getGridAttr(), {}));
    Value whole = shard::ShardOp::create(b, loc, unfolded, replicated,
                                         /*annotate_for_users=*/false);
    Value asUser = shard::ShardOp::create(b, loc, whole, replicated,
                                          /*annotate_for_users=*/true);
    op.replaceAllUsesWith(asUser);
    op.erase();
    // `own` now reshards the replicated value to the constant's sharding.
    own.getSrcMutable().assign(asUser);
    return success();
  }
};
} // namespace
