//===- ShardingInterfaceImpl.h - pe ops and the shard dialect ---*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_DIALECT_PE_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define PE_DIALECT_PE_TRANSFORMS_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace pe {

/// Attaches the upstream shard::ShardingInterface to every pe op, so that
/// `sharding-propagation` and `shard-partition` handle pe programs:
///   * pe.rope, pe.add_sinusoidal, pe.add_learned: any dimension but the
///     channels; a split sequence adds the shard's first global position to
///     the position offset;
///   * pe.alibi_bias: heads (the slope table is sliced at the shard's first
///     head), query rows and, for the symmetric and signed distances, key
///     columns (the query offset shifts);
///   * pe.attention: batch, heads (query and KV heads together under GQA),
///     query rows, and the key sequence (per-shard partial results combined
///     with shard.all_reduce max and sums through the log-sum-exp);
///   * the frequency ops: replicated.
/// docs/Sharding.md describes what each op accepts.
void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace pe
} // namespace mlir

#endif // PE_DIALECT_PE_TRANSFORMS_SHARDINGINTERFACEIMPL_H
