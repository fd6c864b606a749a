//===- PEMathTest.cpp - Tests for the positional-encoding math ------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Every expected value below is independent of the code under test: it is
// either quoted from PE-FORMULAS.md, a closed-form literal, a literal
// re-implementation of a reference algorithm written in this file, or a
// float64 value printed by /usr/bin/python3 + numpy from a script written
// directly from PE-FORMULAS.md (the Python expression is named next to each
// number). Unless stated otherwise, comparisons against Python float64 use a
// relative tolerance of 1e-12.
//
//===----------------------------------------------------------------------===//

#include "pe/Support/PEMath.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <vector>

using namespace mlir::pe::formula;

namespace {

constexpr double kRelTol = 1e-12;

/// |actual - expected| <= tol * |expected| (absolute `tol` when expected == 0).
::testing::AssertionResult relNear(double actual, double expected,
                                   double tol = kRelTol) {
  double bound = expected == 0.0 ? tol : tol * std::fabs(expected);
  if (std::fabs(actual - expected) <= bound)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "actual " << actual << " vs expected " << expected << " (rel tol "
         << tol << ")";
}

#define EXPECT_REL(actual, expected) EXPECT_TRUE(relNear((actual), (expected)))

//===----------------------------------------------------------------------===//
// A1. Sinusoidal
//===----------------------------------------------------------------------===//

TEST(PEMathSinusoidal, InterleavedPos2Dim4) {
  // A1 interleaved, d = 4: channel pair k = 1 has frequency
  // 10000^(-2/4) = 0.01, so PE(2) = [sin 2, cos 2, sin 0.02, cos 0.02]
  // ~= [0.909, -0.416, 0.020, 1.000]. Check against std::sin/std::cos of the
  // literal angle (rel 1e-12) and against the rounded values (abs 1e-3).
  const double expected[4] = {std::sin(2.0), std::cos(2.0), std::sin(0.02),
                              std::cos(0.02)};
  const double rounded[4] = {0.909, -0.416, 0.020, 1.000};
  for (int64_t c = 0; c < 4; ++c) {
    double v = sinusoidal(2.0, c, 4, 10000.0, SinusoidalLayout::Interleaved);
    EXPECT_REL(v, expected[c]) << "channel " << c;
    EXPECT_NEAR(v, rounded[c], 1e-3) << "channel " << c;
  }
}

TEST(PEMathSinusoidal, InterleavedPosZeroIsZeroOne) {
  // A1 interleaved at p = 0: sin(0) = 0, cos(0) = 1 -> [0, 1, 0, 1, ...]
  // exactly.
  for (int64_t c = 0; c < 16; ++c)
    EXPECT_EQ(sinusoidal(0.0, c, 16, 10000.0, SinusoidalLayout::Interleaved),
              c % 2 == 0 ? 0.0 : 1.0)
        << "channel " << c;
}

TEST(PEMathSinusoidal, ConcatPosZeroIsZerosThenOnes) {
  // A1 concat at p = 0: [sin(0) x h | cos(0) x h] = [0 ... 0 | 1 ... 1].
  for (int64_t c = 0; c < 10; ++c)
    EXPECT_EQ(sinusoidal(0.0, c, 10, 10000.0, SinusoidalLayout::Concat),
              c < 5 ? 0.0 : 1.0)
        << "channel " << c;
}

TEST(PEMathSinusoidal, InterleavedFrequencies) {
  // Python: 1.0 / 10000.0 ** (2 * k / 6), k = 0, 1, 2 (A1 DistilBERT form);
  // both channels of a pair share the frequency.
  const double expected[3] = {1.0, 0.0464158883361278, 0.0021544346900318843};
  for (int64_t c = 0; c < 6; ++c)
    EXPECT_REL(
        sinusoidalFrequency(c, 6, 10000.0, SinusoidalLayout::Interleaved),
        expected[c / 2])
        << "channel " << c;
}

TEST(PEMathSinusoidal, ConcatFrequenciesFromPython) {
  // Python (fairseq get_embedding): emb = math.log(10000) / 3;
  // math.exp(k * -emb), k = 0..3, for dim = 8 (h = 4, denominator h - 1 = 3).
  const double expected[4] = {1.0, 0.046415888336127774, 0.0021544346900318825,
                              9.999999999999991e-05};
  for (int64_t c = 0; c < 8; ++c)
    EXPECT_REL(sinusoidalFrequency(c, 8, 10000.0, SinusoidalLayout::Concat),
               expected[c % 4])
        << "channel " << c;
}

TEST(PEMathSinusoidal, ConcatMatchesLiteralFairseq) {
  // Literal transcription of fairseq SinusoidalPositionalEmbedding
  // .get_embedding (A1): half = dim // 2; emb = log(10000) / (half - 1);
  // emb = exp(arange(half) * -emb); emb = p * emb; cat(sin, cos).
  const int64_t dim = 8, half = dim / 2;
  const double emb = std::log(10000.0) / (half - 1);
  for (int p = 0; p < 6; ++p) {
    std::vector<double> row;
    for (int k = 0; k < half; ++k)
      row.push_back(std::sin(p * std::exp(k * -emb)));
    for (int k = 0; k < half; ++k)
      row.push_back(std::cos(p * std::exp(k * -emb)));
    for (int64_t c = 0; c < dim; ++c)
      EXPECT_TRUE(
          relNear(sinusoidal(p, c, dim, 10000.0, SinusoidalLayout::Concat),
                  row[c], 1e-12))
          << "p " << p << " channel " << c;
  }
}

TEST(PEMathSinusoidal, ConcatOddDimHasZeroPadColumn) {
  // A1: odd dim -> zero pad one column. dim = 7: h = 3, channels 0..2 sin,
  // 3..5 cos with w_k = exp(-k ln(10000) / 2), channel 6 is 0.
  const double emb = std::log(10000.0) / 2.0;
  const double p = 3.0;
  for (int64_t k = 0; k < 3; ++k) {
    EXPECT_REL(sinusoidal(p, k, 7, 10000.0, SinusoidalLayout::Concat),
               std::sin(p * std::exp(k * -emb)));
    EXPECT_REL(sinusoidal(p, 3 + k, 7, 10000.0, SinusoidalLayout::Concat),
               std::cos(p * std::exp(k * -emb)));
  }
  EXPECT_EQ(sinusoidal(p, 6, 7, 10000.0, SinusoidalLayout::Concat), 0.0);
  EXPECT_EQ(sinusoidalFrequency(6, 7, 10000.0, SinusoidalLayout::Concat), 0.0);
  EXPECT_TRUE(sinusoidalIsPad(6, 7, SinusoidalLayout::Concat));
}

TEST(PEMathSinusoidal, ConcatHalfOneUsesUnitFrequency) {
  // h = 1 (dim 2 or 3): fairseq divides by zero; the documented choice is
  // w_0 = 1, i.e. [sin p, cos p] (+ pad column for dim 3).
  EXPECT_REL(sinusoidal(5.0, 0, 2, 10000.0, SinusoidalLayout::Concat),
             std::sin(5.0));
  EXPECT_REL(sinusoidal(5.0, 1, 2, 10000.0, SinusoidalLayout::Concat),
             std::cos(5.0));
  EXPECT_REL(sinusoidal(5.0, 1, 3, 10000.0, SinusoidalLayout::Concat),
             std::cos(5.0));
  EXPECT_EQ(sinusoidal(5.0, 2, 3, 10000.0, SinusoidalLayout::Concat), 0.0);
  // dim = 1: h = 0, the only column is padding.
  EXPECT_TRUE(sinusoidalIsPad(0, 1, SinusoidalLayout::Concat));
  EXPECT_EQ(sinusoidal(5.0, 0, 1, 10000.0, SinusoidalLayout::Concat), 0.0);
}

TEST(PEMathSinusoidal, ChannelPredicates) {
  // Interleaved: odd channels are cos; never padding, even for odd dim.
  EXPECT_FALSE(sinusoidalIsCos(0, 5, SinusoidalLayout::Interleaved));
  EXPECT_TRUE(sinusoidalIsCos(1, 5, SinusoidalLayout::Interleaved));
  EXPECT_FALSE(sinusoidalIsCos(4, 5, SinusoidalLayout::Interleaved));
  EXPECT_FALSE(sinusoidalIsPad(4, 5, SinusoidalLayout::Interleaved));
  // Concat dim 5: h = 2 -> [s s c c pad].
  const bool isCos[5] = {false, false, true, true, false};
  const bool isPad[5] = {false, false, false, false, true};
  for (int64_t c = 0; c < 5; ++c) {
    EXPECT_EQ(sinusoidalIsCos(c, 5, SinusoidalLayout::Concat), isCos[c]) << c;
    EXPECT_EQ(sinusoidalIsPad(c, 5, SinusoidalLayout::Concat), isPad[c]) << c;
  }
  // Even dim has no pad column.
  EXPECT_FALSE(sinusoidalIsPad(5, 6, SinusoidalLayout::Concat));
  // Out of range.
  EXPECT_FALSE(sinusoidalIsCos(7, 6, SinusoidalLayout::Interleaved));
  EXPECT_FALSE(sinusoidalIsCos(-1, 6, SinusoidalLayout::Concat));
}

TEST(PEMathSinusoidal, InvalidInputGivesNaN) {
  for (SinusoidalLayout l :
       {SinusoidalLayout::Interleaved, SinusoidalLayout::Concat}) {
    EXPECT_TRUE(std::isnan(sinusoidal(1.0, 0, 0, 10000.0, l)));
    EXPECT_TRUE(std::isnan(sinusoidal(1.0, -1, 4, 10000.0, l)));
    EXPECT_TRUE(std::isnan(sinusoidal(1.0, 4, 4, 10000.0, l)));
    EXPECT_TRUE(std::isnan(sinusoidal(1.0, 2, 4, 0.0, l)));
    EXPECT_TRUE(std::isnan(sinusoidalFrequency(2, 4, -1.0, l)));
  }
}

//===----------------------------------------------------------------------===//
// A3. Default RoPE frequencies
//===----------------------------------------------------------------------===//

TEST(PEMathRope, DefaultBase10000R128) {
  // Python: inv = 1.0 / (10000.0 ** (np.arange(0, 128, 2) / 128)); inv[k].
  RopeFrequencies f = defaultFrequencies(10000.0, 128);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.attentionFactor, 1.0);
  EXPECT_REL(f.invFreq[0], 1.0);
  EXPECT_REL(f.invFreq[1], 0.8659643233600655); // 10000^(-2/128)
  EXPECT_REL(f.invFreq[32], 0.01);              // 10000^(-64/128)
  EXPECT_REL(f.invFreq[63], 0.00011547819846894582);
}

TEST(PEMathRope, DefaultPairCount) {
  // A3: R/2 pairs (floor); nothing for R < 2.
  EXPECT_TRUE(defaultFrequencies(10000.0, 0).invFreq.empty());
  EXPECT_TRUE(defaultFrequencies(10000.0, 1).invFreq.empty());
  EXPECT_TRUE(defaultFrequencies(10000.0, -4).invFreq.empty());
  EXPECT_EQ(defaultFrequencies(10000.0, 2).invFreq.size(), 1u);
  EXPECT_EQ(defaultFrequencies(10000.0, 64).invFreq.size(), 32u);
  // Invalid base: NaN, no division by zero.
  RopeFrequencies bad = defaultFrequencies(0.0, 8);
  ASSERT_EQ(bad.invFreq.size(), 4u);
  for (double v : bad.invFreq)
    EXPECT_TRUE(std::isnan(v));
}

//===----------------------------------------------------------------------===//
// A4.1 - A4.3 linear / NTK / dynamic NTK
//===----------------------------------------------------------------------===//

TEST(PEMathRope, LinearIsDefaultOverFactor) {
  // Python: inv[k] / 4.0 with inv as in DefaultBase10000R128.
  RopeFrequencies f = linearScaling(10000.0, 128, 4.0);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.attentionFactor, 1.0);
  EXPECT_REL(f.invFreq[0], 0.25);
  EXPECT_REL(f.invFreq[1], 0.21649108084001636);
  EXPECT_REL(f.invFreq[63], 2.8869549617236455e-05);
}

TEST(PEMathRope, NtkBaseChange) {
  // Python: bp = 10000.0 * 4.0 ** (128 / 126)  (= 40889.94243248622);
  // 1.0 / (bp ** (np.arange(0, 128, 2) / 128)).
  RopeFrequencies f = ntkScaling(10000.0, 128, 4.0);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.attentionFactor, 1.0);
  EXPECT_REL(f.invFreq[0], 1.0);
  EXPECT_REL(f.invFreq[1], 0.8471171851512068);
  EXPECT_REL(f.invFreq[32], 0.004945289840680367);
  // Last pair: exponent 126/128 cancels R/(R-2) -> exactly default / factor
  // (same Python value as linear's inv[63] / 4).
  EXPECT_REL(f.invFreq[63], 2.8869549617236455e-05);
}

TEST(PEMathRope, NtkRotaryDimTwoDoesNotDivideByZero) {
  // R = 2: R/(R-2) is undefined but the single pair i = 0 has frequency
  // base'^0 = 1 for any base'.
  RopeFrequencies f = ntkScaling(10000.0, 2, 4.0);
  ASSERT_EQ(f.invFreq.size(), 1u);
  EXPECT_EQ(f.invFreq[0], 1.0);
  RopeFrequencies g = dynamicNtkScaling(10000.0, 2, 4.0, 2048, 8192);
  ASSERT_EQ(g.invFreq.size(), 1u);
  EXPECT_EQ(g.invFreq[0], 1.0);
}

TEST(PEMathRope, DynamicNtkShortSequenceEqualsDefault) {
  // seq_len <= max_position_embeddings: seq_len -> max, inner term
  // factor - (factor - 1) = 1, base unchanged. Expected: Python default values.
  for (int64_t seqLen : {int64_t(1), int64_t(2048), int64_t(4096)}) {
    RopeFrequencies f = dynamicNtkScaling(10000.0, 128, 2.0, 4096, seqLen);
    ASSERT_EQ(f.invFreq.size(), 64u);
    EXPECT_EQ(f.attentionFactor, 1.0);
    EXPECT_REL(f.invFreq[1], 0.8659643233600655);
    EXPECT_REL(f.invFreq[32], 0.01);
    EXPECT_REL(f.invFreq[63], 0.00011547819846894582);
  }
}

TEST(PEMathRope, DynamicNtkTwiceMax) {
  // Python: bp = 10000.0 * ((2.0 * 8192 / 4096) - (2.0 - 1)) ** (128 / 126)
  // (= 10000 * 3^(128/126) = 30527.7367488067);
  // 1.0 / (bp ** (np.arange(0, 128, 2) / 128)).
  RopeFrequencies f = dynamicNtkScaling(10000.0, 128, 2.0, 4096, 8192);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.attentionFactor, 1.0);
  EXPECT_REL(f.invFreq[1], 0.8509942913412163);
  EXPECT_REL(f.invFreq[32], 0.005723381508381237);
  EXPECT_REL(f.invFreq[63], 3.849273282298194e-05);
}

TEST(PEMathRope, ScalingsInvalidInputGiveNaN) {
  for (double v : linearScaling(10000.0, 8, 0.0).invFreq)
    EXPECT_TRUE(std::isnan(v));
  for (double v : dynamicNtkScaling(10000.0, 8, 2.0, 0, 16).invFreq)
    EXPECT_TRUE(std::isnan(v));
  for (double v : ntkScaling(-5.0, 8, 2.0).invFreq)
    EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(linearScaling(10000.0, 8, 0.0).invFreq.size(), 4u);
}

//===----------------------------------------------------------------------===//
// A4.4 YaRN
//===----------------------------------------------------------------------===//

YarnParams llamaLikeYarn() {
  YarnParams p;
  p.factor = 4.0;
  p.originalMaxPositions = 4096;
  return p;
}

TEST(PEMathYarn, GetMscale) {
  // get_mscale(s, m) = 1 if s <= 1 else 0.1 m ln s + 1.
  EXPECT_EQ(yarnGetMscale(1.0), 1.0);
  EXPECT_EQ(yarnGetMscale(0.5, 3.0), 1.0);
  // Python: 0.1 * math.log(4.0) + 1.0
  EXPECT_REL(yarnGetMscale(4.0), 1.138629436111989);
  // Python: 0.1 * 1.0 * math.log(40.0) + 1.0
  EXPECT_REL(yarnGetMscale(40.0), 1.3688879454113936);
  // Closed form: 0.1 * 2 * ln(e) + 1 = 1.2.
  EXPECT_REL(yarnGetMscale(std::exp(1.0), 2.0), 1.2);
}

TEST(PEMathYarn, CorrectionRangeTruncated) {
  // Python: fcd(n) = 128 * math.log(4096 / (n * 2 * math.pi)) /
  // (2 * math.log(10000)); fcd(32) = 20.944..., fcd(1) = 45.026... ->
  // (floor, ceil) = (20, 46).
  std::pair<double, double> r =
      yarnCorrectionRange(10000.0, 128, llamaLikeYarn());
  EXPECT_EQ(r.first, 20.0);
  EXPECT_EQ(r.second, 46.0);
}

TEST(PEMathYarn, CorrectionRangeUntruncated) {
  // Same Python fcd values without floor/ceil.
  YarnParams p = llamaLikeYarn();
  p.truncate = false;
  std::pair<double, double> r = yarnCorrectionRange(10000.0, 128, p);
  EXPECT_REL(r.first, 20.94448162063605);
  EXPECT_REL(r.second, 45.02688127375455);
}

TEST(PEMathYarn, CorrectionRangeClamped) {
  // beta_fast huge -> fcd < 0 -> clamped to 0; beta_slow tiny -> fcd > R-1
  // -> clamped to R - 1 = 127 (A4.4: max(low, 0), min(high, R-1)).
  YarnParams p = llamaLikeYarn();
  p.betaFast = 1e6;
  p.betaSlow = 1e-9;
  std::pair<double, double> r = yarnCorrectionRange(10000.0, 128, p);
  EXPECT_EQ(r.first, 0.0);
  EXPECT_EQ(r.second, 127.0);
}

TEST(PEMathYarn, BetaZeroMeansDefault) {
  // HF `beta_fast = cfg or 32`, `beta_slow = cfg or 1`: 0 -> defaults, so
  // the range equals the (20, 46) of CorrectionRangeTruncated.
  YarnParams p = llamaLikeYarn();
  p.betaFast = 0.0;
  p.betaSlow = 0.0;
  std::pair<double, double> r = yarnCorrectionRange(10000.0, 128, p);
  EXPECT_EQ(r.first, 20.0);
  EXPECT_EQ(r.second, 46.0);
}

TEST(PEMathYarn, LlamaLikeTruncated) {
  // Python (float64, from A4.4): low, high = 20, 46;
  // ramp = clip((arange(64) - 20) / (46 - 20), 0, 1); pos = 10000 **
  // (arange(0, 128, 2) / 128); inv = (1/(4*pos)) * ramp + (1/pos) * (1 - ramp)
  // (i.e. interp * (1 - w_extrap) + extrap * w_extrap, w_extrap = 1 - ramp).
  RopeFrequencies f = yarnScaling(10000.0, 128, llamaLikeYarn());
  ASSERT_EQ(f.invFreq.size(), 64u);
  // Python: 0.1 * math.log(4.0) + 1.0
  EXPECT_REL(f.attentionFactor, 1.138629436111989);
  EXPECT_REL(f.invFreq[0], 1.0);
  EXPECT_REL(f.invFreq[19], 0.06493816315762113);
  EXPECT_REL(f.invFreq[20], 0.056234132519034905);
  EXPECT_REL(f.invFreq[21], 0.047292038501684786);
  EXPECT_REL(f.invFreq[33], 0.005412277021000408);
  EXPECT_REL(f.invFreq[45], 0.0004294025889973584);
  EXPECT_REL(f.invFreq[46], 0.000333380358040831);
  EXPECT_REL(f.invFreq[63], 2.8869549617236455e-05);
}

TEST(PEMathYarn, LlamaLikeUntruncated) {
  // As LlamaLikeTruncated but low, high = fcd(32), fcd(1) without
  // floor/ceil (Python `truncate=False`).
  YarnParams p = llamaLikeYarn();
  p.truncate = false;
  RopeFrequencies f = yarnScaling(10000.0, 128, p);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_REL(f.attentionFactor, 1.138629436111989);
  EXPECT_REL(f.invFreq[0], 1.0);
  EXPECT_REL(f.invFreq[20], 0.056234132519034905);
  EXPECT_REL(f.invFreq[21], 0.04861255519347015);
  EXPECT_REL(f.invFreq[33], 0.00540841548018545);
  EXPECT_REL(f.invFreq[45], 0.00038627080494978237);
  EXPECT_REL(f.invFreq[46], 0.000333380358040831);
  EXPECT_REL(f.invFreq[63], 2.8869549617236455e-05);
}

TEST(PEMathYarn, DeepSeekLikeMscaleRatioIsOne) {
  // DeepSeek-V2-like: theta 10000, R 64, factor 40, L 4096,
  // mscale = mscale_all_dim = 0.707 -> attention factor
  // get_mscale(40, .707) / get_mscale(40, .707) = 1.0.
  // Python (same yarn() as above): range (10, 23); inv[k] below.
  YarnParams p;
  p.factor = 40.0;
  p.originalMaxPositions = 4096;
  p.mscale = 0.707;
  p.mscaleAllDim = 0.707;
  EXPECT_EQ(yarnCorrectionRange(10000.0, 64, p), std::make_pair(10.0, 23.0));
  RopeFrequencies f = yarnScaling(10000.0, 64, p);
  ASSERT_EQ(f.invFreq.size(), 32u);
  EXPECT_REL(f.attentionFactor, 1.0);
  EXPECT_REL(f.invFreq[0], 1.0);
  EXPECT_REL(f.invFreq[10], 0.056234132519034905);
  EXPECT_REL(f.invFreq[12], 0.026879360111431223);
  EXPECT_REL(f.invFreq[16], 0.0055);
  EXPECT_REL(f.invFreq[20], 0.0007905694150420947);
  EXPECT_REL(f.invFreq[31], 3.33380358040831e-06);
}

TEST(PEMathYarn, MscaleTruthiness) {
  YarnParams p;
  p.factor = 40.0;
  p.originalMaxPositions = 4096;
  // Python: get_mscale(40.0, 1.0) / get_mscale(40.0, 0.707)
  p.mscale = 1.0;
  p.mscaleAllDim = 0.707;
  EXPECT_REL(yarnScaling(10000.0, 64, p).attentionFactor, 1.0857263992561355);
  // `if mscale and mscale_all_dim`: 0 is falsy -> get_mscale(40.0)
  // (Python: 0.1 * math.log(40.0) + 1.0).
  p.mscale = 0.0;
  EXPECT_REL(yarnScaling(10000.0, 64, p).attentionFactor, 1.3688879454113936);
  // Only one of the two present -> get_mscale(factor).
  p.mscale = 1.0;
  p.mscaleAllDim.reset();
  EXPECT_REL(yarnScaling(10000.0, 64, p).attentionFactor, 1.3688879454113936);
}

TEST(PEMathYarn, ExplicitAttentionFactorWins) {
  // HF `if attention_factor is None` -> a given value (even 0) is used as is.
  YarnParams p = llamaLikeYarn();
  p.mscale = 1.0;
  p.mscaleAllDim = 0.5;
  p.attentionFactor = 0.5;
  EXPECT_EQ(yarnScaling(10000.0, 128, p).attentionFactor, 0.5);
  p.attentionFactor = 0.0;
  EXPECT_EQ(yarnScaling(10000.0, 128, p).attentionFactor, 0.0);
}

TEST(PEMathYarn, LowEqualsHighUsesEpsilon) {
  // beta_fast = beta_slow = 1, truncate = False -> low == high = 45.0268...;
  // HF `if min == max: max += 0.001`. Python (yarn(..., bf=1, bs=1,
  // truncate=False)): inv[44], inv[45] extrapolated, inv[46] interpolated.
  YarnParams p = llamaLikeYarn();
  p.betaFast = 1.0;
  p.betaSlow = 1.0;
  p.truncate = false;
  RopeFrequencies f = yarnScaling(10000.0, 128, p);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_REL(f.invFreq[44], 0.001778279410038923);
  EXPECT_REL(f.invFreq[45], 0.0015399265260594922);
  EXPECT_REL(f.invFreq[46], 0.000333380358040831);
  EXPECT_REL(f.invFreq[63], 2.8869549617236455e-05);
}

TEST(PEMathYarn, LowEqualsHighAtIntegerNeedsEpsilon) {
  // R 8, theta 10000, L 4096, beta_fast 1000, beta_slow 700, truncate:
  // Python fcd(1000) = -0.186 -> floor -1 -> max(., 0) = 0;
  // fcd(700) = -0.031 -> ceil 0 -> low == high == 0, so pair 0 would be
  // (0 - 0) / 0 without HF's `max += 0.001`. Python result:
  // ['1.0', '0.025', '0.0025', '0.00025'] (pair 0 extrapolated, rest
  // interpolated = default / 4).
  YarnParams p = llamaLikeYarn();
  p.betaFast = 1000.0;
  p.betaSlow = 700.0;
  EXPECT_EQ(yarnCorrectionRange(10000.0, 8, p), std::make_pair(0.0, 0.0));
  RopeFrequencies f = yarnScaling(10000.0, 8, p);
  const double expected[4] = {1.0, 0.025, 0.0025, 0.00025};
  ASSERT_EQ(f.invFreq.size(), 4u);
  for (int i = 0; i < 4; ++i)
    EXPECT_REL(f.invFreq[i], expected[i]) << "pair " << i;
}

TEST(PEMathYarn, InvalidInputGivesNaN) {
  // base == 1: ln(base) = 0 in find_correction_dim's denominator.
  std::pair<double, double> r = yarnCorrectionRange(1.0, 128, llamaLikeYarn());
  EXPECT_TRUE(std::isnan(r.first));
  EXPECT_TRUE(std::isnan(r.second));
  for (double v : yarnScaling(1.0, 16, llamaLikeYarn()).invFreq)
    EXPECT_TRUE(std::isnan(v));
  // factor 0: 1 / (factor * pos) would divide by zero.
  YarnParams p = llamaLikeYarn();
  p.factor = 0.0;
  RopeFrequencies f = yarnScaling(10000.0, 16, p);
  ASSERT_EQ(f.invFreq.size(), 8u);
  for (double v : f.invFreq)
    EXPECT_TRUE(std::isnan(v));
  // L = 0: log(0).
  p = llamaLikeYarn();
  p.originalMaxPositions = 0;
  EXPECT_TRUE(std::isnan(yarnCorrectionRange(10000.0, 16, p).first));
}

//===----------------------------------------------------------------------===//
// A4.6 llama3
//===----------------------------------------------------------------------===//

Llama3Params llama31Params() {
  // Llama-3.1 defaults from the A4.6 comments: factor 8, low 1, high 4,
  // L 8192 (theta 500000 is passed separately).
  return Llama3Params{8.0, 1.0, 4.0, 8192};
}

/// Literal A3 default frequency 1 / 500000^(2i/128), spelled out here so that
/// the llama3 tests do not depend on defaultFrequencies().
double llamaDefault(int i) { return 1.0 / std::pow(500000.0, 2.0 * i / 128.0); }

TEST(PEMathLlama3, HighFrequenciesUnchanged) {
  // Python: wavelen = 2 pi / inv < L / high = 2048 for pairs 0..28.
  RopeFrequencies f = llama3Scaling(500000.0, 128, llama31Params());
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.attentionFactor, 1.0);
  for (int i = 0; i <= 28; ++i)
    EXPECT_REL(f.invFreq[i], llamaDefault(i)) << "pair " << i;
}

TEST(PEMathLlama3, LowFrequenciesDividedByFactor) {
  // Python: wavelen > L / low = 8192 for pairs 35..63 -> inv / 8.
  RopeFrequencies f = llama3Scaling(500000.0, 128, llama31Params());
  ASSERT_EQ(f.invFreq.size(), 64u);
  for (int i = 35; i < 64; ++i)
    EXPECT_REL(f.invFreq[i], llamaDefault(i) / 8.0) << "pair " << i;
  // Python: out[63]
  EXPECT_REL(f.invFreq[63], 3.068925988914511e-07);
}

TEST(PEMathLlama3, MediumBandFromPython) {
  // Python (A4.6 verbatim with numpy float64): medium pairs are 29..34;
  // smooth = (8192 / wavelen - 1) / (4 - 1);
  // out = (1 - smooth) * inv / 8 + smooth * inv.
  RopeFrequencies f = llama3Scaling(500000.0, 128, llama31Params());
  ASSERT_EQ(f.invFreq.size(), 64u);
  const double expected[6] = {0.002166570763503359,   0.0013718935677611381,
                              0.0008567514129196321,  0.0005248461609929549,
                              0.00031269375038406517, 0.00017850781276799638};
  for (int i = 29; i <= 34; ++i) {
    EXPECT_REL(f.invFreq[i], expected[i - 29]) << "pair " << i;
    // Strictly between the low- and high-frequency rules.
    EXPECT_LT(f.invFreq[i], llamaDefault(i));
    EXPECT_GT(f.invFreq[i], llamaDefault(i) / 8.0);
  }
}

TEST(PEMathLlama3, EqualLowHighIsThresholdOnly) {
  // low == high: the smoothing denominator is 0; vLLM uses smooth = 0 ->
  // wavelen < L/high unchanged, otherwise inv / factor. With low = high = 4,
  // L/high = 2048 and (Python) pairs 0..28 have wavelen < 2048.
  Llama3Params p{8.0, 4.0, 4.0, 8192};
  RopeFrequencies f = llama3Scaling(500000.0, 128, p);
  ASSERT_EQ(f.invFreq.size(), 64u);
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(std::isfinite(f.invFreq[i])) << "pair " << i;
    EXPECT_REL(f.invFreq[i], i <= 28 ? llamaDefault(i) : llamaDefault(i) / 8.0)
        << "pair " << i;
  }
}

TEST(PEMathLlama3, EqualLowHighOnBandEdgeUsesSmoothZero) {
  // low = high = 8192 / (2 pi) (Python repr 1303.7972938088067; Python
  // checks 8192 / low == 2 * math.pi exactly), so lw == hw == 2 pi == the
  // wavelength of pair 0 (inv = 1): pair 0 is in the degenerate medium band,
  // where the smoothing denominator is 0. vLLM: smooth = 0 -> inv / factor.
  // All other pairs have wavelen > 2 pi -> inv / factor as well.
  Llama3Params p{8.0, 1303.7972938088067, 1303.7972938088067, 8192};
  RopeFrequencies f = llama3Scaling(500000.0, 128, p);
  ASSERT_EQ(f.invFreq.size(), 64u);
  EXPECT_EQ(f.invFreq[0], 0.125);
  for (int i = 1; i < 64; ++i)
    EXPECT_REL(f.invFreq[i], llamaDefault(i) / 8.0) << "pair " << i;
}

TEST(PEMathLlama3, InvalidInputGivesNaN) {
  Llama3Params p{8.0, 0.0, 4.0, 8192}; // L / low divides by zero.
  RopeFrequencies f = llama3Scaling(500000.0, 16, p);
  ASSERT_EQ(f.invFreq.size(), 8u);
  for (double v : f.invFreq)
    EXPECT_TRUE(std::isnan(v));
  Llama3Params q{0.0, 1.0, 4.0, 8192}; // inv / factor divides by zero.
  for (double v : llama3Scaling(500000.0, 16, q).invFreq)
    EXPECT_TRUE(std::isnan(v));
}

//===----------------------------------------------------------------------===//
// A4.5 LongRoPE
//===----------------------------------------------------------------------===//

LongRopeParams phiLikeLongRope() {
  LongRopeParams p;
  p.shortFactor = {1.0, 1.5, 2.0, 3.0};
  p.longFactor = {1.0, 2.0, 4.0, 8.0};
  p.originalMaxPositions = 4096;
  p.maxPositionEmbeddings = 131072;
  return p;
}

TEST(PEMathLongRope, ShortVersusLongSelection) {
  // Python: 1.0 / (np.array(short) * 10000.0 ** (np.arange(0, 8, 2) / 8))
  // and the same with long; long iff seq_len and seq_len > L = 4096.
  const double shortExpected[4] = {1.0, 0.06666666666666667, 0.005,
                                   0.0003333333333333333};
  const double longExpected[4] = {1.0, 0.05, 0.0025, 0.000125};
  LongRopeParams p = phiLikeLongRope();
  for (std::optional<int64_t> seqLen :
       {std::optional<int64_t>(), std::optional<int64_t>(0),
        std::optional<int64_t>(100), std::optional<int64_t>(4096)}) {
    RopeFrequencies f = longRopeScaling(10000.0, 8, p, seqLen);
    ASSERT_EQ(f.invFreq.size(), 4u);
    for (int i = 0; i < 4; ++i)
      EXPECT_REL(f.invFreq[i], shortExpected[i]) << "pair " << i;
  }
  for (int64_t seqLen : {int64_t(4097), int64_t(131072)}) {
    RopeFrequencies f = longRopeScaling(10000.0, 8, p, seqLen);
    ASSERT_EQ(f.invFreq.size(), 4u);
    for (int i = 0; i < 4; ++i)
      EXPECT_REL(f.invFreq[i], longExpected[i]) << "pair " << i;
  }
}

TEST(PEMathLongRope, DefaultAttentionFactor) {
  // factor = 131072 / 4096 = 32: sqrt(1 + ln 32 / ln 4096) = sqrt(1 + 5/12)
  // = sqrt(17/12); Python: math.sqrt(17/12) = 1.1902380714238083.
  LongRopeParams p = phiLikeLongRope();
  EXPECT_REL(longRopeScaling(10000.0, 8, p, std::nullopt).attentionFactor,
             1.1902380714238083);
  EXPECT_REL(longRopeScaling(10000.0, 8, p, 8192).attentionFactor,
             1.1902380714238083);
  // Explicit factor 2; Python: math.sqrt(1 + math.log(2.0) / math.log(4096)).
  p.factor = 2.0;
  EXPECT_REL(longRopeScaling(10000.0, 8, p, std::nullopt).attentionFactor,
             1.0408329997330663);
  // factor <= 1 -> 1.
  p.factor = 1.0;
  EXPECT_EQ(longRopeScaling(10000.0, 8, p, std::nullopt).attentionFactor, 1.0);
  p.factor.reset();
  p.maxPositionEmbeddings = 4096;
  EXPECT_EQ(longRopeScaling(10000.0, 8, p, std::nullopt).attentionFactor, 1.0);
}

TEST(PEMathLongRope, ExplicitAttentionFactorWins) {
  LongRopeParams p = phiLikeLongRope();
  p.attentionFactor = 1.25;
  EXPECT_EQ(longRopeScaling(10000.0, 8, p, 9000).attentionFactor, 1.25);
}

TEST(PEMathLongRope, BadFactorListsGiveNaN) {
  // Factor list shorter than R/2, or a zero factor: NaN for those pairs only.
  LongRopeParams p = phiLikeLongRope();
  p.shortFactor = {1.0, 0.0};
  RopeFrequencies f = longRopeScaling(10000.0, 8, p, std::nullopt);
  ASSERT_EQ(f.invFreq.size(), 4u);
  EXPECT_EQ(f.invFreq[0], 1.0);
  EXPECT_TRUE(std::isnan(f.invFreq[1]));
  EXPECT_TRUE(std::isnan(f.invFreq[2]));
  EXPECT_TRUE(std::isnan(f.invFreq[3]));
  // L = 1 with factor > 1: ln(L) = 0 in the denominator.
  LongRopeParams q = phiLikeLongRope();
  q.originalMaxPositions = 1;
  EXPECT_TRUE(
      std::isnan(longRopeScaling(10000.0, 8, q, std::nullopt).attentionFactor));
}

//===----------------------------------------------------------------------===//
// A5. ALiBi
//===----------------------------------------------------------------------===//

/// Independent transcription of the ALiBi paper's get_slopes
/// (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py):
///   def get_slopes_power_of_2(n):
///     start = 2**(-2**-(math.log2(n)-3)); ratio = start
///     return [start*ratio**i for i in range(n)]
///   if math.log2(n).is_integer(): return get_slopes_power_of_2(n)
///   c = 2**math.floor(math.log2(n))
///   return get_slopes_power_of_2(c) + get_slopes(2*c)[0::2][:n-c]
std::vector<double> paperSlopesPowerOf2(int n) {
  double start = std::pow(2.0, -std::pow(2.0, -(std::log2(n) - 3)));
  double ratio = start;
  std::vector<double> out;
  for (int i = 0; i < n; ++i)
    out.push_back(start * std::pow(ratio, i));
  return out;
}

std::vector<double> paperSlopes(int n) {
  double l = std::log2(n);
  if (l == std::floor(l))
    return paperSlopesPowerOf2(n);
  int c = 1 << static_cast<int>(std::floor(l));
  std::vector<double> out = paperSlopesPowerOf2(c);
  std::vector<double> twice = paperSlopes(2 * c);
  for (int i = 0; i < n - c; ++i)
    out.push_back(twice[2 * i]);
  return out;
}

TEST(PEMathAlibi, TwelveHeadsFromFormulaSheet) {
  // PE-FORMULAS.md A5 example n = 12 (elided middle filled with the powers of
  // 2^-1 it implies); the sheet prints 8 significant digits -> abs 1e-8.
  const double expected[12] = {0.5,        0.25,       0.125,     0.0625,
                               0.03125,    0.015625,   0.0078125, 0.00390625,
                               0.70710678, 0.35355339, 0.1767767, 0.088388348};
  std::vector<double> s = alibiSlopes(12);
  ASSERT_EQ(s.size(), 12u);
  for (int h = 0; h < 12; ++h)
    EXPECT_NEAR(s[h], expected[h], 1e-8) << "head " << h;
  // Not monotone (the sheet's remark): head 8 > head 7.
  EXPECT_GT(s[8], s[7]);
}

TEST(PEMathAlibi, MatchesPaperRecursiveForm) {
  for (int n : {1, 2, 3, 5, 6, 8, 12, 16, 20, 32, 40, 71, 112}) {
    std::vector<double> expected = paperSlopes(n);
    std::vector<double> actual = alibiSlopes(n);
    ASSERT_EQ(actual.size(), expected.size()) << "n " << n;
    for (int h = 0; h < n; ++h)
      EXPECT_REL(actual[h], expected[h]) << "n " << n << " head " << h;
  }
}

TEST(PEMathAlibi, GeneralisedMaxBias) {
  // ggml closed form with literal powers of two.
  // n = 4, max_bias = 16: m0 = 2^-4 -> 2^-4, 2^-8, 2^-12, 2^-16.
  const double four[4] = {0.0625, 0.00390625, 0.000244140625,
                          1.52587890625e-05};
  std::vector<double> s = alibiSlopes(4, 16.0);
  ASSERT_EQ(s.size(), 4u);
  for (int h = 0; h < 4; ++h)
    EXPECT_REL(s[h], four[h]) << "head " << h;
  // n = 6, max_bias = 8: n_head_log2 = 4, m0 = 2^-2, m1 = 2^-1 ->
  // 2^-2, 2^-4, 2^-6, 2^-8, then m1^1, m1^3 = 2^-1, 2^-3.
  const double six[6] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  s = alibiSlopes(6);
  ASSERT_EQ(s.size(), 6u);
  for (int h = 0; h < 6; ++h)
    EXPECT_REL(s[h], six[h]) << "head " << h;
}

TEST(PEMathAlibi, DegenerateInputs) {
  // max_bias = 0: ggml slope 1 (no ALiBi).
  for (double v : alibiSlopes(7, 0.0))
    EXPECT_EQ(v, 1.0);
  EXPECT_EQ(alibiSlopes(7, 0.0).size(), 7u);
  EXPECT_TRUE(alibiSlopes(0).empty());
  EXPECT_TRUE(alibiSlopes(-3).empty());
  // n = 1: 2^-8.
  ASSERT_EQ(alibiSlopes(1).size(), 1u);
  EXPECT_EQ(alibiSlopes(1)[0], 0.00390625);
}

} // namespace
