//===- AttentionSharding.cpp - ShardingInterface of pe.attention ----------===//
//
// Part of the pe-mlir project.
//
// The ShardingInterface model of pe.attention: batch, heads (query and KV
// heads together under GQA), query rows, and the key sequence, whose
// per-shard partial results combine through their log-sum-exp with
// shard.all_reduce. ShardingInterfaceImpl.cpp describes the approach.
//
//===----------------------------------------------------------------------===//

#include "ShardingUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::sharding;

namespace {
//===----------------------------------------------------------------------===//
// pe.attention
//===----------------------------------------------------------------------===//

/// Loops (b, h, i, j, d, e, p): batch, query head, query row, key, the
/// query/key channels, the value channels, and a private loop. Key and value
/// heads are mapped to h: splitting the query heads into n equal blocks
/// splits the KV heads into n equal blocks of the same groups when n divides
/// the KV head count (checked), which is the GQA-consistent split. A single
/// KV head (MQA) is replicated instead.
struct AttentionSharding
    : public CheckedShardingModel<AttentionSharding, AttentionOp> {
  enum Loop : unsigned { B, H, I, J, D, E, P, NumLoops };

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    using IT = utils::IteratorType;
    return {IT::parallel,  IT::parallel, IT::parallel, IT::reduction,
            IT::reduction, IT::parallel, IT::parallel};
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *) const {
    // The key loop is a softmax (combined through max and sums), the channel
    // loop a sum.
    return {shard::ReductionKind::Generic, shard::ReductionKind::Sum};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto att = cast<AttentionOp>(op);
    MLIRContext *ctx = op->getContext();
    SmallVector<int64_t> perm = att.getOperandPermutation();
    // (batch, head, token, channel) loops in the operands' layout.
    auto layoutMap = [&](unsigned head, unsigned token, unsigned channel) {
      SmallVector<unsigned> meaning = {B, head, token, channel}, loops;
      for (int64_t p = 0; p < 4; ++p)
        loops.push_back(meaning[perm[p]]);
      return loopsMap(ctx, NumLoops, loops);
    };
    // Bias and mask broadcast to [B, H, Tq, Tk]; unit dimensions are private.
    auto scoresMap = [&](Value v) {
      auto type = cast<RankedTensorType>(v.getType());
      int64_t rank = type.getRank();
      SmallVector<unsigned> loops;
      for (int64_t d = 0; d < rank; ++d)
        loops.push_back(type.getDimSize(d) == 1 ? unsigned(P)
                                                : unsigned(4 - rank + d));
      return loopsMap(ctx, NumLoops, loops);
    };
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      unsigned n = operand.getOperandNumber();
      if (n == 0)
        maps.push_back(layoutMap(H, I, D));
      else if (n == 1)
        maps.push_back(layoutMap(kvHeadLoop(att), J, D));
      else if (n == 2)
        maps.push_back(layoutMap(kvHeadLoop(att), J, E));
      else if (isOperand(att.getBiasMutable(), n) ||
               isOperand(att.getMaskMutable(), n))
        maps.push_back(scoresMap(v));
      else if (isOperand(att.getKvLengthsMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {B}));
      // RoPE positions [T] or [B, T] follow their tokens (and the batch).
      else if (isOperand(att.getQueryPositionsMutable(), n) ||
               isOperand(att.getKeyPositionsMutable(), n)) {
        unsigned token =
            isOperand(att.getQueryPositionsMutable(), n) ? unsigned(I) : J;
        if (cast<RankedTensorType>(v.getType()).getRank() == 1)
          maps.push_back(loopsMap(ctx, NumLoops, {token}));
        else
          maps.push_back(loopsMap(ctx, NumLoops, {B, token}));
      } else if (isOperand(att.getAlibiSlopesMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {H}));
      // The destinations are indexed like the results they are tied to.
      else if (isOperand(att.getOutInitMutable(), n))
        maps.push_back(layoutMap(H, I, E));
      else if (isOperand(att.getLseInitMutable(), n))
        maps.push_back(loopsMap(ctx, NumLoops, {B, H, I}));
      else
        maps.push_back(privateMap(ctx, NumLoops, P, v.getType()));
    }
    maps.push_back(layoutMap(H, I, E));
    if (att.getLse())
      maps.push_back(loopsMap(ctx, NumLoops, {B, H, I}));
    return maps;
  }

  /// The loop of the key/value heads: the query heads' (their blocks are
  /// split together), or, with a single KV head (MQA) under several query
  /// heads, the private loop: every block of query heads reads that head.
  static unsigned kvHeadLoop(AttentionOp att) {
    SmallVector<int64_t> perm = att.getOperandPermutation();
    int64_t kvHeads = att.getKey().getType().getDimSize(perm[1]);
    int64_t heads = att.getQuery().getType().getDimSize(perm[1]);
    return kvHeads == 1 && heads != 1 ? unsigned(P) : unsigned(H);
  }

  /// Extents of the loops (kDynamic when unknown).
  static SmallVector<int64_t> loopExtents(AttentionOp att) {
    SmallVector<int64_t> perm = att.getOperandPermutation();
    auto q = att.getQuery().getType(), k = att.getKey().getType(),
         v = att.getValue().getType();
    return {q.getDimSize(perm[0]), q.getDimSize(perm[1]), q.getDimSize(perm[2]),
            k.getDimSize(perm[2]), q.getDimSize(perm[3]), v.getDimSize(perm[3]),
            ShapedType::kDynamic};
  }

  static std::optional<std::string> refusal(Operation *op, shard::GridOp grid,
                                            shard::ShardingArrayRef loops) {
    auto att = cast<AttentionOp>(op);
    // Channels are contracted or rotated whole.
    if (!loopAxes(loops, D).empty() || !loopAxes(loops, E).empty())
      return std::string("the channel dimensions are never split");
    if (!loopAxes(loops, P).empty())
      return std::string("frequency tables and broadcast dimensions of a bias "
                         "or mask are not split");
    if (std::optional<std::string> why =
            unevenSplit(grid, loops, loopExtents(att)))
      return why;
    // Heads: the KV heads must split into the same number of blocks (or be
    // the single head of MQA).
    if (ArrayRef<GridAxis> axes = loopAxes(loops, H);
        !axes.empty() && kvHeadLoop(att) == H) {
      SmallVector<int64_t> perm = att.getOperandPermutation();
      int64_t kvHeads = att.getKey().getType().getDimSize(perm[1]);
      int64_t heads = att.getQuery().getType().getDimSize(perm[1]);
      std::optional<int64_t> n =
          grid ? shardCount(grid, axes) : std::optional<int64_t>();
      std::string why = "a head split must also split the key/value heads "
                        "evenly (GQA groups stay on one process)";
      if (n && !ShapedType::isDynamic(kvHeads) && kvHeads % *n != 0 &&
          !ShapedType::isDynamic(heads))
        why += ": " + std::to_string(heads) + " query heads over " +
               std::to_string(kvHeads) + " key/value heads cannot be split " +
               "over " + std::to_string(*n) +
               " processes; a process count that divides " +
               std::to_string(kvHeads) + " would split them";
      if (!n || ShapedType::isDynamic(kvHeads) || kvHeads % *n != 0)
        return why;
    }
    // Keys: each shard's keys are a contiguous block with a known start. A
    // valid length L becomes L - k0 on the block (clamped by the op), but the
    // bottom-right causal base L - Tq would then use the clamped length.
    if (!loopAxes(loops, J).empty() && att.getKvLengths() && att.getCausal() &&
        att.getCausalAlignment() == CausalAlignment::BottomRight)
      return std::string("the key sequence is not split with kv_lengths "
                         "and bottom-right causal alignment");
    return std::nullopt;
  }

  /// The partition of a split `refusal` accepts (CheckedShardingModel).
  LogicalResult partitionChecked(Operation *op, ArrayRef<Value> operands,
                                 ArrayRef<Sharding> operandShardings,
                                 ArrayRef<Sharding> resultShardings,
                                 IRMapping &map,
                                 SymbolTableCollection &symbolTable,
                                 OpBuilder &builder) const {
    auto att = cast<AttentionOp>(op);
    SmallVector<int64_t> perm = att.getOperandPermutation();
    Sharding qs = operandShardings[0], ks = operandShardings[1];
    // Loop axes, read off the operands' shardings.
    ArrayRef<GridAxis> headAxes = axesOf(qs, perm[1]);
    ArrayRef<GridAxis> rowAxes = axesOf(qs, perm[2]);
    ArrayRef<GridAxis> keyAxes = axesOf(ks, perm[2]);
    bool splitKeys = !keyAxes.empty();

    // The local op; with split keys it also returns its log-sum-exp.
    AttentionOp local;
    if (!splitKeys || att.getLse()) {
      local = cast<AttentionOp>(cloneLocal(op, operands, operandShardings,
                                           resultShardings, map, symbolTable,
                                           builder));
    } else {
      SmallVector<Type> types;
      for (auto [result, s] : llvm::zip(op->getResults(), resultShardings))
        types.push_back(shard::shardType(
            result.getType(),
            shard::getGridOrNull(op, s.getGridAttr(), symbolTable), s));
      SmallVector<int64_t> rows;
      auto resultType = cast<RankedTensorType>(types[0]);
      rows = {resultType.getDimSize(0), resultType.getDimSize(perm[1]),
              resultType.getDimSize(perm[2])};
      Type computeType = getElementTypeOrSelf(att.getQuery().getType()).isF64()
                             ? builder.getF64Type()
                             : builder.getF32Type();
      types.push_back(RankedTensorType::get(rows, computeType));
      // Its lse destination.
      Value lseInit =
          AttentionOp::buildInits(builder, op->getLoc(), types[0], types[1],
                                  operands[0], operands[2], att.getLayout())
              .back();
      OperationState state(op->getLoc(), op->getName(), operands, types,
                           op->getAttrs());
      local = cast<AttentionOp>(builder.create(state));
      local.setInits(local.getOutInit(), lseInit);
    }

    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(local);
    ImplicitLocOpBuilder b(op->getLoc(), builder);
    StringRef grid = qs ? qs.getGrid() : ks.getGrid();
    auto qType = att.getQuery().getType(), kType = att.getKey().getType();
    auto lqType = local.getQuery().getType(), lkType = local.getKey().getType();
    int64_t tq = qType.getDimSize(perm[2]), tk = kType.getDimSize(perm[2]);
    int64_t ltq = lqType.getDimSize(perm[2]), ltk = lkType.getDimSize(perm[2]);
    Value rowStart =
        rowAxes.empty() ? Value() : shardStart(b, grid, rowAxes, ltq);
    Value keyStart =
        keyAxes.empty() ? Value() : shardStart(b, grid, keyAxes, ltk);

    // Heads: the global heads' ALiBi slopes.
    if (!headAxes.empty() && att.getAlibiAttr() && !att.getAlibiSlopes()) {
      int64_t heads = lqType.getDimSize(perm[1]);
      Value table =
          slopeTable(b, qType.getDimSize(perm[1]),
                     att.getAlibiAttr().getMaxBias().convertToDouble());
      Value start = shardStart(b, grid, headAxes, heads);
      local.getAlibiSlopesMutable().assign(sliceTable(b, table, start, heads));
    }
    // RoPE positions of the query and key blocks (positions tensors are
    // split with their tokens).
    if (att.getRopeAttr()) {
      if (rowStart && !att.getQueryPositions())
        local.getQueryOffsetMutable().assign(
            addIndex(b, local.getQueryOffset(), rowStart));
      if (keyStart && att.rotatesKey() && !att.getKeyPositions())
        local.getKeyOffsetMutable().assign(
            addIndex(b, local.getKeyOffset(), keyStart));
    }
    // Valid key lengths: the block's keys are valid up to L - k0 (the op
    // clamps it to the block).
    if (keyStart && att.getKvLengths())
      local.getKvLengthsMutable().assign(
          shiftLengths(b, local.getKvLengths(), keyStart));
    // ALiBi: the distance of query ao + i to key j, with both blocks moved.
    if (att.getAlibiAttr() && (rowStart || keyStart)) {
      Value offset = local.getAlibiOffset();
      if (rowStart)
        offset = addIndex(b, offset, rowStart);
      if (keyStart)
        offset = subIndex(b, offset, keyStart);
      local.getAlibiOffsetMutable().assign(offset);
    }
    // Causal (and window): key j is allowed for query i when
    // j <= i + base + c, base = 0 (top-left) or Tk - Tq (bottom-right). For
    // the blocks [r0, r0 + tq') x [k0, k0 + tk'), the local op's base is
    // computed from its local sizes, so
    //   c' = c + r0 - k0 + (base(Tk, Tq) - base(tk', tq')).
    if (att.getCausal() && (rowStart || keyStart)) {
      Value shift = arith::ConstantIndexOp::create(
          b, att.getCausalAlignment() == CausalAlignment::BottomRight
                 ? (tk - tq) - (ltk - ltq)
                 : 0);
      if (rowStart)
        shift = arith::AddIOp::create(b, shift, rowStart);
      if (keyStart)
        shift = arith::SubIOp::create(b, shift, keyStart);
      local.getCausalOffsetMutable().assign(
          addIndex(b, local.getCausalOffset(), shift));
    }

    if (!splitKeys)
      return success();
    builder.setInsertionPointAfter(local);
    b.setInsertionPointAfter(local);
    Value lse = local.getLse();
    // The `key` distance (b = j) of key k0 + j is the block's plus k0: every
    // score of a row of head h grows by m_h k0, which softmax ignores within
    // the block but the combination needs: the block's lse grows by m_h k0.
    if (att.getAlibiAttr() &&
        att.getAlibiAttr().getDistance() == AlibiDistance::Key) {
      Value slopes = local.getAlibiSlopes();
      if (!slopes)
        slopes = slopeTable(b, qType.getDimSize(perm[1]),
                            att.getAlibiAttr().getMaxBias().convertToDouble());
      lse = shiftRows(b, lse, slopes, keyStart);
    }
    auto [out, combinedLse] = combineKeyShards(b, local.getResult(), lse, grid,
                                               keyAxes, att.getLayout());
    map.map(op->getResult(0), out);
    if (att.getLse())
      map.map(op->getResult(1), combinedLse);
    builder.setInsertionPoint(b.getInsertionBlock(), b.getInsertionPoint());
    return success();
  }

  /// `lengths - start` elementwise (a 1-D i32 or i64 tensor).
  static Value shiftLengths(ImplicitLocOpBuilder &b, Value lengths,
                            Value start) {
    auto type = cast<RankedTensorType>(lengths.getType());
    Type et = type.getElementType();
    Value delta = arith::IndexCastOp::create(b, et, start);
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, b.getContext());
    Value init = tensor::EmptyOp::create(b, type.getShape(), et);
    return linalg::GenericOp::create(
               b, TypeRange{type}, ValueRange{lengths}, ValueRange{init},
               ArrayRef<AffineMap>{id, id},
               ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
               [&](OpBuilder &nb, Location loc, ValueRange args) {
                 Value r = arith::SubIOp::create(nb, loc, args[0], delta);
                 linalg::YieldOp::create(nb, loc, r);
               })
        .getResult(0);
  }

  /// lse[b, h, i] + slopes[h] * start, in the type of `lse`.
  static Value shiftRows(ImplicitLocOpBuilder &b, Value lse, Value slopes,
                         Value start) {
    MLIRContext *ctx = b.getContext();
    auto type = cast<RankedTensorType>(lse.getType());
    auto ct = cast<FloatType>(type.getElementType());
    Value k0 = arith::SIToFPOp::create(
        b, ct, arith::IndexCastOp::create(b, b.getI64Type(), start));
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    Value init = tensor::EmptyOp::create(b, type.getShape(), ct);
    return linalg::GenericOp::create(
               b, TypeRange{type}, ValueRange{lse, slopes}, ValueRange{init},
               ArrayRef<AffineMap>{id3, loopsMap(ctx, 3, {1}), id3},
               SmallVector<utils::IteratorType>(3,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location loc, ValueRange args) {
                 Value m = args[1];
                 if (m.getType() != ct)
                   m = cast<FloatType>(m.getType()).getWidth() > ct.getWidth()
                           ? Value(arith::TruncFOp::create(nb, loc, ct, m))
                           : Value(arith::ExtFOp::create(nb, loc, ct, m));
                 Value shift = arith::MulFOp::create(nb, loc, m, k0);
                 Value r = arith::AddFOp::create(nb, loc, args[0], shift);
                 linalg::YieldOp::create(nb, loc, r);
               })
        .getResult(0);
  }

  /// The exact combination of the per-shard attention outputs `o_s` and
  /// log-sum-exps `l_s` of the shards along `axes`:
  ///   m = max_s l_s, w_s = exp(l_s - m) (0 for a shard with no allowed key),
  ///   out = sum_s w_s o_s / sum_s w_s (0 where no shard has an allowed key),
  ///   lse = m + log(sum_s w_s).
  static std::pair<Value, Value>
  combineKeyShards(ImplicitLocOpBuilder &b, Value o, Value l, StringRef grid,
                   ArrayRef<GridAxis> axes, AttentionLayout layout) {
    MLIRContext *ctx = b.getContext();
    auto oType = cast<RankedTensorType>(o.getType());
    auto lType = cast<RankedTensorType>(l.getType());
    auto ct = cast<FloatType>(lType.getElementType());
    Type et = oType.getElementType();
    auto par3 =
        SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel);
    auto par4 =
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel);
    AffineMap id3 = AffineMap::getMultiDimIdentityMap(3, ctx);
    AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
    // The lse [B, H, Tq] element of a result element, in the layout.
    AffineMap rowOf = layout == AttentionLayout::BSHD
                          ? loopsMap(ctx, 4, {0, 2, 1})
                          : loopsMap(ctx, 4, {0, 1, 2});
    auto zero = [&](OpBuilder &nb, Location loc, Type t) -> Value {
      return arith::ConstantOp::create(nb, loc, t, nb.getFloatAttr(t, 0.0));
    };

    Value m =
        shard::AllReduceOp::create(b, l, grid, axes, shard::ReductionKind::Max);
    Value wInit = tensor::EmptyOp::create(b, lType.getShape(), ct);
    Value w = linalg::GenericOp::create(
                  b, TypeRange{lType}, ValueRange{l, m}, ValueRange{wInit},
                  ArrayRef<AffineMap>{id3, id3, id3}, par3,
                  [&](OpBuilder &nb, Location loc, ValueRange args) {
                    Value ninf = arith::ConstantOp::create(
                        nb, loc, ct,
                        nb.getFloatAttr(
                            ct, -std::numeric_limits<double>::infinity()));
                    Value empty = arith::CmpFOp::create(
                        nb, loc, arith::CmpFPredicate::OEQ, args[0], ninf);
                    Value d = arith::SubFOp::create(nb, loc, args[0], args[1]);
                    Value e = math::ExpOp::create(nb, loc, d);
                    Value r = arith::SelectOp::create(nb, loc, empty,
                                                      zero(nb, loc, ct), e);
                    linalg::YieldOp::create(nb, loc, r);
                  })
                  .getResult(0);
    auto wideType = RankedTensorType::get(oType.getShape(), ct);
    Value wideInit = tensor::EmptyOp::create(b, oType.getShape(), ct);
    Value weighted =
        linalg::GenericOp::create(
            b, TypeRange{wideType}, ValueRange{o, w}, ValueRange{wideInit},
            ArrayRef<AffineMap>{id4, rowOf, id4}, par4,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value x = args[0];
              if (x.getType() != ct)
                x = arith::ExtFOp::create(nb, loc, ct, x);
              Value r = arith::MulFOp::create(nb, loc, x, args[1]);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    Value num = shard::AllReduceOp::create(b, weighted, grid, axes,
                                           shard::ReductionKind::Sum);
    Value den =
        shard::AllReduceOp::create(b, w, grid, axes, shard::ReductionKind::Sum);
    Value outInit = tensor::EmptyOp::create(b, oType.getShape(), et);
    Value out =
        linalg::GenericOp::create(
            b, TypeRange{oType}, ValueRange{num, den}, ValueRange{outInit},
            ArrayRef<AffineMap>{id4, rowOf, id4}, par4,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value z = zero(nb, loc, ct);
              Value any = arith::CmpFOp::create(
                  nb, loc, arith::CmpFPredicate::OGT, args[1], z);
              Value q = arith::DivFOp::create(nb, loc, args[0], args[1]);
              Value r = arith::SelectOp::create(nb, loc, any, q, z);
              if (r.getType() != et)
                r = arith::TruncFOp::create(nb, loc, et, r);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    Value lseInit = tensor::EmptyOp::create(b, lType.getShape(), ct);
    Value lse =
        linalg::GenericOp::create(
            b, TypeRange{lType}, ValueRange{m, den}, ValueRange{lseInit},
            ArrayRef<AffineMap>{id3, id3, id3}, par3,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              Value lg = math::LogOp::create(nb, loc, args[1]);
              Value r = arith::AddFOp::create(nb, loc, args[0], lg);
              linalg::YieldOp::create(nb, loc, r);
            })
            .getResult(0);
    return {out, lse};
  }
};
} // namespace

void pe::sharding::attachAttentionShardingModel(MLIRContext *ctx) {
  AttentionOp::attachInterface<AttentionSharding>(*ctx);
}
