//===- ShardExecutable.cpp - --emit-executable of sharded functions -------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "ShardExecutable.h"
#include "Ranks.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"

#include "llvm/Support/FileSystem.h"

#ifndef PE_MPI_LIBRARY
#define PE_MPI_LIBRARY ""
#endif

using namespace mlir;
using llvm::SmallVector;
using llvm::Twine;

namespace pe::run {

bool hasShardAnnotations(func::FuncOp fn) {
  WalkResult walk = fn.walk([](Operation *op) {
    return isa<shard::ShardDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                      : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// "shard KIND I G g... R n axes... ..." (see AOTShardMain.cpp).
static void printLayout(llvm::raw_ostream &os, StringRef kind, size_t index,
                        const Distribution &d, size_t rank) {
  os << "shard " << kind << " " << index << " " << d.gridShape.size();
  for (int64_t g : d.gridShape)
    os << " " << g;
  os << " " << rank;
  for (size_t dim = 0; dim < rank; ++dim) {
    ArrayRef<shard::GridAxis> axes;
    if (dim < d.splitAxes.size())
      axes = d.splitAxes[dim];
    os << " " << axes.size();
    for (shard::GridAxis a : axes)
      os << " " << a;
  }
  os << "\n";
}

FailureOr<ShardedExecutable> prepareShardedExecutable(func::FuncOp fn,
                                                      const Signature &sig) {
  std::string mpi = PE_MPI_LIBRARY;
  if (mpi.empty() || !llvm::sys::fs::exists(mpi))
    return error("--emit-executable of a sharded function links MPICH's "
                 "library ('" +
                 mpi + "' not found; Debian package libmpich-dev)");
  FailureOr<ShardedSignature> sharded = readShardedSignature(fn);
  if (failed(sharded))
    return failure();
  ShardedExecutable exe;
  exe.pipeline = &shardPipelineEntry();
  exe.local = sig;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "processes " << sharded->processes << "\n";
  SmallVector<SmallVector<int64_t>> argShapes;
  for (auto [i, arg] : llvm::enumerate(sig.args)) {
    argShapes.emplace_back(arg.shape.begin(), arg.shape.end());
    if (!arg.isTensor)
      continue;
    auto type = cast<RankedTensorType>(arg.type);
    if (!type.hasStaticShape())
      return error("--emit-executable of a sharded function: argument " +
                   Twine(i) + " (" + typeString(type) +
                   ") has a dynamic shape; the blocks need static shapes");
    SmallVector<int64_t> offsets, sizes;
    if (failed(blockOf(sharded->args[i], arg.shape, 0, offsets, sizes)))
      return failure();
    exe.local.args[i].shape = sizes;
    exe.local.args[i].type = type.clone(ArrayRef<int64_t>(sizes));
    printLayout(os, "arg", i, sharded->args[i], arg.shape.size());
  }
  for (auto [i, result] : llvm::enumerate(sig.results)) {
    auto type = cast<RankedTensorType>(result.type);
    if (!type.hasStaticShape())
      return error("--emit-executable of a sharded function: result " +
                   Twine(i) + " (" + typeString(type) +
                   ") has a dynamic shape; the blocks need static shapes");
    SmallVector<int64_t> offsets, sizes;
    if (failed(
            blockOf(sharded->results[i], type.getShape(), 0, offsets, sizes)))
      return failure();
    exe.local.results[i].type = type.clone(ArrayRef<int64_t>(sizes));
    printLayout(os, "result", i, sharded->results[i], type.getRank());
  }
  if (failed(checkPartitionedSignature(fn->getParentOfType<ModuleOp>(), sig,
                                       *sharded, argShapes)))
    return failure();
  exe.signatureText = text;
  exe.mainArchive = "libpe_aot_shard_main.a";
  exe.linkArgs = {mpi};
  exe.needs = "MPICH's libmpich.so.12 (start it with 'mpiexec -n " +
              std::to_string(sharded->processes) + "')";
  return exe;
}

} // namespace pe::run
