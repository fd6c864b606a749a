//===- RaiseFrequencies.cpp - a constant inv_freq table to its op ---------===//
//
// Part of the pe-mlir project.
//
// A frontend that traced a model with its RoPE configuration leaves the
// inverse frequencies as a constant table. This file recovers the frequency
// op that computes it: the parameters are estimated from the table, rounded
// to the simplest value that still matches, and every candidate is checked
// entry by entry against the op's own formula (pe/Support/PEMath.h, the one
// the folders use) within a relative tolerance. Nothing is accepted without
// that check, so an estimate can only fail to match, never raise a wrong op.
//
// Families, tried in order (the ratio r_i = f_i / base^(-2i/R) tells them
// apart):
//   default  r_i = 1                 (static NTK scaling is a default table
//                                     with a larger base: the table alone
//                                     cannot tell them apart)
//   linear   r_i = 1 / factor
//   llama3   r_i from 1 (high frequencies) to 1 / factor (low frequencies),
//            smoothed in between as a function of the wavelength
//   YaRN     r_i from 1 to 1 / factor along a linear ramp in i
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Support/PEMath.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::pe;

namespace {

bool matches(ArrayRef<double> freqs, const formula::RopeFrequencies &f,
             double tolerance) {
  if (f.invFreq.size() != freqs.size())
    return false;
  for (auto [a, b] : llvm::zip(freqs, f.invFreq))
    if (!std::isfinite(b) || !raise::nearlyEqual(a, b, tolerance))
      return false;
  return true;
}

/// `x` rounded to 1, 2, ... significant digits, then `x` itself: the
/// simplest values first.
SmallVector<double> roundings(double x) {
  SmallVector<double> out;
  if (!std::isfinite(x) || x <= 0)
    return out;
  double magnitude = std::pow(10.0, std::floor(std::log10(x)));
  for (int digits = 1; digits <= 7; ++digits) {
    double unit = magnitude / std::pow(10.0, digits - 1);
    double r = std::round(x / unit) * unit;
    if (r > 0 && !llvm::is_contained(out, r))
      out.push_back(r);
  }
  out.push_back(x);
  return out;
}

/// The base whose default table ends in `last` at pair `i`:
/// last = base^(-2i/R).
double baseFrom(double value, int64_t i, int64_t rotaryDim) {
  return std::pow(value, -static_cast<double>(rotaryDim) / (2.0 * i));
}

FloatAttr f64(MLIRContext *ctx, double v) {
  return FloatAttr::get(Float64Type::get(ctx), v);
}

RankedTensorType tableType(Type element, size_t n) {
  return RankedTensorType::get({static_cast<int64_t>(n)}, element);
}

} // namespace

std::optional<raise::FrequencyOpMatch>
raise::matchFrequencyOp(ArrayRef<double> freqs, int64_t rotaryDim,
                        double tolerance) {
  int64_t half = freqs.size();
  if (half < 2 || rotaryDim != 2 * half ||
      llvm::any_of(freqs, [](double f) { return !(f > 0); }))
    return std::nullopt;
  size_t n = freqs.size();

  // default: f_0 = 1, base from the last entry (the most digits of base).
  if (nearlyEqual(freqs[0], 1.0, tolerance))
    for (double base :
         roundings(baseFrom(freqs[half - 1], half - 1, rotaryDim)))
      if (matches(freqs, formula::defaultFrequencies(base, rotaryDim),
                  tolerance))
        return FrequencyOpMatch{
            [=](OpBuilder &b, Location loc, Type t) -> Operation * {
              return RopeFrequenciesOp::create(b, loc, tableType(t, n),
                                               b.getF32Type(),
                                               f64(b.getContext(), base));
            },
            1.0};

  // linear: f_i = base^(-2i/R) / factor.
  for (double factor : roundings(1.0 / freqs[0])) {
    if (factor < 1)
      continue;
    for (double base :
         roundings(baseFrom(freqs[half - 1] * factor, half - 1, rotaryDim)))
      if (matches(freqs, formula::linearScaling(base, rotaryDim, factor),
                  tolerance))
        return FrequencyOpMatch{
            [=](OpBuilder &b, Location loc, Type t) -> Operation * {
              return LinearScaleOp::create(
                  b, loc, tableType(t, n), b.getF32Type(),
                  f64(b.getContext(), base), f64(b.getContext(), factor));
            },
            1.0};
  }

  // llama3 and YaRN leave the highest frequencies as they are: the base
  // comes from f_1, the factor from the last entry.
  if (!nearlyEqual(freqs[0], 1.0, tolerance))
    return std::nullopt;
  for (double base : roundings(baseFrom(freqs[1], 1, rotaryDim))) {
    formula::RopeFrequencies def = formula::defaultFrequencies(base, rotaryDim);
    SmallVector<double> ratio;
    for (int64_t i = 0; i < half; ++i)
      ratio.push_back(freqs[i] / def.invFreq[i]);
    for (double factor : roundings(1.0 / ratio.back())) {
      if (factor <= 1)
        continue;
      // llama3: in the medium band, s_i = (r_i - 1/factor) / (1 - 1/factor)
      // = a * inv_i + b with a = L / (2 pi (high - low)) and
      // b = -low / (high - low). The table fixes L, low, high only up to a
      // common scale; take low_freq_factor = 1, the published value.
      SmallVector<int64_t> medium;
      for (int64_t i = 0; i < half; ++i)
        if (!nearlyEqual(ratio[i], 1.0, tolerance) &&
            !nearlyEqual(ratio[i], 1.0 / factor, tolerance))
          medium.push_back(i);
      SmallVector<std::pair<double, double>> lowHigh; // (L, high)
      if (medium.size() >= 2) {
        int64_t i = medium.front(), j = medium.back();
        auto s = [&](int64_t k) {
          return (ratio[k] - 1.0 / factor) / (1.0 - 1.0 / factor);
        };
        double a = (s(i) - s(j)) / (def.invFreq[i] - def.invFreq[j]);
        double bb = s(i) - a * def.invFreq[i];
        if (bb < 0) {
          double high = 1.0 - 1.0 / bb;
          double l = 2 * M_PI * a * (high - 1.0);
          for (double hr : roundings(high))
            for (double lr : roundings(l))
              lowHigh.push_back({std::round(lr), hr});
        }
      } else {
        // An empty or one-entry medium band: the usual context lengths.
        for (int64_t l = 256; l <= (1 << 22); l *= 2)
          for (double high : {1.0, 2.0, 4.0, 8.0})
            lowHigh.push_back({static_cast<double>(l), high});
      }
      for (const std::pair<double, double> &lh : lowHigh) {
        double l = lh.first, high = lh.second;
        if (l <= 0 || high < 1)
          continue;
        formula::Llama3Params p{factor, 1.0, high, static_cast<int64_t>(l)};
        if (matches(freqs, formula::llama3Scaling(base, rotaryDim, p),
                    tolerance))
          return FrequencyOpMatch{
              [=](OpBuilder &b, Location loc, Type t) -> Operation * {
                MLIRContext *ctx = b.getContext();
                return Llama3ScaleOp::create(
                    b, loc, tableType(t, n), b.getF32Type(), f64(ctx, base),
                    f64(ctx, factor), f64(ctx, 1.0), f64(ctx, high),
                    b.getI64IntegerAttr(p.originalMaxPositions));
              },
              1.0};
      }

      // YaRN (truncated correction range, beta_fast 32, beta_slow 1):
      // ramp_i = (1 - r_i) / (1 - 1/factor) rises linearly from pair `low`
      // to pair `high`; find L with floor(fcd(32)) = low and
      // ceil(fcd(1)) = high, fcd(n) = R ln(L / (2 pi n)) / (2 ln base).
      auto ramp = [&](int64_t k) {
        return (1.0 - ratio[k]) / (1.0 - 1.0 / factor);
      };
      int64_t low = 0;
      while (low + 1 < half && ramp(low + 1) < tolerance)
        ++low;
      int64_t high = low + 1;
      if (low + 1 < half && ramp(low + 1) < 1 - tolerance)
        high = static_cast<int64_t>(
            std::llround(low + 1.0 / std::max(ramp(low + 1), 1e-12)));
      auto lRange = [&](double beta, double lo, double hi) {
        // fcd(beta) in [lo, hi): L in [2 pi beta base^(2 lo/R), ...).
        double scale = 2 * M_PI * beta;
        return std::make_pair(scale * std::pow(base, 2.0 * lo / rotaryDim),
                              scale * std::pow(base, 2.0 * hi / rotaryDim));
      };
      auto [a0, a1] = lRange(32.0, low, low + 1);
      auto [b0, b1] = lRange(1.0, high - 1, high);
      double lo = std::max(a0, b0), hi = std::min(a1, b1);
      SmallVector<int64_t> lengths;
      for (int64_t l = 1; l <= (int64_t(1) << 24); l *= 2)
        if (l >= lo && l <= hi)
          lengths.push_back(l);
      if (lo <= hi)
        for (int64_t unit : {1024, 1000, 1})
          lengths.push_back(static_cast<int64_t>(std::ceil(lo / unit)) * unit);
      for (int64_t l : lengths) {
        formula::YarnParams p;
        p.factor = factor;
        p.originalMaxPositions = l;
        formula::RopeFrequencies f = formula::yarnScaling(base, rotaryDim, p);
        if (matches(freqs, f, tolerance))
          return FrequencyOpMatch{
              [=](OpBuilder &b, Location loc, Type t) -> Operation * {
                MLIRContext *ctx = b.getContext();
                return YarnScaleOp::create(
                    b, loc, tableType(t, n), b.getF32Type(), f64(ctx, base),
                    f64(ctx, factor), b.getI64IntegerAttr(l), f64(ctx, 32.0),
                    f64(ctx, 1.0), FloatAttr(), FloatAttr(), FloatAttr(),
                    BoolAttr());
              },
              f.attentionFactor};
      }
    }
  }
  return std::nullopt;
}
