//===- AttentionPlanTest.cpp - pe.attention's key rules -------------------===//
//
// Part of the pe-mlir project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The plan's index rules are built as arith ops on constants and folded by
// MLIR's constant folders; the results are compared with the rules of
// pe.attention's description written out here in plain integer arithmetic:
//   L = clamp(kv_length, 0, Tk); o = causal_offset (+ L - Tq, bottom-right);
//   key j allowed for token i iff j < L, j <= i + o, and j > i + o - W.
// The key range of a block of tokens must hold every allowed key of the
// block and be tight (its ends are allowed keys of some token).
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/Kernels/AttentionPlan.h"
#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::kernels;

namespace {

class AttentionPlanTest : public ::testing::Test {
protected:
  AttentionPlanTest() {
    context.loadDialect<PEDialect, arith::ArithDialect, func::FuncDialect,
                        tensor::TensorDialect>();
  }

  /// The pe.attention of a module with Tq = 8, Tk = 12, `encodings` (e.g.
  /// "alibi <symmetric>") and `attrs`.
  AttentionOp parse(const std::string &attrs, bool lengths,
                    const std::string &encodings = "") {
    std::string src =
        "func.func @a(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x12x16xf32>, "
        "%l: tensor<1xi64>, %o: index) -> tensor<1x2x8x16xf32> {\n"
        "  %init = tensor.empty() : tensor<1x2x8x16xf32>\n"
        "  %0 = pe.attention %q, %k, %k " +
        std::string(lengths ? "kv_lengths(%l : tensor<1xi64>) " : "") +
        (attrs.find("causal") != std::string::npos
             ? "causal_offset(%o : index) "
             : "") +
        encodings + " outs(%init : tensor<1x2x8x16xf32>) " + attrs +
        " : tensor<1x2x8x16xf32>, tensor<1x2x12x16xf32>, "
        "tensor<1x2x12x16xf32> -> tensor<1x2x8x16xf32>\n"
        "  return %0 : tensor<1x2x8x16xf32>\n}\n";
    module = parseSourceString<ModuleOp>(src, &context);
    EXPECT_TRUE(module);
    AttentionOp op;
    module->walk([&](AttentionOp a) { op = a; });
    return op;
  }

  /// Builds `build`'s values in a function of their own, folds it and
  /// returns the constants it returns (i1 as 0/1).
  SmallVector<int64_t>
  evaluate(function_ref<SmallVector<Value>(OpBuilder &, Location)> build) {
    OpBuilder b(&context);
    Location loc = b.getUnknownLoc();
    OwningOpRef<ModuleOp> m = ModuleOp::create(loc);
    b.setInsertionPointToEnd(m->getBody());
    auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType({}, {}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    SmallVector<Value> values = build(b, loc);
    auto ret = func::ReturnOp::create(b, loc, values);
    fn.setFunctionType(b.getFunctionType({}, ValueRange(values).getTypes()));
    EXPECT_TRUE(
        succeeded(applyPatternsGreedily(*m, RewritePatternSet(&context))));
    SmallVector<int64_t> r;
    for (Value v : ret.getOperands()) {
      IntegerAttr c;
      if (auto cst = v.getDefiningOp<arith::ConstantOp>())
        c = dyn_cast<IntegerAttr>(cst.getValue());
      EXPECT_TRUE(c) << "not folded to a constant";
      if (!c)
        return {};
      r.push_back(c.getType().isInteger(1) ? (c.getValue().isOne() ? 1 : 0)
                                           : c.getValue().getSExtValue());
    }
    return r;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

TEST_F(AttentionPlanTest, ValidKeysClampIn64Bits) {
  AttentionPlan plan(parse("{causal}", /*lengths=*/true));
  const int64_t tk = 12;
  const int64_t cases[] = {3,
                           0,
                           12,
                           13,
                           -7,
                           (int64_t(1) << 32) + 3,
                           std::numeric_limits<int64_t>::max(),
                           std::numeric_limits<int64_t>::min()};
  for (int64_t len : cases) {
    SmallVector<int64_t> r = evaluate([&](OpBuilder &b, Location loc) {
      Value raw = arith::ConstantIntOp::create(b, loc, b.getI64Type(), len);
      return SmallVector<Value>{
          plan.buildValidKeys(b, loc, raw, idx(b, loc, tk))};
    });
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0], std::clamp<int64_t>(len, 0, tk)) << "length " << len;
  }
  // An i32 length is sign-extended: -1 is no key, not 2^32 - 1.
  SmallVector<int64_t> r = evaluate([&](OpBuilder &b, Location loc) {
    Value raw = arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1);
    return SmallVector<Value>{
        plan.buildValidKeys(b, loc, raw, idx(b, loc, tk))};
  });
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], 0);
}

/// For every alignment, offset, window and valid length: keyAllowed for
/// every (i, j), and keyRange and keyTileRange (tiles of 1, 4 and 5 keys)
/// for every block of tokens against the rules.
TEST_F(AttentionPlanTest, KeyRulesMatchTheDescription) {
  const int64_t tq = 8, tk = 12;
  const int64_t tileSizes[] = {1, 4, 5};
  struct Config {
    const char *attrs;
    bool causal, topLeft;
    int64_t window;
  };
  const Config configs[] = {
      {"", false, false, 0},
      {"{causal}", true, false, 0},
      {"{causal, causal_alignment = #pe<causal_alignment top_left>}", true,
       true, 0},
      {"{causal, window = 3 : i64}", true, false, 3},
      {"{causal, causal_alignment = #pe<causal_alignment top_left>, "
       "window = 2 : i64}",
       true, true, 2},
  };
  for (const Config &cfg : configs) {
    for (int64_t len : {int64_t(12), int64_t(5), int64_t(0)}) {
      for (int64_t offset : {int64_t(0), int64_t(2), int64_t(-3)}) {
        if (!cfg.causal && offset != 0)
          continue;
        AttentionPlan plan(parse(cfg.attrs, /*lengths=*/true));
        auto o = [&] { return (cfg.topLeft ? 0 : len - tq) + offset; };
        auto allowed = [&](int64_t i, int64_t j) {
          if (j >= len)
            return false;
          if (cfg.causal && j > i + o())
            return false;
          if (cfg.window && j <= i + o() - cfg.window)
            return false;
          return true;
        };
        // keyAllowed over every (i, j), and keyRange over every block.
        SmallVector<int64_t> r = evaluate([&](OpBuilder &b, Location loc) {
          Value raw = arith::ConstantIntOp::create(b, loc, b.getI64Type(), len);
          Value valid = plan.buildValidKeys(b, loc, raw, idx(b, loc, tk));
          Value shift =
              cfg.causal ? plan.buildCausalShift(b, loc, valid, idx(b, loc, tq),
                                                 idx(b, loc, offset))
                         : Value();
          SmallVector<Value> out;
          for (int64_t i = 0; i < tq; ++i)
            for (int64_t j = 0; j < tk; ++j)
              out.push_back(plan.buildKeyAllowed(b, loc, idx(b, loc, i),
                                                 idx(b, loc, j), shift, valid));
          for (int64_t first = 0; first < tq; ++first)
            for (int64_t last = first; last < tq; ++last) {
              auto [lo, hi] = plan.buildKeyRange(
                  b, loc, idx(b, loc, first), idx(b, loc, last), shift, valid);
              out.push_back(lo);
              out.push_back(hi);
              for (int64_t size : tileSizes) {
                auto [tb, te] = plan.buildKeyTileRange(
                    b, loc, idx(b, loc, first), idx(b, loc, last), shift, valid,
                    size);
                out.push_back(tb);
                out.push_back(te);
              }
            }
          return out;
        });
        std::string what = std::string(cfg.attrs) +
                           " L=" + std::to_string(len) +
                           " offset=" + std::to_string(offset);
        ASSERT_EQ(r.size(),
                  size_t(tq * tk + tq * (tq + 1) * (1 + std::size(tileSizes))))
            << what;
        size_t n = 0;
        for (int64_t i = 0; i < tq; ++i)
          for (int64_t j = 0; j < tk; ++j)
            EXPECT_EQ(r[n++], allowed(i, j) ? 1 : 0)
                << what << " i=" << i << " j=" << j;
        for (int64_t first = 0; first < tq; ++first)
          for (int64_t last = first; last < tq; ++last) {
            int64_t lo = r[n++], hi = r[n++];
            int64_t minJ = tk, maxJ = -1;
            for (int64_t i = first; i <= last; ++i)
              for (int64_t j = 0; j < tk; ++j)
                if (allowed(i, j)) {
                  minJ = std::min(minJ, j);
                  maxJ = std::max(maxJ, j);
                }
            EXPECT_LE(0, lo) << what;
            EXPECT_LE(lo, hi) << what;
            EXPECT_LE(hi, len) << what;
            if (maxJ < 0) {
              EXPECT_EQ(lo, hi) << what << " rows " << first << ".." << last;
            } else {
              EXPECT_EQ(lo, minJ) << what << " rows " << first << ".." << last;
              EXPECT_EQ(hi, maxJ + 1)
                  << what << " rows " << first << ".." << last;
            }
            // Tile t holds keys [t * size, (t + 1) * size): the tiles are
            // those that hold an allowed key of the block, none if none is.
            for (int64_t size : tileSizes) {
              int64_t tb = r[n++], te = r[n++];
              std::string where = what + " rows " + std::to_string(first) +
                                  ".." + std::to_string(last) + " tiles of " +
                                  std::to_string(size);
              if (maxJ < 0) {
                EXPECT_EQ(tb, te) << where;
              } else {
                EXPECT_EQ(tb, minJ / size) << where;
                EXPECT_EQ(te, maxJ / size + 1) << where;
              }
            }
          }
      }
    }
  }
}

TEST_F(AttentionPlanTest, ScoreChainInTheOpsOrder) {
  auto chain = [&](const std::string &attrs, const std::string &enc = "") {
    return AttentionPlan(parse(attrs, /*lengths=*/false, enc)).getScoreChain();
  };
  using S = ScoreStep;
  EXPECT_EQ(chain("{}"), (SmallVector<S>{S::Scale, S::Mask}));
  EXPECT_EQ(chain("{softcap = 30.0 : f64}"),
            (SmallVector<S>{S::Scale, S::Softcap, S::Mask}));
  EXPECT_EQ(chain("{softcap = 30.0 : f64, "
                  "softcap_order = #pe<softcap_order after_bias>}",
                  "alibi <symmetric>"),
            (SmallVector<S>{S::Scale, S::Alibi, S::Softcap, S::Mask}));
  EXPECT_EQ(chain("{softcap = 30.0 : f64}", "alibi <symmetric>"),
            (SmallVector<S>{S::Scale, S::Softcap, S::Alibi, S::Mask}));
}

} // namespace
