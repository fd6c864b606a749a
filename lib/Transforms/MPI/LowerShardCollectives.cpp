//===- LowerShardCollectives.cpp - collectives convert-shard-to-mpi lacks -===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22's convert-shard-to-mpi lowers shard.all_reduce but
// leaves all_gather, all_to_all, reduce_scatter and all_slice in place (and
// still succeeds). pe-lower-shard-collectives expresses them with
// shard.all_reduce and tensor slices, exactly: a gather is a sum of zero
// tensors each holding one process's block. pe-finalize-shard-to-mpi, after
// the conversion, reports any shard op it left and drops the grids.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/MPI/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "pe-lower-shard-collectives"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_LOWERSHARDCOLLECTIVES
#define GEN_PASS_DEF_FINALIZESHARDTOMPI
#include "pe/Transforms/MPI/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

/// The number of processes along `axes` of the grid `op` refers to, when
/// static.
static std::optional<int64_t> groupSize(Operation *op, FlatSymbolRefAttr grid,
                                        ArrayRef<shard::GridAxis> axes,
                                        SymbolTableCollection &symbolTable) {
  shard::GridOp gridOp = shard::getGridOrNull(op, grid, symbolTable);
  if (!gridOp)
    return std::nullopt;
  int64_t n = 1;
  for (shard::GridAxis a : axes) {
    int64_t s = gridOp.getShape()[a];
    if (ShapedType::isDynamic(s))
      return std::nullopt;
    n *= s;
  }
  return n;
}

/// `src` (this process's block) gathered along `axis` over the processes of
/// `axes`: a zero tensor of the gathered shape with the block inserted at
/// process index * block size, summed over the group.
static Value gather(ImplicitLocOpBuilder &b, Value src, StringRef grid,
                    ArrayRef<shard::GridAxis> axes, int64_t axis,
                    int64_t count) {
  auto type = cast<RankedTensorType>(src.getType());
  SmallVector<int64_t> shape(type.getShape());
  int64_t block = shape[axis];
  shape[axis] *= count;
  Type elementType = type.getElementType();
  Value zero =
      arith::ConstantOp::create(b, cast<TypedAttr>(b.getZeroAttr(elementType)));
  Value empty = tensor::EmptyOp::create(b, shape, elementType);
  Value zeros = linalg::FillOp::create(b, zero, empty).getResult(0);
  Value idx = shard::createProcessLinearIndex(grid, axes, b);
  Value offset =
      arith::MulIOp::create(b, idx, arith::ConstantIndexOp::create(b, block));
  SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
  offsets[axis] = offset;
  SmallVector<OpFoldResult> sizes, strides(shape.size(), b.getIndexAttr(1));
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  Value placed =
      tensor::InsertSliceOp::create(b, src, zeros, offsets, sizes, strides);
  return shard::AllReduceOp::create(b, placed, grid, axes,
                                    shard::ReductionKind::Sum);
}

/// This process's block along `axis` of `src` (`count` blocks over `axes`).
static Value ownBlock(ImplicitLocOpBuilder &b, Value src, StringRef grid,
                      ArrayRef<shard::GridAxis> axes, int64_t axis,
                      int64_t count) {
  auto type = cast<RankedTensorType>(src.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] /= count;
  Value idx = shard::createProcessLinearIndex(grid, axes, b);
  Value offset = arith::MulIOp::create(
      b, idx, arith::ConstantIndexOp::create(b, shape[axis]));
  SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
  offsets[axis] = offset;
  SmallVector<OpFoldResult> sizes, strides(shape.size(), b.getIndexAttr(1));
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(
      b, RankedTensorType::get(shape, type.getElementType()), src, offsets,
      sizes, strides);
}

static bool isStatic(Type t) {
  auto ranked = dyn_cast<RankedTensorType>(t);
  return ranked && ranked.hasStaticShape();
}

namespace {
/// The process-group size of a collective whose shapes and grid are static;
/// a match failure naming what is dynamic otherwise.
template <typename CollectiveOp>
FailureOr<int64_t> staticGroupSize(CollectiveOp op, PatternRewriter &rewriter,
                                   SymbolTableCollection &symbolTable) {
  if (!isStatic(op.getInput().getType()) || !isStatic(op.getType()))
    return rewriter.notifyMatchFailure(op, "dynamic shape");
  std::optional<int64_t> n =
      groupSize(op, op.getGridAttr(), op.getGridAxes(), symbolTable);
  if (!n)
    return rewriter.notifyMatchFailure(op, "dynamic grid");
  return *n;
}

struct LowerAllGather : OpRewritePattern<shard::AllGatherOp> {
  LowerAllGather(MLIRContext *ctx, SymbolTableCollection &symbolTable)
      : OpRewritePattern(ctx), symbolTable(symbolTable) {}
  LogicalResult matchAndRewrite(shard::AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<int64_t> n = staticGroupSize(op, rewriter, symbolTable);
    if (failed(n))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op,
                       gather(b, op.getInput(), op.getGrid(), op.getGridAxes(),
                              op.getGatherAxis().getSExtValue(), *n));
    return success();
  }
  SymbolTableCollection &symbolTable;
};

struct LowerAllToAll : OpRewritePattern<shard::AllToAllOp> {
  LowerAllToAll(MLIRContext *ctx, SymbolTableCollection &symbolTable)
      : OpRewritePattern(ctx), symbolTable(symbolTable) {}
  LogicalResult matchAndRewrite(shard::AllToAllOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<int64_t> n = staticGroupSize(op, rewriter, symbolTable);
    if (failed(n))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value all = gather(b, op.getInput(), op.getGrid(), op.getGridAxes(),
                       op.getConcatAxis().getSExtValue(), *n);
    rewriter.replaceOp(op, ownBlock(b, all, op.getGrid(), op.getGridAxes(),
                                    op.getSplitAxis().getSExtValue(), *n));
    return success();
  }
  SymbolTableCollection &symbolTable;
};

struct LowerReduceScatter : OpRewritePattern<shard::ReduceScatterOp> {
  LowerReduceScatter(MLIRContext *ctx, SymbolTableCollection &symbolTable)
      : OpRewritePattern(ctx), symbolTable(symbolTable) {}
  LogicalResult matchAndRewrite(shard::ReduceScatterOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<int64_t> n = staticGroupSize(op, rewriter, symbolTable);
    if (failed(n))
      return failure();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Value reduced = shard::AllReduceOp::create(
        b, op.getInput(), op.getGrid(), op.getGridAxes(), op.getReduction());
    rewriter.replaceOp(op, ownBlock(b, reduced, op.getGrid(), op.getGridAxes(),
                                    op.getScatterAxis().getSExtValue(), *n));
    return success();
  }
  SymbolTableCollection &symbolTable;
};

struct LowerShardCollectivesPass
    : public pe::impl::LowerShardCollectivesBase<LowerShardCollectivesPass> {
  void runOnOperation() override {
    SymbolTableCollection symbolTable;
    RewritePatternSet patterns(&getContext());
    populateLowerShardCollectivesPatterns(patterns, symbolTable);
    shard::populateAllSliceOpLoweringPatterns(patterns, symbolTable);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What neither these patterns nor convert-shard-to-mpi lowers.
    WalkResult result = getOperation()->walk([](Operation *op) {
      if (!isa<shard::AllGatherOp, shard::AllToAllOp, shard::AllSliceOp,
               shard::ReduceScatterOp, shard::BroadcastOp, shard::GatherOp,
               shard::ScatterOp, shard::ReduceOp, shard::SendOp, shard::RecvOp,
               shard::ShiftOp>(op))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' is not lowered to MPI: MLIR 22's "
                         "convert-shard-to-mpi has no pattern for it, and "
                         "pe-lower-shard-collectives only lowers all_gather, "
                         "all_to_all, reduce_scatter and all_slice on static "
                         "shapes and grids";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
struct FinalizeShardToMPIPass
    : public pe::impl::FinalizeShardToMPIBase<FinalizeShardToMPIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<shard::GridOp> grids;
    WalkResult result = module->walk([&](Operation *op) {
      if (auto grid = dyn_cast<shard::GridOp>(op)) {
        grids.push_back(grid);
        return WalkResult::advance();
      }
      if (!isa<shard::ShardDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' was not lowered by convert-shard-to-mpi";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (shard::GridOp grid : grids) {
      if (!SymbolTable::symbolKnownUseEmpty(grid, module)) {
        grid.emitError() << "grid '" << grid.getSymName()
                         << "' is still referenced after convert-shard-to-mpi";
        return signalPassFailure();
      }
      grid.erase();
    }
  }
};
} // namespace

void mlir::pe::populateLowerShardCollectivesPatterns(
    RewritePatternSet &patterns, SymbolTableCollection &symbolTable) {
  patterns.add<LowerAllGather, LowerAllToAll, LowerReduceScatter>(
      patterns.getContext(), symbolTable);
}
