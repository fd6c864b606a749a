//===- InsertRuntimeChecks.cpp - size relations checked at run time -------===//
//
// Part of the pe-mlir project.
//
// The verifiers prove every size relation of a pe op whose sides are static.
// This pass states the same relations once more for the sides that are
// dynamic, as `cf.assert`s in front of the op, so that sizes that disagree at
// run time stop the program with a message instead of letting the lowered
// loops read or write out of bounds. Each op's list below follows its
// verifier (lib/Dialect/PE/IR/PE*Ops.cpp) relation by relation; the values
// inside tensors (positions, kv_lengths, offsets) need no check, because
// every lowering clamps or saturates them.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_INSERTRUNTIMECHECKS
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// A size in the program: dimension `dim` of a ranked tensor, an index value
/// (a `pe.alibi_bias` size operand) or a constant.
struct Size {
  Value value;
  int64_t dim = -1;
  int64_t constant = ShapedType::kDynamic;

  static Size of(Value tensor, int64_t dim) { return {tensor, dim}; }
  static Size index(Value v) { return {v, -1}; }
  static Size constantSize(int64_t c) { return {Value(), -1, c}; }

  /// The size when it is known at compile time.
  std::optional<int64_t> getStatic() const {
    if (!value)
      return constant;
    if (dim < 0) {
      if (auto cst = value.getDefiningOp<arith::ConstantIndexOp>())
        return cst.value();
      return std::nullopt;
    }
    int64_t d = cast<RankedTensorType>(value.getType()).getDimSize(dim);
    if (ShapedType::isDynamic(d))
      return std::nullopt;
    return d;
  }
};

/// Builds the checks of one op in front of it.
class CheckBuilder {
public:
  CheckBuilder(OpBuilder &builder, Operation *op)
      : b(builder), op(op), loc(op->getLoc()) {}

  unsigned count() const { return checks; }

  /// `a == b`.
  void equal(Size x, Size y, const Twine &what) {
    std::optional<int64_t> sx = x.getStatic(), sy = y.getStatic();
    if (sx && sy)
      return; // The verifier's business.
    check(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, get(x), get(y)),
        what);
  }

  /// `x == 1 || x == y` (numpy broadcasting of x to y).
  void broadcasts(Size x, Size y, const Twine &what) {
    std::optional<int64_t> sx = x.getStatic(), sy = y.getStatic();
    if ((sx && sy) || (sx && *sx == 1))
      return;
    Value vx = get(x);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value isOne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, vx, one);
    Value same =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, vx, get(y));
    check(arith::OrIOp::create(b, loc, isOne, same), what);
  }

  /// `x >= min` (signed: a negative index operand is caught).
  void atLeast(Size x, int64_t min, const Twine &what) {
    if (x.getStatic())
      return;
    Value bound = arith::ConstantIndexOp::create(b, loc, min);
    check(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, get(x), bound),
        what);
  }

  /// `n % d == 0`, for a `d` already checked to be at least 1.
  void divides(Size d, Size n, const Twine &what) {
    if (d.getStatic() && n.getStatic())
      return;
    Value rem = arith::RemUIOp::create(b, loc, get(n), get(d));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    check(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem, zero),
          what);
  }

  /// `product(sizes) * factor <= limit`, without overflow: each dynamic size
  /// is compared with the limit divided by everything before it. The sizes
  /// are already known to be non-negative.
  void productAtMost(ArrayRef<Size> sizes, int64_t factor, int64_t limit,
                     const Twine &what) {
    if (llvm::all_of(sizes, [](const Size &s) { return s.getStatic(); }))
      return;
    // remaining = limit / factor; for each size s: s <= remaining, then
    // remaining = remaining / max(s, 1). Static sizes are folded here, first.
    int64_t constant = limit / factor;
    bool staticFits = true;
    for (const Size &s : sizes)
      if (std::optional<int64_t> v = s.getStatic()) {
        staticFits &= *v <= constant;
        constant /= std::max<int64_t>(*v, 1);
      }
    Value remaining = arith::ConstantIndexOp::create(b, loc, constant);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value ok = arith::ConstantIntOp::create(b, loc, staticFits, 1);
    for (const Size &s : sizes) {
      if (s.getStatic())
        continue;
      Value v = get(s);
      Value fits = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, v,
                                         remaining);
      ok = arith::AndIOp::create(b, loc, ok, fits);
      Value divisor = arith::MaxUIOp::create(b, loc, v, one);
      remaining = arith::DivUIOp::create(b, loc, remaining, divisor);
    }
    check(ok, what);
  }

private:
  Value get(const Size &s) {
    if (!s.value)
      return arith::ConstantIndexOp::create(b, loc, s.constant);
    if (s.dim < 0)
      return s.value;
    // A dimension of a result is asked of its producer (the sizes it was
    // built from), so that the check adds no user to the result: fusion
    // moves single-use producers into their consumer.
    if (auto result = dyn_cast<OpResult>(s.value)) {
      ReifiedRankedShapedTypeDims dims;
      if (isa<ReifyRankedShapedTypeOpInterface>(result.getOwner()) &&
          succeeded(reifyResultShapes(b, result.getOwner(), dims)))
        return getValueOrCreateConstantIndexOp(
            b, loc, dims[result.getResultNumber()][s.dim]);
    }
    return tensor::DimOp::create(b, loc, s.value, s.dim);
  }

  void check(Value condition, const Twine &what) {
    createRuntimeCheck(b, op, condition, what);
    ++checks;
  }

  OpBuilder &b;
  Operation *op;
  Location loc;
  unsigned checks = 0;
};

/// Positions of a sequence op: `[T]` or `[B, T]` as long as the input.
void checkPositions(CheckBuilder &c, Value input, int64_t seqDim,
                    Value positions) {
  if (!positions)
    return;
  auto type = cast<RankedTensorType>(positions.getType());
  if (type.getRank() == 1) {
    c.equal(Size::of(positions, 0), Size::of(input, seqDim),
            "expects positions as long as the sequence dimension");
    return;
  }
  c.equal(Size::of(positions, 0), Size::of(input, 0),
          "expects [B, T] positions with the input's batch size");
  c.equal(Size::of(positions, 1), Size::of(input, seqDim),
          "expects [B, T] positions as long as the sequence dimension");
}

/// A RoPE frequency source (shared by pe.rope and the attention encoding).
/// `input` and `seqDim` locate the tokens for per-token caches.
void checkRotation(CheckBuilder &c, const Rotation &rotation, Value input,
                   int64_t seqDim) {
  Size pairs = Size::constantSize(rotation.rotaryDim / 2);
  if (Value f = rotation.invFreq) {
    c.equal(Size::of(f, 0), pairs, "expects inv_freq of length rotary_dim / 2");
    return;
  }
  Value cos = rotation.cosCache, sin = rotation.sinCache;
  int64_t rank = cast<RankedTensorType>(cos.getType()).getRank();
  for (int64_t d = 0; d < rank; ++d)
    c.equal(Size::of(cos, d), Size::of(sin, d),
            "expects cos and sin caches of one shape (dimension " + Twine(d) +
                ")");
  c.equal(Size::of(cos, rank - 1), pairs,
          "expects caches with rotary_dim / 2 columns");
  if (rank == 3) {
    c.equal(Size::of(cos, 0), Size::of(input, 0),
            "expects per-token caches with the input's batch size");
    c.equal(Size::of(cos, 1), Size::of(input, seqDim),
            "expects per-token caches with one row per token");
    return;
  }
  c.atLeast(Size::of(cos, 0), 1, "expects caches with at least one row");
}

void checkOp(CheckBuilder &c, RopeOp op) {
  Value input = op.getInput();
  int64_t seqDim = op.getSequenceDimOrDefault();
  checkPositions(c, input, seqDim, op.getPositions());
  checkRotation(c, op.getRotation(), input, seqDim);
}

void checkOp(CheckBuilder &c, AddSinusoidalOp op) {
  Value input = op.getInput();
  checkPositions(c, input, op.getInput().getType().getRank() - 2,
                 op.getPositions());
}

void checkOp(CheckBuilder &c, AddLearnedOp op) {
  Value input = op.getInput(), table = op.getTable();
  int64_t rank = op.getInput().getType().getRank();
  checkPositions(c, input, rank - 2, op.getPositions());
  c.equal(Size::of(table, 1), Size::of(input, rank - 1),
          "expects a table with one column per channel");
  c.atLeast(Size::of(table, 0), 1, "expects a table with at least one row");
}

void checkOp(CheckBuilder &c, AlibiBiasOp op) {
  auto type = op.getResult().getType();
  SmallVector<Size> sizes;
  unsigned next = 0;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(Size::constantSize(type.getDimSize(d)));
      continue;
    }
    Size s = Size::index(op.getDynamicSizes()[next++]);
    c.atLeast(s, 0, "expects non-negative sizes");
    sizes.push_back(s);
  }
  // The result is allocated: its byte size must be addressable (2^47 bytes,
  // the x86-64 and AArch64 user address space), which also keeps the size
  // computation of the allocation from overflowing.
  int64_t elementBytes =
      std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  c.productAtMost(sizes, elementBytes, int64_t(1) << 47,
                  "expects a result of at most 2^47 bytes");
  if (Value slopes = op.getSlopes())
    c.equal(Size::of(slopes, 0), sizes[0], "expects one slope per head");
}

void checkOp(CheckBuilder &c, AttentionOp op) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  int64_t hA = op.getHeadsAxis(), sA = op.getSequenceAxis();
  Size batch = Size::of(q, 0), heads = Size::of(q, hA), tq = Size::of(q, sA);
  Size kvHeads = Size::of(k, hA), tk = Size::of(k, sA), dim = Size::of(q, 3);

  c.equal(Size::of(k, 0), batch, "expects key and query of one batch size");
  c.equal(Size::of(v, 0), batch, "expects value and query of one batch size");
  c.equal(Size::of(k, 3), dim, "expects query and key of one head dimension");
  c.equal(Size::of(v, hA), kvHeads, "expects key and value of one head count");
  c.equal(Size::of(v, sA), tk, "expects key and value of one sequence length");
  c.atLeast(heads, 1, "expects at least one query head");
  c.atLeast(kvHeads, 1, "expects at least one key/value head");
  c.atLeast(dim, 1, "expects a head dimension of at least 1");
  c.divides(kvHeads, heads,
            "expects the query heads to be a multiple of the key/value heads");

  // A result type more static than the operands.
  auto checkResult = [&](Value result, ArrayRef<Size> expected,
                         StringRef name) {
    auto type = cast<RankedTensorType>(result.getType());
    for (auto [d, size] : llvm::enumerate(expected))
      if (!type.isDynamicDim(d))
        c.equal(Size::constantSize(type.getDimSize(d)), size,
                "expects the " + name + " type's dimension " + Twine(d) +
                    " to match the operands");
  };
  SmallVector<Size> out(4, batch);
  out[hA] = heads;
  out[sA] = tq;
  out[3] = Size::of(v, 3);
  checkResult(op.getResult(), out, "result");
  if (Value lse = op.getLse())
    checkResult(lse, {batch, heads, tq}, "lse");
  // The destinations' dynamic sizes (the results' sizes at run time). A
  // tensor.empty sized by tensor.dim of the very operand dimension (what
  // the builder and utils/attention-dps-rewrite.py make) needs no check.
  auto sameSize = [](Value init, int64_t d, const Size &size) {
    auto empty = init.getDefiningOp<tensor::EmptyOp>();
    if (!empty || !size.value || size.dim < 0)
      return false;
    auto dim = empty.getDynamicSize(d).getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    return dim && dim.getSource() == size.value && index == size.dim;
  };
  auto checkInit = [&](Value init, ArrayRef<Size> expected, StringRef name) {
    auto type = cast<RankedTensorType>(init.getType());
    for (auto [d, size] : llvm::enumerate(expected))
      if (type.isDynamicDim(d) && !sameSize(init, d, size))
        c.equal(Size::of(init, d), size,
                "expects the " + name + " destination's dimension " + Twine(d) +
                    " to match the operands");
  };
  checkInit(op.getOutInit(), out, "result");
  if (Value lseInit = op.getLseInit())
    checkInit(lseInit, {batch, heads, tq}, "lse");

  SmallVector<Size> scores = {batch, heads, tq, tk};
  for (auto [name, operand] : {std::make_pair("bias", op.getBias()),
                               std::make_pair("mask", op.getMask())}) {
    if (!operand)
      continue;
    int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
    for (int64_t i = 0; i < rank; ++i)
      c.broadcasts(Size::of(operand, rank - 1 - i), scores[3 - i],
                   "expects " + Twine(name) + " dimension " +
                       Twine(rank - 1 - i) +
                       " to be 1 or the score dimension [B, H, Tq, Tk]");
  }
  if (Value lengths = op.getKvLengths())
    c.equal(Size::of(lengths, 0), batch,
            "expects one kv_lengths entry per batch");
  if (std::optional<Rotation> rotation = op.getRotation())
    checkRotation(c, *rotation, q, sA);
  checkPositions(c, q, sA, op.getQueryPositions());
  checkPositions(c, k, sA, op.getKeyPositions());
  if (Value slopes = op.getAlibiSlopes())
    c.equal(Size::of(slopes, 0), heads,
            "expects one ALiBi slope per query head");
}

struct InsertRuntimeChecksPass
    : public pe::impl::InsertRuntimeChecksBase<InsertRuntimeChecksPass> {
  void runOnOperation() override {
    OpBuilder builder(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (isa<PEDialect>(op->getDialect()))
        insertRuntimeChecks(builder, op);
    });
  }
};

} // namespace

void mlir::pe::createRuntimeCheck(OpBuilder &builder, Operation *op,
                                  Value condition, const Twine &what) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (auto file = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn() << ": ";
  os << "'" << op->getName().getStringRef() << "' op " << what;
  cf::AssertOp::create(builder, op->getLoc(), condition, message);
}

unsigned mlir::pe::insertRuntimeChecks(OpBuilder &builder, Operation *op) {
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  CheckBuilder checks(builder, op);
  llvm::TypeSwitch<Operation *>(op)
      .Case<RopeOp, AddSinusoidalOp, AddLearnedOp, AlibiBiasOp, AttentionOp>(
          [&](auto concrete) { checkOp(checks, concrete); });
  return checks.count();
}
