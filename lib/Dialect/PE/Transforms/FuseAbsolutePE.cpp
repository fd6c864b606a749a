//===- FuseAbsolutePE.cpp - absolute PE into producers and consumers ------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

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

/// The discardable attribute convert-pe-to-linalg puts on the generics of
/// pe.add_sinusoidal and pe.add_learned.
constexpr StringLiteral kEncodingAttr = "pe.absolute_encoding";

/// Fuses the elementwise producer of the encoded tensor (an embedding gather,
/// a scale) into the encoding generic. Returns the generic to continue with.
linalg::GenericOp fuseProducer(RewriterBase &rewriter,
                               linalg::GenericOp encoding) {
  OpOperand &input = encoding->getOpOperand(0);
  auto producer = input.get().getDefiningOp<linalg::GenericOp>();
  if (!producer || !linalg::areElementwiseOpsFusable(&input))
    return encoding;
  FailureOr<linalg::ElementwiseOpFusionResult> fused =
      linalg::fuseElementwiseOps(rewriter, &input);
  if (failed(fused))
    return encoding;
  for (auto [original, replacement] : fused->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      return use.getOwner() != fused->fusedOp;
    });
  auto fusedGeneric = cast<linalg::GenericOp>(fused->fusedOp);
  fusedGeneric->setAttr(kEncodingAttr, rewriter.getUnitAttr());
  if (encoding->use_empty())
    rewriter.eraseOp(encoding);
  if (producer->use_empty())
    rewriter.eraseOp(producer);
  return fusedGeneric;
}

/// Tiles the contraction that consumes the encoded tensor (the QKV
/// projection) along the rows of that operand and computes the encoding per
/// row tile inside the loop, so the encoded tensor is never materialised.
void fuseIntoConsumer(RewriterBase &rewriter, linalg::GenericOp encoding,
                      int64_t rowTile) {
  Value encoded = encoding->getResult(0);
  if (!encoded.hasOneUse())
    return;
  OpOperand &use = *encoded.use_begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!consumer || !consumer.isDpsInput(&use) ||
      consumer.getNumReductionLoops() == 0)
    return;
  // Tile the parallel loops that index the encoded operand: its row loop by
  // `rowTile`, the ones outside it by 1; the rest (columns of the result,
  // the reduction) stay whole, so each row tile of the encoding is computed
  // exactly once.
  AffineMap map = consumer.getMatchingIndexingMap(&use);
  SmallVector<utils::IteratorType> iterators = consumer.getIteratorTypesArray();
  SmallVector<int64_t> tiles(consumer.getNumLoops(), 0);
  SmallVector<unsigned> rowLoops;
  for (AffineExpr e : map.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e))
      if (iterators[d.getPosition()] == utils::IteratorType::parallel)
        rowLoops.push_back(d.getPosition());
  if (rowLoops.empty())
    return;
  for (unsigned loop : rowLoops)
    tiles[loop] = 1;
  tiles[rowLoops.back()] = rowTile;

  scf::SCFTileAndFuseOptions options;
  SmallVector<OpFoldResult> tileSizes;
  for (int64_t t : tiles)
    tileSizes.push_back(rewriter.getIndexAttr(t));
  options.tilingOptions.setTileSizes(tileSizes);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (isDestination || producer.getOwner() != encoding)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  rewriter.setInsertionPoint(consumer);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(consumer.getOperation()), options);
  if (failed(result) || !result->fusedProducers.contains(encoding))
    return;
  for (OpResult r : consumer->getResults())
    if (Value replacement = result->replacements.lookup(r))
      rewriter.replaceAllUsesWith(r, replacement);
  if (consumer->use_empty())
    rewriter.eraseOp(consumer);
  if (encoding->use_empty())
    rewriter.eraseOp(encoding);
}

struct FuseAbsolutePEPass
    : public pe::impl::FuseAbsolutePEBase<FuseAbsolutePEPass> {
  using FuseAbsolutePEBase::FuseAbsolutePEBase;

  /// Rejects a row tile below 1 where the option is parsed
  /// (`pe-fuse-absolute-pe{row-tile=N}`), with the option's name.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    if (rowTile < 1)
      return errorHandler("pe-fuse-absolute-pe: row-tile must be at least 1, "
                          "got " +
                          Twine(rowTile));
    return success();
  }

  void runOnOperation() override {
    // Options set programmatically (FuseAbsolutePEOptions) bypass
    // initializeOptions.
    if (rowTile < 1) {
      emitError(getOperation()->getLoc(),
                "pe-fuse-absolute-pe: row-tile must be at least 1, got ")
          << static_cast<int64_t>(rowTile);
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> encodings;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->hasAttr(kEncodingAttr))
        encodings.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp encoding : encodings) {
      rewriter.setInsertionPoint(encoding);
      linalg::GenericOp fused = fuseProducer(rewriter, encoding);
      fuseIntoConsumer(rewriter, fused, rowTile);
    }
  }
};
} // namespace
