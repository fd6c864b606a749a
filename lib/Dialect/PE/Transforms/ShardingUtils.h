//===- ShardingUtils.h - helpers of the pe sharding models ------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The helpers the ShardingInterface models of the pe ops share: reading a
// sharding's split axes, refusing unsupported splits, the shard's global
// start, indexing maps. Defined in ShardingInterfaceImpl.cpp; the models are
// in EncodingSharding.cpp and AttentionSharding.cpp. Internal to
// MLIRPETransforms.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_DIALECT_PE_TRANSFORMS_SHARDINGUTILS_H
#define PE_LIB_DIALECT_PE_TRANSFORMS_SHARDINGUTILS_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include <optional>
#include <string>

namespace mlir {
namespace pe {
namespace sharding {

using shard::GridAxis;
using shard::Sharding;
using shard::ShardingOption;

/// Why a model does not support the split `loops` (`loops[l]`: the grid
/// axes of loop l) of an op on `grid` (null when unknown); std::nullopt when
/// it does. Each model has one, as its static member `refusal`.
using ShardingRefusal = std::optional<std::string> (*)(
    Operation *op, shard::GridOp grid, shard::ShardingArrayRef loops);

/// The grid axes that dimension `dim` of a value with sharding `s` is split
/// on (empty when it is not split).
ArrayRef<GridAxis> axesOf(const Sharding &s, int64_t dim);

/// The grid axes of loop `loop` (empty when not split).
ArrayRef<GridAxis> loopAxes(shard::ShardingArrayRef loops, unsigned loop);

/// The number of shards along `axes` of `grid` (1 for no axes), or nullopt
/// when the grid or one of its axes is dynamic.
std::optional<int64_t> shardCount(shard::GridOp grid, ArrayRef<GridAxis> axes);

/// Why a split of the loops (`loops[l]`: the grid axes of loop l) is not
/// supported: a split loop must have a static extent (`extents[l]`,
/// kDynamic if unknown) that its shard count divides. The shard dialect
/// itself accepts uneven splits, but the models' position and slope fix-ups
/// assume equal blocks.
std::optional<std::string> unevenSplit(shard::GridOp grid,
                                       shard::ShardingArrayRef loops,
                                       ArrayRef<int64_t> extents);

/// The model's getShardingOption: upstream's default, with the splits the
/// model does not support (`refusal` gives a reason) dropped: first
/// one split loop at a time, else every split (the op computed whole on each
/// process). Propagation then annotates the op's values with what it does
/// support, and partitioning reshards them (gathers a split channel
/// dimension, slices a result computed whole); the program stays correct.
FailureOr<ShardingOption>
getCheckedShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                         ArrayRef<Sharding> resultShardings,
                         ShardingRefusal refusal);

/// In partition: an error when the op's own annotations ask for a split the
/// model does not support (IR annotated by hand; propagation drops such
/// splits), and a missed-optimization remark when propagation dropped one:
/// the sharding a value had before the op's annotation resharded it (an
/// operand's source, what a result's users ask for) is unsupported.
LogicalResult checkPartition(Operation *op, ArrayRef<Sharding> operandShardings,
                             ArrayRef<Sharding> resultShardings,
                             SymbolTableCollection &symbolTable,
                             ShardingRefusal refusal);

/// The global index of this shard's first element along a dimension of
/// local size `localSize` split on `axes`: process index * local size.
Value shardStart(ImplicitLocOpBuilder &b, StringRef grid,
                 ArrayRef<GridAxis> axes, int64_t localSize);

/// `offset` (index or integer, may be null) plus `delta` (index), as index.
Value addIndex(ImplicitLocOpBuilder &b, Value offset, Value delta);

/// `offset` (index or integer, may be null) minus `delta` (index), as index.
Value subIndex(ImplicitLocOpBuilder &b, Value offset, Value delta);

/// The local size of dimension `dim` of `type` under sharding `s`.
int64_t localDim(Operation *op, Type type, int64_t dim, const Sharding &s,
                 SymbolTableCollection &symbolTable);

/// Clones `op` onto its partitioned operands with the local result types
/// (the upstream helper) and returns the clone.
Operation *cloneLocal(Operation *op, ArrayRef<Value> operands,
                      ArrayRef<Sharding> operandShardings,
                      ArrayRef<Sharding> resultShardings, IRMapping &map,
                      SymbolTableCollection &symbolTable, OpBuilder &builder);

/// True when operand `range` of an op (an ODS operand group, possibly
/// optional) is the op's operand number `n`. (Operands are told apart by
/// position: one value may be passed as two operands.)
bool isOperand(MutableOperandRange range, unsigned n);

/// A map of `numLoops` loops onto the given loops.
AffineMap loopsMap(MLIRContext *ctx, unsigned numLoops,
                   ArrayRef<unsigned> loops);

/// A map of a tensor all of whose dimensions go to the private loop (never
/// split), or the empty map of a scalar.
AffineMap privateMap(MLIRContext *ctx, unsigned numLoops, unsigned privateLoop,
                     Type type);

/// The slope table of `heads` heads for `maxBias`, as an f64 constant.
Value slopeTable(ImplicitLocOpBuilder &b, int64_t heads, double maxBias);

/// The rows [start, start + size) of a 1-D table.
Value sliceTable(ImplicitLocOpBuilder &b, Value table, Value start,
                 int64_t size);

/// The default annotation of an op's operands and results, restricted to
/// its tensors: the upstream default also annotates scalar operands (an
/// offset, an attention scaling) with a sharding without a grid.
LogicalResult addTensorShardingAnnotations(Operation *op, OpBuilder &b,
                                           const ShardingOption &opt);

/// The base of the pe ShardingInterface models: getShardingOption,
/// addShardingAnnotations and partition as every model has them, from the
/// model's static `refusal` (a ShardingRefusal) and its `partitionChecked`,
/// the partition of a split it supports.
template <typename Model, typename OpTy>
struct CheckedShardingModel
    : public shard::ShardingInterface::ExternalModel<Model, OpTy> {
  FailureOr<ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    return getCheckedShardingOption(op, operandShardings, resultShardings,
                                    &Model::refusal);
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
    if (failed(checkPartition(op, operandShardings, resultShardings,
                              symbolTable, &Model::refusal)))
      return failure();
    return static_cast<const Model *>(this)->partitionChecked(
        op, operands, operandShardings, resultShardings, map, symbolTable,
        builder);
  }
};

/// Attaches the models of pe.rope, pe.add_sinusoidal, pe.add_learned and
/// pe.alibi_bias (EncodingSharding.cpp).
void attachEncodingShardingModels(MLIRContext *ctx);

/// Attaches the model of pe.attention (AttentionSharding.cpp).
void attachAttentionShardingModel(MLIRContext *ctx);

} // namespace sharding
} // namespace pe
} // namespace mlir

#endif // PE_LIB_DIALECT_PE_TRANSFORMS_SHARDINGUTILS_H
