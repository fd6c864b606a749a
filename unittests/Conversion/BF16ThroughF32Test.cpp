//===- BF16ThroughF32Test.cpp - f64 -> bf16 through f32, rounded once -----===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// populateBF16ThroughF32Patterns rewrites arith.truncf f64 -> bf16 into a
// round-to-odd step into f32 and a round-to-nearest-even step into bf16. The
// test evaluates the rewritten ops with MLIR's constant folders (APFloat for
// each float op, APInt for the bit operations) on many f64 values, and
// compares with APFloat's direct, correctly rounded f64 -> bf16 conversion.
// The values include bf16 rounding midpoints perturbed by less than half an
// f32 ulp, where rounding to nearest twice (f64 -> f32 -> bf16) goes wrong;
// the test checks that the naive two-step rounding does fail on them, so that
// it can tell the two apart.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;

namespace {

class BF16ThroughF32Test : public ::testing::Test {
protected:
  BF16ThroughF32Test() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect>();
  }

  /// `func @f(%x: f64) -> bf16 { truncf %x }`, its truncf rewritten by the
  /// patterns when `rewrite`, else first truncated to f32 (naive double
  /// rounding).
  OwningOpRef<ModuleOp> build(bool rewrite) {
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(
        b, loc, "f", b.getFunctionType({b.getF64Type()}, {b.getBF16Type()}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    Value x = entry->getArgument(0);
    if (!rewrite)
      x = arith::TruncFOp::create(b, loc, b.getF32Type(), x);
    Value t = arith::TruncFOp::create(b, loc, b.getBF16Type(), x);
    func::ReturnOp::create(b, loc, t);
    if (rewrite) {
      RewritePatternSet patterns(&context);
      pe::populateBF16ThroughF32Patterns(patterns);
      EXPECT_TRUE(
          succeeded(applyPatternsGreedily(*module, std::move(patterns))));
      // The pattern must have fired: no f64 -> bf16 truncf is left.
      bool direct = false;
      module->walk([&](arith::TruncFOp op) {
        direct |= op.getIn().getType().isF64() && op.getType().isBF16();
      });
      EXPECT_FALSE(direct);
    }
    return module;
  }

  /// The bf16 bits `module`'s function returns for `value`: its body run
  /// by a small evaluator of the ops the rewrite produces, each by its
  /// documented semantics on APFloat / APInt (arith.truncf rounds to nearest
  /// even; MLIR's folders do not fold inexact truncations).
  uint16_t evaluate(ModuleOp module, double value) {
    auto fn = cast<func::FuncOp>(module.getBody()->getOperations().front());
    llvm::DenseMap<Value, llvm::APFloat> floats;
    llvm::DenseMap<Value, llvm::APInt> ints;
    floats.try_emplace(fn.getArgument(0), llvm::APFloat(value));
    auto f = [&](Value v) { return floats.find(v)->second; };
    auto i = [&](Value v) { return ints.find(v)->second; };
    auto setFloat = [&](Value v, llvm::APFloat x) {
      floats.erase(v);
      floats.try_emplace(v, x);
    };
    auto setInt = [&](Value v, llvm::APInt x) {
      ints.erase(v);
      ints.try_emplace(v, x);
    };
    auto convert = [](llvm::APFloat x, Type to) {
      bool lost;
      x.convert(cast<FloatType>(to).getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      return x;
    };
    for (Operation &op : fn.getBody().front()) {
      if (auto c = dyn_cast<arith::ConstantOp>(op)) {
        if (auto fa = dyn_cast<FloatAttr>(c.getValue()))
          setFloat(c, fa.getValue());
        else
          setInt(c, cast<IntegerAttr>(c.getValue()).getValue());
      } else if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
        setFloat(op.getResult(0),
                 convert(f(op.getOperand(0)), op.getResult(0).getType()));
      } else if (auto neg = dyn_cast<arith::NegFOp>(op)) {
        setFloat(neg, -f(neg.getOperand()));
      } else if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
        llvm::APFloat::cmpResult r = f(cmp.getLhs()).compare(f(cmp.getRhs()));
        bool result;
        switch (cmp.getPredicate()) {
        case arith::CmpFPredicate::ONE:
          result = r == llvm::APFloat::cmpLessThan ||
                   r == llvm::APFloat::cmpGreaterThan;
          break;
        case arith::CmpFPredicate::OGT:
          result = r == llvm::APFloat::cmpGreaterThan;
          break;
        case arith::CmpFPredicate::OLT:
          result = r == llvm::APFloat::cmpLessThan;
          break;
        default:
          ADD_FAILURE() << "unexpected predicate";
          return 0;
        }
        setInt(cmp, llvm::APInt(1, result));
      } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
        Value chosen = i(sel.getCondition()).getBoolValue()
                           ? sel.getTrueValue()
                           : sel.getFalseValue();
        if (isa<FloatType>(sel.getType()))
          setFloat(sel, f(chosen));
        else
          setInt(sel, i(chosen));
      } else if (auto bc = dyn_cast<arith::BitcastOp>(op)) {
        if (auto to = dyn_cast<FloatType>(bc.getType()))
          setFloat(bc, llvm::APFloat(to.getFloatSemantics(), i(bc.getIn())));
        else
          setInt(bc, f(bc.getIn()).bitcastToAPInt());
      } else if (auto sub = dyn_cast<arith::SubIOp>(op)) {
        setInt(sub, i(sub.getLhs()) - i(sub.getRhs()));
      } else if (auto orOp = dyn_cast<arith::OrIOp>(op)) {
        setInt(orOp, i(orOp.getLhs()) | i(orOp.getRhs()));
      } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        return f(ret.getOperand(0)).bitcastToAPInt().getZExtValue();
      } else {
        ADD_FAILURE() << "unexpected op " << op.getName().getStringRef().str();
        return 0;
      }
    }
    return 0;
  }

  static uint16_t reference(double value) {
    llvm::APFloat f(value);
    bool lost;
    f.convert(llvm::APFloat::BFloat(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return f.bitcastToAPInt().getZExtValue();
  }

  static bool isNaNBits(uint16_t bits) {
    return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f);
  }

  MLIRContext context;
};

/// Values around bf16 rounding midpoints: m +- d with d below half an f32
/// ulp of m, at several exponents, both signs.
std::vector<double> midpointValues() {
  std::vector<double> values;
  for (int e : {-140, -133, -126, -100, -20, -1, 0, 1, 7, 60, 127}) {
    for (uint32_t mantissa : {0x00u, 0x01u, 0x3au, 0x7eu, 0x7fu}) {
      // bf16 value a = (1 + mantissa / 128) * 2^e and the midpoint to the
      // next bf16 value.
      double a = std::ldexp(1.0 + mantissa / 128.0, e);
      double m = a + std::ldexp(1.0, e - 8);
      for (double rel : {0.0, 1e-12, -1e-12, 3e-9, -3e-9})
        for (double sign : {1.0, -1.0})
          values.push_back(sign * (m + m * rel));
    }
  }
  return values;
}

TEST_F(BF16ThroughF32Test, MatchesOneCorrectRounding) {
  OwningOpRef<ModuleOp> rewritten = build(/*rewrite=*/true);
  std::vector<double> values = midpointValues();
  for (double v :
       {0.0, -0.0, 1.0, -1.0, 3.0e38, 3.4e38, 3.5e38, 1.0e300, -1.0e300,
        1.0e-40, 1.0e-45, 1.0e-300, HUGE_VAL, -HUGE_VAL, std::nan("")})
    values.push_back(v);
  std::mt19937_64 rng(20261201);
  std::uniform_int_distribution<uint64_t> bits;
  std::uniform_int_distribution<int> exponent(-150, 130);
  for (int i = 0; i < 2000; ++i) {
    uint64_t r = bits(rng);
    double any;
    std::memcpy(&any, &r, sizeof any); // any f64, NaNs and huge values too
    values.push_back(any);
    // and values in and around the bf16 range
    double mantissa = 1.0 + double(r >> 12) * 0x1p-52;
    values.push_back((r & 1 ? -1.0 : 1.0) *
                     std::ldexp(mantissa, exponent(rng)));
  }
  int checked = 0;
  for (double v : values) {
    uint16_t got = evaluate(*rewritten, v), want = reference(v);
    if (std::isnan(v)) {
      EXPECT_TRUE(isNaNBits(got)) << "NaN in, got bits " << got;
      continue;
    }
    EXPECT_EQ(got, want) << "value " << v;
    ++checked;
  }
  EXPECT_GT(checked, 4000);
}

TEST_F(BF16ThroughF32Test, NaiveDoubleRoundingDiffers) {
  OwningOpRef<ModuleOp> naive = build(/*rewrite=*/false);
  int wrong = 0;
  for (double v : midpointValues())
    wrong += evaluate(*naive, v) != reference(v);
  // Rounding to nearest f32 first turns m + d into the midpoint m, which
  // then rounds to even: wrong for about half the perturbed values.
  EXPECT_GT(wrong, 20);
}

} // namespace
