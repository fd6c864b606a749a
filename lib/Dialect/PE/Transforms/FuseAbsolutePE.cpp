//===- FuseAbsolutePE.cpp - absolute PE into producers and consumers ------===//
//
// Part of the pe-mlir project.
//
// Tile-and-fuse through the TilingInterface of pe.add_sinusoidal and
// pe.add_learned, whose row tile carries its position offset: a contraction
// consuming the encoded tensor is tiled along its rows with the encoding
// (and the encoding's elementwise producer) fused into the loop; an encoding
// with only an elementwise producer is tiled along its rows with the
// producer fused. The fused pe ops are tiles of the original, which every
// lowering handles, so no later pass needs to know that fusion happened.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Support/OptionRanges.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/Support/Debug.h"

#include <limits>

#define DEBUG_TYPE "pe-fuse-absolute-pe"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FUSEABSOLUTEPE
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// The elementwise producer of the encoding's input that moves into the
/// encoding's row tiles (an embedding gather, a scale): a linalg.generic
/// whose loops are all parallel and whose only user is the encoding (another
/// user would need the whole tensor anyway); null otherwise, with the reason
/// in `why` when there is a generic that does not qualify.
linalg::GenericOp fusibleProducer(Operation *encoding, std::string &why) {
  auto producer = encoding->getOperand(0).getDefiningOp<linalg::GenericOp>();
  if (!producer)
    return {};
  if (producer.getNumParallelLoops() != producer.getNumLoops()) {
    why = "the producer of the encoded input has reduction loops";
    return {};
  }
  if (producer->getNumResults() != 1 || !producer->getResult(0).hasOneUse()) {
    why = "the producer of the encoded input has other users or results";
    return {};
  }
  return producer;
}

/// The contraction that consumes the encoded tensor as an input (the QKV
/// projection); null otherwise, with the reason in `why` when there is a
/// contraction that does not qualify.
linalg::LinalgOp fusibleConsumer(Operation *encoding, std::string &why) {
  Value encoded = encoding->getResult(0);
  auto isContraction = [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.getNumReductionLoops() > 0;
  };
  if (!encoded.hasOneUse()) {
    if (llvm::any_of(encoded.getUsers(), isContraction))
      why = "the encoded tensor has users besides the contraction";
    return {};
  }
  OpOperand &use = *encoded.use_begin();
  if (!isContraction(use.getOwner()))
    return {};
  auto consumer = cast<linalg::LinalgOp>(use.getOwner());
  if (!consumer.isDpsInput(&use)) {
    why = "the encoded tensor is the contraction's accumulator";
    return {};
  }
  return consumer;
}

/// Tiles `root` with `tiles` and fuses into its loops the slices of the ops
/// in `fusible`. Returns true when every op of `fusible` was fused.
bool tileAndFuse(RewriterBase &rewriter, TilingInterface root,
                 ArrayRef<int64_t> tiles, ArrayRef<Operation *> fusible) {
  scf::SCFTileAndFuseOptions options;
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t t : tiles)
    tileSizes.push_back(rewriter.getIndexAttr(t));
  options.tilingOptions.setTileSizes(tileSizes);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isDestination || !llvm::is_contained(fusible, producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(root);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, root, options);
  if (failed(result))
    return false;
  bool all = llvm::all_of(fusible, [&](Operation *op) {
    return result->fusedProducers.contains(op);
  });
  for (OpResult r : root->getResults())
    if (Value replacement = result->replacements.lookup(r))
      rewriter.replaceAllUsesWith(r, replacement);
  // The originals, now unused (consumer first).
  if (root->use_empty())
    rewriter.eraseOp(root);
  for (Operation *op : fusible)
    if (op->use_empty())
      rewriter.eraseOp(op);
  return all;
}

/// Fuses one encoding into its consumer contraction, or its producer into
/// the encoding's row tiles. Returns the reason it did not fire, or "" (also
/// when there was nothing to fuse with).
std::string fuse(RewriterBase &rewriter, Operation *encoding, int64_t rowTile) {
  std::string producerWhy, consumerWhy;
  linalg::GenericOp producer = fusibleProducer(encoding, producerWhy);
  linalg::LinalgOp consumer = fusibleConsumer(encoding, consumerWhy);
  SmallVector<Operation *> fusible = {encoding};
  if (producer)
    fusible.push_back(producer);

  if (consumer) {
    // Tile the parallel loops that index the encoded operand: its row loop
    // by `rowTile`, the ones outside it by 1; the rest (columns of the
    // result, the reduction) stay whole, so each row tile of the encoding is
    // computed exactly once.
    OpOperand &use = *encoding->getResult(0).use_begin();
    AffineMap map = consumer.getMatchingIndexingMap(&use);
    SmallVector<utils::IteratorType> iterators =
        consumer.getIteratorTypesArray();
    SmallVector<int64_t> tiles(consumer.getNumLoops(), 0);
    SmallVector<unsigned> rowLoops;
    // The encoded operand [..., T, C]: every result but the channel.
    for (AffineExpr e : map.getResults().drop_back())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        if (iterators[d.getPosition()] == utils::IteratorType::parallel)
          rowLoops.push_back(d.getPosition());
    if (rowLoops.empty())
      return "the contraction has no parallel loop over the encoded rows";
    for (unsigned loop : rowLoops)
      tiles[loop] = 1;
    tiles[rowLoops.back()] = rowTile;
    if (!tileAndFuse(rewriter, cast<TilingInterface>(consumer.getOperation()),
                     tiles, fusible))
      return "the upstream tile-and-fuse driver did not fuse the encoding "
             "(and its producer) into the contraction's row tiles";
    return producerWhy;
  }
  if (producer) {
    // The encoding's own row tiles, the channels whole.
    int64_t rank =
        cast<RankedTensorType>(encoding->getResult(0).getType()).getRank();
    SmallVector<int64_t> tiles(rank, 1);
    tiles[rank - 2] = rowTile;
    tiles[rank - 1] = 0;
    if (!tileAndFuse(rewriter, cast<TilingInterface>(encoding), tiles,
                     {producer.getOperation()}))
      return "the upstream tile-and-fuse driver did not fuse the producer "
             "into the encoding's row tiles";
    return "";
  }
  return !consumerWhy.empty() ? consumerWhy : producerWhy;
}

struct FuseAbsolutePEPass
    : public pe::impl::FuseAbsolutePEBase<FuseAbsolutePEPass> {
  using FuseAbsolutePEBase::FuseAbsolutePEBase;

  static constexpr IntegerOptionRange kRowTileRange = {
      "row-tile", 1, std::numeric_limits<int64_t>::max()};

  /// Rejects a row tile below 1 (or not an integer) where the option is
  /// parsed (`pe-fuse-absolute-pe{row-tile=N}`), with the option's name and
  /// range, before LLVM's option parser reads it.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (std::optional<std::string> error =
            checkIntegerOptionText(getArgument(), options, kRowTileRange))
      return errorHandler(*error);
    return Pass::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    // Options set programmatically (FuseAbsolutePEOptions) bypass
    // initializeOptions.
    if (std::optional<std::string> error =
            checkIntegerOption(getArgument(), kRowTileRange, rowTile)) {
      emitError(getOperation()->getLoc(), *error);
      return signalPassFailure();
    }
    SmallVector<Operation *> encodings;
    getOperation()->walk([&](Operation *op) {
      if (isa<AddSinusoidalOp, AddLearnedOp>(op))
        encodings.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *encoding : encodings) {
      std::string why = fuse(rewriter, encoding, rowTile);
      LLVM_DEBUG(llvm::dbgs() << "fused " << encoding->getName() << ": "
                              << (why.empty() ? "yes" : why) << "\n");
      if (!why.empty())
        emitMissedRemark(encoding, getArgument(), "absolute-pe-not-fused",
                         "not fused: " + why);
    }
  }
};
} // namespace
