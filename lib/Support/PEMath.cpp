//===- PEMath.cpp - Positional-encoding reference math --------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Implementation of the scalar formulas of PE-FORMULAS.md (sections A1, A3,
// A4, A5). See PEMath.h for the contract of each function. All arithmetic is
// done in double and mirrors the order of operations of the cited reference
// implementation where that is cheap to do.
//
//===----------------------------------------------------------------------===//

#include "pe/Support/PEMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlir {
namespace pe {
namespace formula {

namespace {

constexpr double kPi = 3.14159265358979323846;

double nan() { return std::numeric_limits<double>::quiet_NaN(); }

/// Number of frequency pairs of a rotary block of width `rotaryDim`
/// (A3: "invFreq has R/2 entries"); 0 for rotaryDim < 2.
size_t numPairs(int64_t rotaryDim) {
  return rotaryDim < 2 ? 0 : static_cast<size_t>(rotaryDim / 2);
}

/// A base for which base^x is defined and non-zero for every exponent used
/// (the 1/base^x forms would otherwise divide by zero or be undefined).
bool isValidBase(double base) { return base > 0.0; } // false for NaN too.

/// RopeFrequencies with rotaryDim / 2 NaN frequencies and the given attention
/// factor.
RopeFrequencies nanFrequencies(int64_t rotaryDim, double attentionFactor) {
  RopeFrequencies r;
  r.invFreq.assign(numPairs(rotaryDim), nan());
  r.attentionFactor = attentionFactor;
  return r;
}

/// base^(2i/R) for pair i (A3 `base ** (arange(0, dim, 2) / dim)`).
double posFreq(double base, size_t i, int64_t rotaryDim) {
  return std::pow(base,
                  static_cast<double>(2 * i) / static_cast<double>(rotaryDim));
}

/// A4.2/A4.3 NTK frequencies with the already-computed inner factor `g`:
/// base' = base * g^(R/(R-2)), invFreq[i] = 1 / base'^(2i/R).
RopeFrequencies ntkWithInner(double base, int64_t rotaryDim, double g) {
  if (!isValidBase(base))
    return nanFrequencies(rotaryDim, 1.0);
  // R == 2: only i = 0 exists and base'^0 == 1 for any base', so skip the
  // R/(R-2) exponent (a division by zero) and keep the default frequency.
  if (rotaryDim <= 2)
    return defaultFrequencies(base, rotaryDim);
  double newBase = base * std::pow(g, static_cast<double>(rotaryDim) /
                                          static_cast<double>(rotaryDim - 2));
  if (!isValidBase(newBase))
    return nanFrequencies(rotaryDim, 1.0);
  return defaultFrequencies(newBase, rotaryDim);
}

/// Python truthiness of an optional float config value (`if x:`): present
/// and non-zero (NaN is truthy in Python).
bool isTruthy(const std::optional<double> &v) { return v && *v != 0.0; }

} // namespace

//===----------------------------------------------------------------------===//
// A1. Sinusoidal
//===----------------------------------------------------------------------===//

bool sinusoidalIsPad(int64_t channel, int64_t dim, SinusoidalLayout layout) {
  if (layout != SinusoidalLayout::Concat || dim <= 0 || dim % 2 == 0)
    return false;
  return channel == dim - 1;
}

bool sinusoidalIsCos(int64_t channel, int64_t dim, SinusoidalLayout layout) {
  if (dim <= 0 || channel < 0 || channel >= dim)
    return false;
  if (layout == SinusoidalLayout::Interleaved)
    return channel % 2 == 1;
  int64_t half = dim / 2;
  return channel >= half && channel < 2 * half;
}

double sinusoidalFrequency(int64_t channel, int64_t dim, double base,
                           SinusoidalLayout layout) {
  if (dim <= 0 || channel < 0 || channel >= dim || !isValidBase(base))
    return nan();
  if (layout == SinusoidalLayout::Interleaved) {
    // DistilBERT: angle = p / 10000^(2 * (j // 2) / dim).
    int64_t k = channel / 2;
    return 1.0 / std::pow(base, static_cast<double>(2 * k) /
                                    static_cast<double>(dim));
  }
  // fairseq: emb = log(base) / (half_dim - 1); w = exp(arange(half) * -emb).
  if (sinusoidalIsPad(channel, dim, layout))
    return 0.0;
  int64_t half = dim / 2;
  int64_t k = channel % half;
  if (half == 1)
    return 1.0; // fairseq divides by zero here; w_0 = exp(0) = 1.
  double emb = std::log(base) / static_cast<double>(half - 1);
  return std::exp(static_cast<double>(k) * -emb);
}

double sinusoidal(double pos, int64_t channel, int64_t dim, double base,
                  SinusoidalLayout layout) {
  double freq = sinusoidalFrequency(channel, dim, base, layout);
  if (std::isnan(freq))
    return freq;
  if (sinusoidalIsPad(channel, dim, layout))
    return 0.0;
  double angle = pos * freq;
  return sinusoidalIsCos(channel, dim, layout) ? std::cos(angle)
                                               : std::sin(angle);
}

//===----------------------------------------------------------------------===//
// A3 / A4. RoPE frequencies
//===----------------------------------------------------------------------===//

RopeFrequencies defaultFrequencies(double base, int64_t rotaryDim) {
  if (!isValidBase(base))
    return nanFrequencies(rotaryDim, 1.0);
  RopeFrequencies r;
  size_t n = numPairs(rotaryDim);
  r.invFreq.resize(n);
  for (size_t i = 0; i < n; ++i)
    r.invFreq[i] = 1.0 / posFreq(base, i, rotaryDim);
  return r;
}

RopeFrequencies linearScaling(double base, int64_t rotaryDim, double factor) {
  if (factor == 0.0 || std::isnan(factor))
    return nanFrequencies(rotaryDim, 1.0);
  RopeFrequencies r = defaultFrequencies(base, rotaryDim);
  for (double &f : r.invFreq)
    f /= factor; // HF: inv_freq /= factor.
  return r;
}

RopeFrequencies ntkScaling(double base, int64_t rotaryDim, double factor) {
  return ntkWithInner(base, rotaryDim, factor);
}

RopeFrequencies dynamicNtkScaling(double base, int64_t rotaryDim, double factor,
                                  int64_t maxPositionEmbeddings,
                                  int64_t seqLen) {
  if (maxPositionEmbeddings <= 0)
    return nanFrequencies(rotaryDim, 1.0);
  double s = static_cast<double>(std::max(seqLen, maxPositionEmbeddings));
  double inner =
      (factor * s / static_cast<double>(maxPositionEmbeddings)) - (factor - 1);
  return ntkWithInner(base, rotaryDim, inner);
}

double yarnGetMscale(double scale, double m) {
  if (scale <= 1)
    return 1.0;
  return 0.1 * m * std::log(scale) + 1.0;
}

std::pair<double, double> yarnCorrectionRange(double base, int64_t rotaryDim,
                                              const YarnParams &p) {
  double betaFast = p.betaFast != 0.0 ? p.betaFast : 32.0; // cfg or 32
  double betaSlow = p.betaSlow != 0.0 ? p.betaSlow : 1.0;  // cfg or 1
  if (!isValidBase(base) || base == 1.0 || p.originalMaxPositions <= 0 ||
      !(betaFast > 0.0) || !(betaSlow > 0.0))
    return {nan(), nan()};
  double dim = static_cast<double>(rotaryDim);
  double maxPos = static_cast<double>(p.originalMaxPositions);
  auto findCorrectionDim = [&](double numRotations) {
    return (dim * std::log(maxPos / (numRotations * 2 * kPi))) /
           (2 * std::log(base));
  };
  double low = findCorrectionDim(betaFast);
  double high = findCorrectionDim(betaSlow);
  if (p.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  // Python max(low, 0) / min(high, dim - 1); NaN cannot occur here.
  return {std::max(low, 0.0), std::min(high, dim - 1)};
}

RopeFrequencies yarnScaling(double base, int64_t rotaryDim,
                            const YarnParams &p) {
  double factor = p.factor;
  double attentionFactor;
  if (p.attentionFactor) {
    attentionFactor = *p.attentionFactor;
  } else if (isTruthy(p.mscale) && isTruthy(p.mscaleAllDim)) {
    double num = yarnGetMscale(factor, *p.mscale);
    double den = yarnGetMscale(factor, *p.mscaleAllDim);
    attentionFactor = den != 0.0 ? num / den : nan();
  } else {
    attentionFactor = yarnGetMscale(factor);
  }

  std::pair<double, double> range = yarnCorrectionRange(base, rotaryDim, p);
  if (!(factor > 0.0) || std::isnan(range.first) || std::isnan(range.second))
    return nanFrequencies(rotaryDim, attentionFactor);

  // linear_ramp_factor(min, max, dim // 2).
  double lo = range.first, hi = range.second;
  if (lo == hi)
    hi += 0.001; // Prevent singularity (HF).
  RopeFrequencies r;
  r.attentionFactor = attentionFactor;
  size_t n = numPairs(rotaryDim);
  r.invFreq.resize(n);
  for (size_t i = 0; i < n; ++i) {
    double ramp = (static_cast<double>(i) - lo) / (hi - lo);
    ramp = std::min(std::max(ramp, 0.0), 1.0);
    double extrapolationFactor = 1.0 - ramp;
    double pos = posFreq(base, i, rotaryDim);
    double extrapolation = 1.0 / pos;
    double interpolation = 1.0 / (factor * pos);
    r.invFreq[i] = interpolation * (1 - extrapolationFactor) +
                   extrapolation * extrapolationFactor;
  }
  return r;
}

RopeFrequencies llama3Scaling(double base, int64_t rotaryDim,
                              const Llama3Params &p) {
  if (!(p.factor > 0.0) || !(p.lowFreqFactor > 0.0) ||
      !(p.highFreqFactor > 0.0) || p.originalMaxPositions <= 0)
    return nanFrequencies(rotaryDim, 1.0);
  RopeFrequencies r = defaultFrequencies(base, rotaryDim);
  double oldContextLen = static_cast<double>(p.originalMaxPositions);
  double lowFreqWavelen = oldContextLen / p.lowFreqFactor;
  double highFreqWavelen = oldContextLen / p.highFreqFactor;
  bool hasSmoothing = p.lowFreqFactor != p.highFreqFactor;
  for (double &inv : r.invFreq) {
    double wavelen = 2 * kPi / inv;
    if (wavelen < highFreqWavelen)
      continue; // High frequency: unchanged.
    double scaled = inv / p.factor;
    if (wavelen > lowFreqWavelen) {
      inv = scaled; // Low frequency.
      continue;
    }
    // Medium band. vLLM/TVM threshold-only rule when low == high: smooth = 0.
    double smooth = hasSmoothing ? (oldContextLen / wavelen - p.lowFreqFactor) /
                                       (p.highFreqFactor - p.lowFreqFactor)
                                 : 0.0;
    inv = (1 - smooth) * inv / p.factor + smooth * inv;
  }
  return r;
}

RopeFrequencies longRopeScaling(double base, int64_t rotaryDim,
                                const LongRopeParams &p,
                                std::optional<int64_t> seqLen) {
  double maxPos = static_cast<double>(p.originalMaxPositions);
  double factor;
  if (p.factor)
    factor = *p.factor;
  else if (p.originalMaxPositions > 0)
    factor = static_cast<double>(p.maxPositionEmbeddings) / maxPos;
  else
    factor = nan();

  double attentionFactor;
  if (p.attentionFactor) {
    attentionFactor = *p.attentionFactor;
  } else if (factor <= 1.0) {
    attentionFactor = 1.0;
  } else {
    // ln(L) must be non-zero and defined: L > 1.
    attentionFactor = p.originalMaxPositions > 1
                          ? std::sqrt(1 + std::log(factor) / std::log(maxPos))
                          : nan();
  }

  bool useLong = seqLen && *seqLen != 0 && *seqLen > p.originalMaxPositions;
  const std::vector<double> &ext = useLong ? p.longFactor : p.shortFactor;

  if (!isValidBase(base))
    return nanFrequencies(rotaryDim, attentionFactor);
  RopeFrequencies r;
  r.attentionFactor = attentionFactor;
  size_t n = numPairs(rotaryDim);
  r.invFreq.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (i >= ext.size() || !(ext[i] > 0.0)) {
      r.invFreq[i] = nan();
      continue;
    }
    r.invFreq[i] = 1.0 / (ext[i] * posFreq(base, i, rotaryDim));
  }
  return r;
}

//===----------------------------------------------------------------------===//
// A5. ALiBi
//===----------------------------------------------------------------------===//

std::vector<double> alibiSlopes(int64_t numHeads, double maxBias) {
  std::vector<double> slopes;
  if (numHeads <= 0)
    return slopes;
  // n_head_log2 = 2^floor(log2(numHeads)), computed exactly on integers.
  int64_t nHeadLog2 = 1;
  while (nHeadLog2 <= numHeads / 2)
    nHeadLog2 *= 2;
  double n = static_cast<double>(nHeadLog2);
  double m0 = std::pow(2.0, -maxBias / n);
  double m1 = std::pow(2.0, -(maxBias / 2.0) / n);
  slopes.resize(static_cast<size_t>(numHeads));
  for (int64_t h = 0; h < numHeads; ++h)
    slopes[h] =
        h < nHeadLog2
            ? std::pow(m0, static_cast<double>(h + 1))
            : std::pow(m1, static_cast<double>(2 * (h - nHeadLog2) + 1));
  return slopes;
}

} // namespace formula
} // namespace pe
} // namespace mlir
