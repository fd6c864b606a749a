//===- PEMath.h - Positional-encoding reference math ------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Scalar, double-precision reference formulas for positional encodings:
// sinusoidal absolute PE, RoPE inverse frequencies (default and every
// context-extension scaling) and ALiBi slopes. The letters/numbers in the
// comments (A1, A3, A4.x, A5) refer to the sections of the project's formula
// sheet, PE-FORMULAS.md, which is authoritative.
//
// This file is pure C++17 (no LLVM/MLIR dependency) so that it can be shared
// by op verifiers/folders, lowerings and unit tests.
//
// Error handling: callers are expected to have validated parameters already
// (op verifiers). Nevertheless no function crashes or performs a division by
// zero on bad input: where a formula is undefined the affected results are
// quiet NaN (documented per function). Non-finite inputs propagate as NaN.
//
//===----------------------------------------------------------------------===//

#ifndef PE_SUPPORT_PEMATH_H
#define PE_SUPPORT_PEMATH_H

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mlir {
namespace pe {
namespace formula {

//===----------------------------------------------------------------------===//
// A1. Sinusoidal absolute positional encoding
//===----------------------------------------------------------------------===//

/// Channel layout of the sinusoidal table (A1).
enum class SinusoidalLayout {
  /// "Attention is all you need" / HF DistilBERT layout:
  ///   PE[p, 2k] = sin(p * base^(-2k/dim)), PE[p, 2k+1] = cos(same angle).
  Interleaved,
  /// fairseq / tensor2tensor layout, h = dim / 2 (floor):
  ///   w_k = exp(-k * ln(base) / (h - 1)), PE[p] = [sin(p w) | cos(p w)],
  ///   odd dim => one trailing zero column.
  Concat
};

/// Returns the angle multiplier (frequency) of channel `channel` of a
/// `dim`-wide sinusoidal table (A1), i.e. PE[p, c] = f(p * freq) where f is
/// sin or cos (see sinusoidalIsCos) or the constant 0 (see sinusoidalIsPad).
///   Interleaved: base^(-2*(c/2)/dim).
///   Concat:      exp(-k * ln(base) / (h - 1)), k = c mod h, h = dim / 2.
///                When h == 1 the exponent is 0/0 (fairseq divides by zero,
///                `math.log(10000) / (half_dim - 1)` raises in Python); we
///                define w_0 = 1, the value every k/(h-1) form has at k = 0.
///                The zero pad column (odd dim) has frequency 0.
/// Returns NaN when dim <= 0, channel is outside [0, dim) or base is
/// non-positive/NaN (0^-x would divide by zero; ln(base) is undefined).
double sinusoidalFrequency(int64_t channel, int64_t dim, double base,
                           SinusoidalLayout layout);

/// True when channel `channel` holds a cosine (A1): odd channels for
/// Interleaved, channels [h, 2h) for Concat. False for sine channels, the pad
/// column and out-of-range channels.
bool sinusoidalIsCos(int64_t channel, int64_t dim, SinusoidalLayout layout);

/// True for the constant-zero pad column of the Concat layout with odd `dim`
/// (the last channel, 2 * (dim / 2)) (A1). Always false for Interleaved.
bool sinusoidalIsPad(int64_t channel, int64_t dim, SinusoidalLayout layout);

/// Value PE[pos, channel] of a `dim`-wide sinusoidal table (A1), see
/// SinusoidalLayout. Returns 0 for the pad column and NaN when dim <= 0,
/// channel is outside [0, dim) or base is non-positive/NaN. (fairseq's
/// `padding_idx` row zeroing is a property of the gather, not of this formula,
/// and is not applied here.)
double sinusoidal(double pos, int64_t channel, int64_t dim, double base,
                  SinusoidalLayout layout);

//===----------------------------------------------------------------------===//
// A3/A4. RoPE inverse frequencies
//===----------------------------------------------------------------------===//

/// Result of every RoPE frequency computation (A4: "All return
/// (inv_freq[R/2], attention_factor)"). `invFreq` has rotaryDim / 2 (floor)
/// entries (empty when rotaryDim < 2); `attentionFactor` multiplies both cos
/// and sin (A3, "attention_factor (mscale)").
struct RopeFrequencies {
  std::vector<double> invFreq;
  double attentionFactor = 1.0;
};

/// A3 default RoPE: invFreq[i] = 1 / base^(2i/R), attentionFactor = 1 (HF
/// `_compute_default_rope_parameters`). A non-positive or NaN base (1/0^x
/// would divide by zero, pow of a negative base is undefined) gives NaN
/// frequencies; the same holds for every scaling below.
RopeFrequencies defaultFrequencies(double base, int64_t rotaryDim);

/// A4.1 linear scaling (position interpolation): default / factor,
/// attentionFactor = 1. factor == 0 (or NaN) gives NaN frequencies.
RopeFrequencies linearScaling(double base, int64_t rotaryDim, double factor);

/// A4.2 static NTK-aware scaling (older HF `_compute_ntk_parameters`):
/// base' = base * factor^(R/(R-2)), invFreq[i] = 1 / base'^(2i/R),
/// attentionFactor = 1. For R == 2 the exponent R/(R-2) is a division by
/// zero, but the only pair (i = 0) has base'^0 == 1 for every base', so the
/// default frequencies are returned (the limit of the formula).
RopeFrequencies ntkScaling(double base, int64_t rotaryDim, double factor);

/// A4.3 dynamic NTK scaling, HF form (`_compute_dynamic_ntk_parameters`):
/// s = max(seqLen, maxPositionEmbeddings),
/// base' = base * (factor * s / maxPositionEmbeddings - (factor -
/// 1))^(R/(R-2)), attentionFactor = 1. maxPositionEmbeddings <= 0 gives NaN
/// frequencies; a negative inner term (possible only for factor < 0) gives NaN
/// through pow. R == 2 returns the default frequencies (see ntkScaling).
RopeFrequencies dynamicNtkScaling(double base, int64_t rotaryDim, double factor,
                                  int64_t maxPositionEmbeddings,
                                  int64_t seqLen);

/// YaRN configuration (A4.4, newest HF `_compute_yarn_parameters`).
/// `factor` must already be resolved by the caller (HF: if absent,
/// max_position_embeddings / original_max_position_embeddings).
struct YarnParams {
  double factor;
  int64_t originalMaxPositions; ///< L = original_max_position_embeddings.
  double betaFast = 32;         ///< HF `cfg or 32`: 0 is treated as 32.
  double betaSlow = 1;          ///< HF `cfg or 1`: 0 is treated as 1.
  std::optional<double> mscale, mscaleAllDim, attentionFactor;
  bool truncate = true;
};

/// A4.4 YaRN `get_mscale(s, m) = 1 if s <= 1 else 0.1 * m * ln(s) + 1`.
double yarnGetMscale(double scale, double m = 1.0);

/// A4.4 YaRN `find_correction_range`, returning (low, high) after the
/// optional floor/ceil (truncate) and the clamp to [0, R-1]:
///   fcd(n) = R * ln(L / (n * 2 pi)) / (2 ln base),
///   low = fcd(betaFast), high = fcd(betaSlow).
/// betaFast/betaSlow == 0 are replaced by 32/1 (Python `or`). Returns
/// (NaN, NaN) when the formula divides by zero or takes the log of a
/// non-positive number: base <= 0, base == 1, L <= 0, or a beta < 0.
std::pair<double, double> yarnCorrectionRange(double base, int64_t rotaryDim,
                                              const YarnParams &p);

/// A4.4 YaRN (newest HF): blends inv_freq_extrapolation = 1/base^(2i/R) and
/// inv_freq_interpolation = 1/(factor * base^(2i/R)) with
/// w_extrap = 1 - clamp((i - low)/(high - low), 0, 1) (high += 0.001 when
/// low == high). attentionFactor: p.attentionFactor if present (even 0, HF
/// tests `is None`); else, if mscale and mscaleAllDim are both present AND
/// non-zero (Python truthiness: `if mscale and mscale_all_dim`),
/// get_mscale(factor, mscale) / get_mscale(factor, mscaleAllDim); else
/// get_mscale(factor). Invalid input (factor <= 0 or NaN, undefined
/// correction range) gives NaN frequencies; a zero denominator in the mscale
/// ratio gives a NaN attention factor.
RopeFrequencies yarnScaling(double base, int64_t rotaryDim,
                            const YarnParams &p);

/// Llama 3.1 configuration (A4.6).
struct Llama3Params {
  double factor;
  double lowFreqFactor;
  double highFreqFactor;
  int64_t originalMaxPositions; ///< L = original_max_position_embeddings.
};

/// A4.6 llama3 (HF `_compute_llama3_parameters`, vLLM `llama3_rope.py`):
/// with wavelen = 2 pi / inv, lw = L / low, hw = L / high:
///   wavelen < hw       -> inv (unchanged),
///   wavelen > lw       -> inv / factor,
///   hw <= wavelen <= lw -> (1 - s) * inv / factor + s * inv,
///                          s = (L / wavelen - low) / (high - low).
/// attentionFactor = 1. When lowFreqFactor == highFreqFactor the smoothing
/// denominator is zero; like vLLM we then use s = 0 (threshold-only rule: the
/// band hw <= wavelen <= lw degenerates to wavelen == lw and gets
/// inv / factor). Non-positive factor, lowFreqFactor or highFreqFactor
/// (or non-positive L) give NaN frequencies.
RopeFrequencies llama3Scaling(double base, int64_t rotaryDim,
                              const Llama3Params &p);

/// LongRoPE configuration (A4.5).
struct LongRopeParams {
  std::vector<double> shortFactor, longFactor; ///< R/2 entries each.
  int64_t originalMaxPositions;                ///< L.
  int64_t maxPositionEmbeddings;
  std::optional<double> factor, attentionFactor;
};

/// A4.5 LongRoPE (newest HF `_compute_longrope_parameters`):
///   factor = p.factor if present, else maxPositionEmbeddings / L;
///   attentionFactor = p.attentionFactor if present, else
///                     (1 if factor <= 1 else sqrt(1 + ln(factor) / ln(L)));
///   ext = longFactor if (seqLen && *seqLen > L) else shortFactor
///         (HF `if seq_len and seq_len > L`: 0 counts as absent, which is
///         harmless since 0 > L never holds for L >= 0);
///   invFreq[i] = 1 / (ext[i] * base^(2i/R)).
/// Presence is tested like HF (`is None`), so an explicit 0 is used as is.
/// Pairs with a missing (list too short) or non-positive factor get NaN;
/// L <= 0 with an absent factor, or L == 1 with factor > 1, gives a NaN
/// attention factor.
RopeFrequencies longRopeScaling(double base, int64_t rotaryDim,
                                const LongRopeParams &p,
                                std::optional<int64_t> seqLen);

//===----------------------------------------------------------------------===//
// A5. ALiBi
//===----------------------------------------------------------------------===//

/// A5 ALiBi slopes for `numHeads` heads, ggml closed form:
///   n = 2^floor(log2 numHeads), m0 = 2^(-maxBias / n),
///   m1 = 2^(-(maxBias / 2) / n),
///   slope_h = h < n ? m0^(h+1) : m1^(2(h-n)+1).
/// maxBias = 8 reproduces the ALiBi paper's get_slopes for every head count;
/// maxBias = 0 gives all-ones slopes (ggml: no ALiBi). numHeads <= 0 returns
/// an empty vector.
std::vector<double> alibiSlopes(int64_t numHeads, double maxBias = 8.0);

} // namespace formula
} // namespace pe
} // namespace mlir

#endif // PE_SUPPORT_PEMATH_H
