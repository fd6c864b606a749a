//===- BF16Storage.cpp - bf16 kernel buffers as 16-bit integers -----------===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22's GPU -> SPIR-V conversion has no bf16 lowering for
// targets without a bf16 type, and SPIR-V 1.3 (what Vulkan drivers such as
// lavapipe take) has none.
// The generated kernels only move bf16 values between memory and f32 or f64
// arithmetic (loads followed by arith.extf, arith.truncf followed by stores),
// which is bit manipulation on 16-bit integers: a bf16 value is the high half
// of the f32 with the same value. `pe-gpu-bf16-storage` rewrites each kernel
// so that no bf16 type is left once `arith-expand{include-bf16}` has turned
// the f32 <-> bf16 conversions into integer operations:
//
//   * a kernel argument memref<... x bf16> becomes memref<... x i16> (the
//     same bytes); its loads are followed by an arith.bitcast i16 -> bf16 and
//     its stores preceded by one bf16 -> i16; every gpu.launch_func of the
//     kernel passes its operand through a builtin.unrealized_conversion_cast,
//     which the host lowering resolves (both memref types lower to the same
//     LLVM struct); the kernel's own bf16 buffers (memref.alloc / alloca in
//     the Workgroup or Function storage class, after
//     pe-prepare-gpu-for-spirv) get the same treatment;
//   * arith.extf bf16 -> f64 becomes extf bf16 -> f32 -> f64 (both exact);
//   * arith.truncf f64 -> bf16 becomes a round-to-odd f64 -> f32 step, then
//     the round-to-nearest-even f32 -> bf16 step. Rounding to odd in between
//     keeps the result that of one correct rounding of the f64 value (f32
//     carries at least two more bits than bf16, also among subnormals), so
//     the sinusoidal kernel's "rounded once" contract holds.
//
// Any other use of a bf16 argument (a view, a cast, a call) is an error that
// names it: the conversion would otherwise change what the kernel computes.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_GPUBF16STORAGE
#include "pe/Transforms/GPU/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {

bool isBF16MemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && memref.getElementType().isBF16();
}

MemRefType asI16(MemRefType type) {
  return MemRefType::get(type.getShape(),
                         IntegerType::get(type.getContext(), 16),
                         type.getLayout(), type.getMemorySpace());
}

/// extf bf16 -> f64 (or wider): through f32, exactly.
struct ExtendBF16ThroughF32 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = getElementTypeOrSelf(op.getIn().getType());
    Type out = getElementTypeOrSelf(op.getType());
    if (!in.isBF16() || out.isF32())
      return rewriter.notifyMatchFailure(op, "not bf16 to a type beside f32");
    Type f32 = cloneType(op.getIn().getType(), rewriter.getF32Type());
    Value wide = arith::ExtFOp::create(rewriter, op.getLoc(), f32, op.getIn());
    rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    return success();
  }

  static Type cloneType(Type like, Type element) {
    if (auto shaped = dyn_cast<ShapedType>(like))
      return shaped.clone(element);
    return element;
  }
};

/// truncf f64 -> bf16: round to odd into f32, then to nearest even into bf16.
struct TruncateF64ToBF16ThroughF32 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isBF16() || !op.getIn().getType().isF64())
      return rewriter.notifyMatchFailure(op, "not a scalar f64 to bf16");
    if (op.getRoundingmodeAttr())
      return rewriter.notifyMatchFailure(op, "explicit rounding mode");
    Location loc = op.getLoc();
    Value x = op.getIn();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    // r: x rounded to nearest f32. When r is inexact, the f32 just below
    // |x| in magnitude (r itself, or r one step towards zero) with its last
    // bit set is x rounded to odd; NaN and exact values keep r.
    Value r = arith::TruncFOp::create(rewriter, loc, f32, x);
    Value back = arith::ExtFOp::create(rewriter, loc, x.getType(), r);
    Value inexact = arith::CmpFOp::create(rewriter, loc,
                                          arith::CmpFPredicate::ONE, back, x);
    Value absBack = absOf(rewriter, loc, back);
    Value absX = absOf(rewriter, loc, x);
    Value above = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGT, absBack, absX);
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, r);
    Value one = arith::ConstantIntOp::create(rewriter, loc, i32, 1);
    // Same sign, one step smaller in magnitude: the bits minus one.
    Value towardZero = arith::SelectOp::create(
        rewriter, loc, above, arith::SubIOp::create(rewriter, loc, bits, one),
        bits);
    Value odd = arith::OrIOp::create(rewriter, loc, towardZero, one);
    Value rounded = arith::SelectOp::create(rewriter, loc, inexact, odd, bits);
    Value f = arith::BitcastOp::create(rewriter, loc, f32, rounded);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), f);
    return success();
  }

  /// |v| as a select (the math dialect is not needed for one abs).
  static Value absOf(PatternRewriter &rewriter, Location loc, Value v) {
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getFloatAttr(v.getType(), 0.0));
    Value negative = arith::CmpFOp::create(rewriter, loc,
                                           arith::CmpFPredicate::OLT, v, zero);
    return arith::SelectOp::create(rewriter, loc, negative,
                                   arith::NegFOp::create(rewriter, loc, v), v);
  }
};

struct GPUBF16StoragePass
    : public pe::impl::GPUBF16StorageBase<GPUBF16StoragePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUFuncOp> changed;
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      if (failed(rewriteBuffers(func)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    // Launches: their operands must have the kernel's argument types.
    WalkResult launches = module.walk([&](gpu::LaunchFuncOp launch) {
      auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!func)
        return WalkResult::advance();
      OpBuilder b(launch);
      for (auto [i, operand] : llvm::enumerate(launch.getKernelOperands())) {
        Type want = func.getArgumentTypes()[i];
        if (operand.getType() == want || !isBF16MemRef(operand.getType()))
          continue;
        if (want != asI16(cast<MemRefType>(operand.getType()))) {
          launch.emitError()
              << "kernel operand " << i << " of type " << operand.getType()
              << " does not match the kernel's " << want;
          return WalkResult::interrupt();
        }
        Value cast = UnrealizedConversionCastOp::create(b, launch.getLoc(),
                                                        want, operand)
                         .getResult(0);
        launch.getKernelOperandsMutable()[i].set(cast);
      }
      return WalkResult::advance();
    });
    if (launches.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    pe::populateBF16ThroughF32Patterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
      if (failed(applyPatternsGreedily(gpuModule, frozen)))
        return signalPassFailure();
  }

  /// Turns the bf16 memrefs of `func` (its arguments and its workgroup and
  /// private buffers) into i16 ones, with bitcasts at their loads and stores.
  LogicalResult rewriteBuffers(gpu::GPUFuncOp func) {
    SmallVector<Type> inputs(func.getArgumentTypes());
    bool anyArgument = false;
    SmallVector<Value> buffers;
    for (BlockArgument arg : func.getArguments())
      if (isBF16MemRef(arg.getType()))
        buffers.push_back(arg);
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
          isBF16MemRef(op->getResult(0).getType()))
        buffers.push_back(op->getResult(0));
    });
    for (Value buffer : buffers) {
      if (failed(rewriteBuffer(buffer)))
        return failure();
      if (auto arg = dyn_cast<BlockArgument>(buffer)) {
        inputs[arg.getArgNumber()] = arg.getType();
        anyArgument = true;
      }
    }
    if (anyArgument)
      func.setFunctionType(
          FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
    return success();
  }

  /// `buffer` (a bf16 memref) as an i16 memref of the same shape.
  LogicalResult rewriteBuffer(Value buffer) {
    MLIRContext *ctx = buffer.getContext();
    Type bf16 = BFloat16Type::get(ctx);
    Type i16 = IntegerType::get(ctx, 16);
    for (Operation *user : buffer.getUsers()) {
      auto load = dyn_cast<memref::LoadOp>(user);
      auto store = dyn_cast<memref::StoreOp>(user);
      if (!load && !(store && store.getMemRef() == buffer) &&
          !isa<memref::DeallocOp>(user))
        return user->emitError()
               << "pe-gpu-bf16-storage: a bf16 kernel buffer is used by '"
               << user->getName()
               << "'; only memref.load and memref.store are rewritten";
    }
    buffer.setType(asI16(cast<MemRefType>(buffer.getType())));
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers())) {
      OpBuilder b(user);
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        b.setInsertionPointAfter(load);
        load.getResult().setType(i16);
        auto cast =
            arith::BitcastOp::create(b, load.getLoc(), bf16, load.getResult());
        load.getResult().replaceAllUsesExcept(cast, cast);
      } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
        Value bits = arith::BitcastOp::create(b, store.getLoc(), i16,
                                              store.getValueToStore());
        store.getValueMutable().set(bits);
      }
    }
    return success();
  }
};

} // namespace

void mlir::pe::populateBF16ThroughF32Patterns(RewritePatternSet &patterns) {
  patterns.add<ExtendBF16ThroughF32, TruncateF64ToBF16ThroughF32>(
      patterns.getContext());
}
