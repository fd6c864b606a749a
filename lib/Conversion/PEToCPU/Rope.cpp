//===- Rope.cpp - the pe.rope kernel --------------------------------------===//
//
// Part of the pe-mlir project.
//
// The kernel of a standalone pe.rope on f32, f16 or bf16 (rows widened to
// f32, rotated, rounded once) with offset positions or per-token caches: a
// parallel loop over (64-token block, chunk of the leading rows), each task
// computing its block's cos/sin rows and rotating the rows of its chunk;
// with tokens along another dimension than -2 or per-token caches, over
// (leading row, 64-token block) of an [A, T, M, D] view.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::cpu;

Value KernelBuilder::buildRope() {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  auto memType = MemRefType::get(type.getShape(), type.getElementType());
  Value x = bufferization::ToBufferOp::create(b, memType, input,
                                              /*readOnly=*/true);
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < rank; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(dim(x, i));
  Value out = memref::AllocOp::create(b, memType, dynamicSizes,
                                      b.getI64IntegerAttr(64));
  if (rope.getSequenceDimOrDefault() != rank - 2 || rope.hasPerTokenCaches())
    return buildRopeRows(rope, x, out);
  Value x3 = view3d(x), out3 = view3d(out);
  Value offset = offsetValue(qOff);
  // With [B, T] positions a task's leading rows are those of one batch
  // (rows [b * N/B, (b + 1) * N/B) of the [N, T, C] view), whose positions
  // are row b of the tensor.
  PositionsMem pos = positionsMem(qPosTensor);
  // Tasks of (64-token block, chunk of the leading rows): the cos/sin rows
  // of a block are computed once per task, in parallel, and serve every row
  // of its chunk. The chunk is all leading rows (every head) unless there
  // are too few token blocks to keep the threads busy.
  Value lead = dim(x3, 0), tokens = dim(x3, 1);
  auto ceilDiv = [&](Value n, Value d) {
    return arith::DivUIOp::create(
        b, addi(n, arith::SubIOp::create(b, d, idx(1))), d);
  };
  Value tBlocks = ceilDiv(tokens, idx(kBlock));
  Value chunks = arith::MinSIOp::create(
      b, lead,
      arith::MaxSIOp::create(
          b, idx(1),
          ceilDiv(idx(kMinTasks), arith::MaxSIOp::create(b, tBlocks, idx(1)))));
  Value perChunk = ceilDiv(lead, arith::MaxSIOp::create(b, chunks, idx(1)));
  chunks = ceilDiv(lead, arith::MaxSIOp::create(b, perChunk, idx(1)));
  if (pos.rowsPerBatch) {
    chunks = dim(x, 0);
    perChunk = arith::DivUIOp::create(
        b, lead, arith::MaxSIOp::create(b, chunks, idx(1)));
  }
  // Streaming stores need rows of whole vectors (aligned vector stores).
  Value large = headDim % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{tBlocks, chunks},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        Value t0 = muli(ivs[0], idx(kBlock));
        Value rows = arith::MinSIOp::create(
            b, idx(kBlock), arith::SubIOp::create(b, tokens, t0));
        Value cosT, sinT;
        if (pos.mem)
          sinT = buildTables(rows, Value(), cosT, pos.mem,
                             tableRow(pos, ivs[1], t0));
        else
          sinT = buildTables(rows, saturatingAdd(t0, offset), cosT);
        Value n0 = muli(ivs[1], perChunk);
        Value n1 = arith::MinSIOp::create(b, addi(n0, perChunk), lead);
        // Groups of kRopeHeadGroup leading rows; per token, the table row
        // is loaded once and rotates the group's rows.
        withStreaming(large, [&](bool streaming) {
          scf::ForOp::create(
              b, n0, n1, idx(kRopeHeadGroup), ValueRange{},
              [&](OpBuilder &gb, Location l1, Value g0, ValueRange) {
                Scope groupScope(b, gb);
                Value g1 = arith::MinSIOp::create(
                    b, addi(g0, idx(kRopeHeadGroup)), n1);
                scf::ForOp::create(
                    b, idx(0), rows, idx(1), ValueRange{},
                    [&](OpBuilder &ib, Location l2, Value r, ValueRange) {
                      Scope rowScope(b, ib);
                      Value t = addi(t0, r);
                      RopeRow row = loadRopeRow(r, cosT, sinT);
                      scf::ForOp::create(
                          b, g0, g1, idx(1), ValueRange{},
                          [&](OpBuilder &nb, Location l3, Value n, ValueRange) {
                            Scope inner(b, nb);
                            rotateRow(x3, ValueRange{n, t}, out3,
                                      ValueRange{n, t}, row, 1.0, streaming);
                            scf::YieldOp::create(b);
                          });
                      scf::YieldOp::create(b);
                    });
                scf::YieldOp::create(b);
              });
        });
        scf::ReduceOp::create(b);
      });
  return bufferization::ToTensorOp::create(b, type, out, /*restrict=*/true,
                                           /*writable=*/true);
}

Value KernelBuilder::buildRopeRows(RopeOp op, Value x, Value out) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t seqDim = op.getSequenceDimOrDefault();
  bool perToken = op.hasPerTokenCaches();
  Value x4 = view4d(x, seqDim), out4 = view4d(out, seqDim);
  Value lead = dim(x4, 0), tokens = dim(x4, 1), inner = dim(x4, 2);
  // Per-token caches: the batch of leading row a is a / (the product of
  // the dimensions between the batch and the tokens).
  Value perBatch = idx(1);
  for (int64_t i = 1; i < seqDim; ++i)
    perBatch = muli(perBatch, dim(x, i));
  Value offset = perToken ? idx(0) : offsetValue(qOff);
  Value tBlocks =
      arith::DivUIOp::create(b, addi(tokens, idx(kBlock - 1)), idx(kBlock));
  Value large = headDim % lanes == 0
                    ? isLarge(out)
                    : Value(arith::ConstantOp::create(b, b.getBoolAttr(false)));
  scf::ParallelOp::create(
      b, ValueRange{idx(0), idx(0)}, ValueRange{lead, tBlocks},
      ValueRange{idx(1), idx(1)},
      [&](OpBuilder &ob, Location loc, ValueRange ivs) {
        Scope scope(b, ob);
        Value a = ivs[0];
        Value t0 = muli(ivs[1], idx(kBlock));
        Value rows = arith::MinSIOp::create(
            b, idx(kBlock), arith::SubIOp::create(b, tokens, t0));
        Value cosT;
        Value sinT = buildTables(
            rows, saturatingAdd(t0, offset), cosT, /*positions=*/Value(),
            /*first=*/Value(),
            perToken ? Value(arith::DivUIOp::create(b, a, perBatch)) : Value());
        // Per token, the table row is loaded once and rotates the token's M
        // rows (the heads of [B, S, H, D]).
        withStreaming(large, [&](bool streaming) {
          scf::ForOp::create(
              b, idx(0), rows, idx(1), ValueRange{},
              [&](OpBuilder &ib, Location l2, Value r, ValueRange) {
                Scope rowScope(b, ib);
                Value t = addi(t0, r);
                RopeRow row = loadRopeRow(r, cosT, sinT);
                scf::ForOp::create(
                    b, idx(0), inner, idx(1), ValueRange{},
                    [&](OpBuilder &nb, Location l3, Value m, ValueRange) {
                      Scope innerScope(b, nb);
                      rotateRow(x4, ValueRange{a, t, m}, out4,
                                ValueRange{a, t, m}, row, 1.0, streaming);
                      scf::YieldOp::create(b);
                    });
                scf::YieldOp::create(b);
              });
        });
        scf::ReduceOp::create(b);
      });
  return bufferization::ToTensorOp::create(b, type, out, /*restrict=*/true,
                                           /*writable=*/true);
}

namespace {

/// Why a pe.rope cannot use the generated kernel (empty if it can; any head
/// dimension, any even rotary dimension and any sequence_dim can).
std::string unsupportedRopeReason(RopeOp op) {
  auto type = op.getInput().getType();
  Type et = type.getElementType();
  if (!et.isF32() && !et.isF16() && !et.isBF16())
    return "element type is not f32, f16 or bf16";
  if (op.hasPerTokenCaches() && op.getSequenceDimOrDefault() == 0)
    return "per-token cos/sin caches with the tokens along dimension 0 "
           "(sequence_dim = 0, also the batch)";
  if (op.getPositions() && (op.hasPerTokenCaches() ||
                            op.getSequenceDimOrDefault() != type.getRank() - 2))
    return "explicit positions tensor with tokens along a dimension other "
           "than -2 (sequence_dim) or per-token caches";
  return "";
}

/// Replaces a standalone pe.rope by the RoPE kernel; refuses one it does not
/// support with a missed remark naming the reason.
struct RopePattern : OpRewritePattern<RopeOp> {
  RopePattern(MLIRContext *context, const PEToVectorOptions &options)
      : OpRewritePattern(context), options(options) {}

  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason = unsupportedRopeReason(op);
    if (!reason.empty()) {
      emitMissedRemark(op, kRemarkCategory, "rope-kernel",
                       "no generated RoPE kernel (the reference lowering "
                       "is used): " +
                           reason);
      return rewriter.notifyMatchFailure(op, reason);
    }
    rewriter.setInsertionPoint(op);
    KernelBuilder kernel(op, rewriter, options.target.f32Lanes());
    rewriter.replaceOp(op, kernel.buildRope());
    return success();
  }

  PEToVectorOptions options;
};

} // namespace

void cpu::populateRopePattern(RewritePatternSet &patterns,
                              const PEToVectorOptions &options) {
  patterns.add<RopePattern>(patterns.getContext(), options);
}
