//===- pe-bench.cpp - machine limits and naive C++ baselines --------------===//
//
// Part of the pe-mlir project.
//
// pe-bench measures what the benchmark compares against (see bench/README.md):
//
//   pe-bench peak [ISA]  FP32 FMA peak with 1 and 2 threads (host or ISA)
//   pe-bench read-streams BYTES
//                        best read bandwidth of BYTES over 1-16 streams
//   pe-bench bandwidth   read / copy / non-temporal copy bandwidth, 2 threads
//   pe-bench naive W --inputs DIR --repeat N [--output FILE.npy ...]
//                        the straightforward C++ version of workload W
//
// The naive versions are what a person writes first: plain loops, the
// intermediate tensors (rotated q/k, the [Tq, Tk] scores of a head)
// materialized, no fusion, parallelized over heads (rows for W5) with
// `#pragma omp parallel for`, compiled -O3 -march=native (no -ffast-math, so
// reductions stay sequential). They follow the op semantics of
// docs/Dialects/PEOps.md: frequencies and angles in double, cos/sin rounded
// to f32, attention math in f32.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/FmaProbe.h"
#include "pe/Runtime/Npy.h"

#include "llvm/Support/Error.h"

#include <immintrin.h>
#include <malloc.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace npy = pe::rt;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

[[noreturn]] void fail(const std::string &msg) {
  std::fprintf(stderr, "pe-bench: error: %s\n", msg.c_str());
  std::exit(1);
}

//===----------------------------------------------------------------------===//
// peak: FP32 FMA throughput
//===----------------------------------------------------------------------===//

volatile float gSink;

/// Seconds for `threads` threads each running the probe's loop (iters).
double timeFma(const pe::rt::FmaProbe &probe, int threads, int64_t iters) {
  float sums[64] = {};
  double t0 = now();
#pragma omp parallel num_threads(threads)
  sums[omp_get_thread_num()] = probe.loop(iters, float(omp_get_thread_num()));
  double t1 = now();
  for (int i = 0; i < threads; ++i)
    gSink = gSink + sums[i];
  return t1 - t0;
}

/// Median GFLOP/s of 5 measurements of about 0.5 s each, in the probe's
/// vectors.
double peakGflops(const pe::rt::FmaProbe &probe, int threads) {
  timeFma(probe, threads, 1 << 20); // wake the OpenMP threads, warm the clocks
  int64_t iters = 1 << 22;
  double t = timeFma(probe, threads, iters);
  iters = std::max<int64_t>(1, int64_t(double(iters) * 0.5 / t));
  std::vector<double> g;
  for (int r = 0; r < 5; ++r) {
    double s = timeFma(probe, threads, iters);
    g.push_back(threads * double(iters) * probe.flopsPerIteration / s * 1e-9);
  }
  return median(g);
}

/// peak [ISA]: in the host's widest vectors, or in those of ISA (avx512,
/// avx2, generic: the peak of code built for that target).
int cmdPeak(int argc, char **argv) {
  if (argc > 1)
    fail("peak takes at most one argument, the ISA");
  pe::rt::FmaProbe probe =
      argc ? pe::rt::fmaProbe(argv[0]) : pe::rt::hostFmaProbe();
  if (!probe.loop)
    fail(std::string("peak: this CPU has no '") + argv[0] +
         "' FMA probe (avx512, avx2, generic)");
  double p1 = peakGflops(probe, 1);
  double p2 = peakGflops(probe, 2);
  std::printf("peak_gflops_1t=%.1f peak_gflops_2t=%.1f isa=%s\n", p1, p2,
              probe.isa);
  return 0;
}

//===----------------------------------------------------------------------===//
// bandwidth: 2 threads, 1 GiB buffer
//===----------------------------------------------------------------------===//

constexpr int kBwThreads = 2;

/// One 64-byte line of floats in the widest vectors the build has (one
/// AVX-512 register, or two AVX ones): the loads, sums and stores of the
/// bandwidth probes, so that they measure the memory and not the vector
/// width. Pointers are 64-byte aligned.
#if defined(__AVX512F__)
struct Line {
  __m512 v;
  static Line zero() { return {_mm512_setzero_ps()}; }
  static Line load(const float *p) { return {_mm512_load_ps(p)}; }
  Line operator+(Line o) const { return {_mm512_add_ps(v, o.v)}; }
  void store(float *p) const { _mm512_store_ps(p, v); }
  void stream(float *p) const { _mm512_stream_ps(p, v); }
  float sum() const { return _mm512_reduce_add_ps(v); }
};
#elif defined(__AVX__)
struct Line {
  __m256 lo, hi;
  static Line zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static Line load(const float *p) {
    return {_mm256_load_ps(p), _mm256_load_ps(p + 8)};
  }
  Line operator+(Line o) const {
    return {_mm256_add_ps(lo, o.lo), _mm256_add_ps(hi, o.hi)};
  }
  void store(float *p) const {
    _mm256_store_ps(p, lo);
    _mm256_store_ps(p + 8, hi);
  }
  void stream(float *p) const {
    _mm256_stream_ps(p, lo);
    _mm256_stream_ps(p + 8, hi);
  }
  float sum() const {
    alignas(32) float f[8];
    _mm256_store_ps(f, _mm256_add_ps(lo, hi));
    float s = 0;
    for (float x : f)
      s += x;
    return s;
  }
};
#else
#error "pe-bench needs AVX or AVX-512 (it is built with -march=native)"
#endif

/// Splits [0, n) (n a multiple of 64 * threads) into equal contiguous parts.
void part(int64_t n, int t, int threads, int64_t &lo, int64_t &hi) {
  int64_t chunk = n / threads;
  lo = chunk * t;
  hi = lo + chunk;
}

double readPass(const float *buf, int64_t n) {
  double sums[kBwThreads] = {};
#pragma omp parallel num_threads(kBwThreads)
  {
    int t = omp_get_thread_num();
    int64_t lo, hi;
    part(n, t, kBwThreads, lo, hi);
    const float *p = buf;
    Line s0 = Line::zero(), s1 = Line::zero(), s2 = Line::zero(),
         s3 = Line::zero();
    for (int64_t i = lo; i < hi; i += 64) {
      s0 = s0 + Line::load(p + i);
      s1 = s1 + Line::load(p + i + 16);
      s2 = s2 + Line::load(p + i + 32);
      s3 = s3 + Line::load(p + i + 48);
    }
    sums[t] = ((s0 + s1) + (s2 + s3)).sum();
  }
  return sums[0] + sums[1];
}

void copyPass(const float *src, float *dst, int64_t n, bool nonTemporal) {
#pragma omp parallel num_threads(kBwThreads)
  {
    int64_t lo, hi;
    part(n, omp_get_thread_num(), kBwThreads, lo, hi);
    const float *s = src + lo; // locals: no reload of the captured pointers
    float *d = dst + lo;
    int64_t m = hi - lo;
    if (nonTemporal) {
      for (int64_t i = 0; i < m; i += 64) {
        Line::load(s + i).stream(d + i);
        Line::load(s + i + 16).stream(d + i + 16);
        Line::load(s + i + 32).stream(d + i + 32);
        Line::load(s + i + 48).stream(d + i + 48);
      }
      _mm_sfence();
    } else {
      for (int64_t i = 0; i < m; i += 64) {
        Line::load(s + i).store(d + i);
        Line::load(s + i + 16).store(d + i + 16);
        Line::load(s + i + 32).store(d + i + 32);
        Line::load(s + i + 48).store(d + i + 48);
      }
    }
  }
}

int cmdBandwidth() {
  const int64_t bytes = int64_t(1) << 30;
  const int64_t n = bytes / int64_t(sizeof(float));
  float *buf = static_cast<float *>(std::aligned_alloc(4096, bytes));
  if (!buf)
    fail("cannot allocate 1 GiB");
  float *src = buf, *dst = buf + n / 2;
  // First touch by the thread that later uses each half of each range.
  for (float *p : {src, dst}) {
#pragma omp parallel num_threads(kBwThreads)
    {
      int64_t lo, hi;
      part(n / 2, omp_get_thread_num(), kBwThreads, lo, hi);
      for (int64_t i = lo; i < hi; ++i)
        p[i] = float(i & 1023) * (1.0f / 1024);
    }
  }
  auto measure = [&](auto pass, double passBytes) {
    pass(); // warm-up
    std::vector<double> g;
    for (int r = 0; r < 5; ++r) {
      double t0 = now();
      pass();
      g.push_back(passBytes / (now() - t0) * 1e-9);
    }
    return median(g);
  };
  double read =
      measure([&] { gSink = float(readPass(buf, n)); }, double(bytes));
  double copy = measure([&] { copyPass(src, dst, n / 2, false); },
                        double(bytes)); // 512 MiB read + 512 MiB written
  double copyNt =
      measure([&] { copyPass(src, dst, n / 2, true); }, double(bytes));
  std::free(buf);
  std::printf("read_gbs=%.1f copy_gbs=%.1f copy_nt_gbs=%.1f\n", read, copy,
              copyNt);
  return 0;
}

/// One read pass over `n` floats by kBwThreads threads, each reading its
/// contiguous half as `streams` equal contiguous parts, one 64-byte line of
/// each part per step (how a kernel that reads several rows or tensors at
/// once, such as a decode step's K and V rows, loads memory).
double readStreamsPass(const float *buf, int64_t n, int streams) {
  double sums[kBwThreads] = {};
#pragma omp parallel num_threads(kBwThreads)
  {
    int t = omp_get_thread_num();
    int64_t lo, hi;
    part(n, t, kBwThreads, lo, hi);
    int64_t len = (hi - lo) / streams / 16 * 16; // whole lines per stream
    Line acc[16];
    for (int s = 0; s < 16; ++s)
      acc[s] = Line::zero();
    for (int64_t i = 0; i < len; i += 16)
      for (int s = 0; s < streams; ++s)
        acc[s] = acc[s] + Line::load(buf + lo + s * len + i);
    Line total = Line::zero();
    for (int s = 0; s < streams; ++s)
      total = total + acc[s];
    sums[t] = total.sum();
  }
  return sums[0] + sums[1];
}

/// read-streams BYTES: the best read bandwidth of a BYTES buffer over 1, 2,
/// 4, 8 and 16 concurrent streams per thread (the medians of 5 passes each),
/// the read roof of a workload that reads BYTES, such as W4's K and V caches.
int cmdReadStreams(int argc, char **argv) {
  if (argc != 1)
    fail("read-streams takes one argument, the buffer size in bytes");
  char *end = nullptr;
  long long requested = std::strtoll(argv[0], &end, 10);
  if (!end || *end || requested < (1 << 20))
    fail("read-streams: the size must be an integer of at least 1 MiB");
  // Whole lines for every stream of every thread.
  const int64_t unit = int64_t(64) * 16 * kBwThreads;
  int64_t bytes = (int64_t(requested) + unit - 1) / unit * unit;
  int64_t n = bytes / int64_t(sizeof(float));
  float *buf = static_cast<float *>(std::aligned_alloc(4096, bytes));
  if (!buf)
    fail("cannot allocate the buffer");
#pragma omp parallel num_threads(kBwThreads)
  {
    int64_t lo, hi;
    part(n, omp_get_thread_num(), kBwThreads, lo, hi);
    for (int64_t i = lo; i < hi; ++i)
      buf[i] = float(i & 1023) * (1.0f / 1024);
  }
  double best = 0;
  int bestStreams = 0;
  for (int streams : {1, 2, 4, 8, 16}) {
    gSink = float(readStreamsPass(buf, n, streams)); // warm-up
    std::vector<double> g;
    for (int r = 0; r < 5; ++r) {
      double t0 = now();
      gSink = float(readStreamsPass(buf, n, streams));
      g.push_back(double(bytes) / (now() - t0) * 1e-9);
    }
    double m = median(g);
    std::printf("read_streams_%d_gbs=%.1f\n", streams, m);
    if (m > best) {
      best = m;
      bestStreams = streams;
    }
  }
  std::free(buf);
  std::printf("read_best_gbs=%.1f best_streams=%d bytes=%lld\n", best,
              bestStreams, static_cast<long long>(bytes));
  return 0;
}

//===----------------------------------------------------------------------===//
// naive: the straightforward C++ versions of the workloads
//===----------------------------------------------------------------------===//

/// A float tensor: shape and row-major data.
struct Tensor {
  std::vector<int64_t> shape;
  std::unique_ptr<float[]> data;
  int64_t size() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
};

Tensor makeTensor(std::vector<int64_t> shape) {
  Tensor t;
  t.shape = std::move(shape);
  t.data.reset(new float[t.size()]); // uninitialized, as malloc in MLIR code
  return t;
}

/// RoPE inverse frequencies 1 / base^(2i/R) (formula sheet A3), in double:
/// pe.rope uses a frequency op's table at its exact value, whatever the
/// op's result type (docs/PE.md, Precision).
std::vector<double> defaultInvFreq(double base, int64_t rotaryDim) {
  std::vector<double> f(rotaryDim / 2);
  for (int64_t i = 0; i < rotaryDim / 2; ++i)
    f[i] = 1.0 / std::pow(base, double(2 * i) / double(rotaryDim));
  return f;
}

/// llama3 scaling (formula sheet A4.6) of the default frequencies, in double
/// (exact, as above); attention_scaling is 1.
std::vector<double> llama3InvFreq(double base, int64_t rotaryDim, double factor,
                                  double lowFreqFactor, double highFreqFactor,
                                  double oldContextLen) {
  const double pi = 3.14159265358979323846;
  double lowFreqWavelen = oldContextLen / lowFreqFactor;
  double highFreqWavelen = oldContextLen / highFreqFactor;
  std::vector<double> f(rotaryDim / 2);
  for (int64_t i = 0; i < rotaryDim / 2; ++i) {
    double inv = 1.0 / std::pow(base, double(2 * i) / double(rotaryDim));
    double wavelen = 2 * pi / inv;
    if (wavelen > lowFreqWavelen) {
      inv = inv / factor;
    } else if (wavelen >= highFreqWavelen) {
      double smooth = (oldContextLen / wavelen - lowFreqFactor) /
                      (highFreqFactor - lowFreqFactor);
      inv = (1 - smooth) * inv / factor + smooth * inv;
    }
    f[i] = inv;
  }
  return f;
}

/// cos/sin tables [P, R/2] for positions p0 .. p0+P-1: the angle p * f[i] in
/// double, cos/sin rounded to f32, then multiplied by mscale in f32.
void ropeTables(const std::vector<double> &invFreq, int64_t p0, int64_t P,
                float mscale, std::vector<float> &cosT,
                std::vector<float> &sinT) {
  int64_t pairs = int64_t(invFreq.size());
  cosT.resize(P * pairs);
  sinT.resize(P * pairs);
#pragma omp parallel for
  for (int64_t t = 0; t < P; ++t)
    for (int64_t i = 0; i < pairs; ++i) {
      double angle = double(p0 + t) * invFreq[i];
      cosT[t * pairs + i] = float(std::cos(angle)) * mscale;
      sinT[t * pairs + i] = float(std::sin(angle)) * mscale;
    }
}

/// Split-half RoPE of one head x[T, D] (R = D): pair (x[i], x[i + D/2]) at
/// token t becomes (a c - b s, a s + b c).
void ropeHalfHead(const float *x, float *y, int64_t T, int64_t D,
                  const std::vector<float> &cosT,
                  const std::vector<float> &sinT) {
  int64_t half = D / 2;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < half; ++i) {
      float a = x[t * D + i], b = x[t * D + i + half];
      float c = cosT[t * half + i], s = sinT[t * half + i];
      y[t * D + i] = a * c - b * s;
      y[t * D + i + half] = a * s + b * c;
    }
}

/// RoPE of a [1, H, T, D] tensor at positions p0 .. p0+T-1, one head per
/// iteration.
Tensor ropeHalf(const float *x, const std::vector<int64_t> &shape, int64_t p0,
                const std::vector<double> &invFreq, float mscale) {
  int64_t H = shape[1], T = shape[2], D = shape[3];
  std::vector<float> cosT, sinT;
  ropeTables(invFreq, p0, T, mscale, cosT, sinT);
  Tensor y = makeTensor(shape);
#pragma omp parallel for
  for (int64_t h = 0; h < H; ++h)
    ropeHalfHead(x + h * T * D, y.data.get() + h * T * D, T, D, cosT, sinT);
  return y;
}

/// ALiBi slopes of the paper's get_slopes (formula sheet A5).
std::vector<double> alibiSlopes(int64_t n) {
  auto pow2 = [](int64_t m) {
    double start = std::pow(2.0, -std::pow(2.0, -(std::log2(double(m)) - 3)));
    std::vector<double> s;
    for (int64_t k = 0; k < m; ++k)
      s.push_back(start * std::pow(start, double(k)));
    return s;
  };
  int64_t c = 1;
  while (c * 2 <= n)
    c *= 2;
  std::vector<double> s = pow2(c);
  if (c != n) {
    std::vector<double> extra = alibiSlopes(2 * c);
    for (int64_t k = 0; int64_t(s.size()) < n; k += 2)
      s.push_back(extra[k]);
  }
  return s;
}

/// Attention of q [1, H, Tq, D] with k, v [1, Hkv, Tk, D] (head h reads KV
/// head h / (H / Hkv)), scale 1/sqrt(D), causal aligned bottom-right (query
/// i sees keys j <= i + Tk - Tq), optional symmetric ALiBi bias
/// slope_h * -|i - j|. Per head: the scores [Tq, Tk] are materialized, then
/// a softmax per row, then P V. Masked keys are skipped.
Tensor attention(const float *q, const std::vector<int64_t> &qShape,
                 const float *k, const float *v, int64_t Hkv, int64_t Tk,
                 bool causal, bool alibi) {
  int64_t H = qShape[1], Tq = qShape[2], D = qShape[3];
  int64_t group = H / Hkv;
  float scale = float(1.0 / std::sqrt(double(D)));
  std::vector<double> slopes = alibiSlopes(H);
  Tensor out = makeTensor(qShape);
#pragma omp parallel for
  for (int64_t h = 0; h < H; ++h) {
    const float *qh = q + h * Tq * D;
    const float *kh = k + (h / group) * Tk * D;
    const float *vh = v + (h / group) * Tk * D;
    float *oh = out.data.get() + h * Tq * D;
    float slope = float(slopes[h]);
    std::vector<float> S(Tq * Tk); // the scores of this head
    for (int64_t i = 0; i < Tq; ++i) {
      int64_t jEnd = causal ? std::min(Tk, i + Tk - Tq + 1) : Tk;
      float *Si = &S[i * Tk];
      // Scores.
      for (int64_t j = 0; j < jEnd; ++j) {
        float dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += qh[i * D + d] * kh[j * D + d];
        float s = scale * dot;
        if (alibi)
          s += slope * -float(std::abs(i - j));
        Si[j] = s;
      }
      // Softmax.
      float mx = -INFINITY;
      for (int64_t j = 0; j < jEnd; ++j)
        mx = std::max(mx, Si[j]);
      float sum = 0;
      for (int64_t j = 0; j < jEnd; ++j) {
        Si[j] = std::exp(Si[j] - mx);
        sum += Si[j];
      }
      // P V.
      float *o = oh + i * D;
      for (int64_t d = 0; d < D; ++d)
        o[d] = 0;
      for (int64_t j = 0; j < jEnd; ++j)
        for (int64_t d = 0; d < D; ++d)
          o[d] += Si[j] * vh[j * D + d];
      float inv = jEnd > 0 ? 1.0f / sum : 0.0f; // fully masked row -> 0
      for (int64_t d = 0; d < D; ++d)
        o[d] *= inv;
    }
  }
  return out;
}

struct Input {
  std::vector<int64_t> shape;
  npy::Array array;
  const float *data() const {
    return reinterpret_cast<const float *>(array.data.data());
  }
};

std::vector<double> llama3Default(int64_t rotaryDim) {
  return llama3InvFreq(500000.0, rotaryDim, 8.0, 1.0, 4.0, 8192.0);
}

/// W1's work for given cos/sin tables: half-layout RoPE of q and k, each of
/// H heads of [T, D], heads in parallel.
std::vector<Tensor> ropeQK(const Input &q, const Input &k, int64_t H, int64_t T,
                           int64_t D, const std::vector<float> &cosT,
                           const std::vector<float> &sinT) {
  Tensor qr = makeTensor(q.shape), kr = makeTensor(k.shape);
#pragma omp parallel for
  for (int64_t h = 0; h < H; ++h) {
    ropeHalfHead(q.data() + h * T * D, qr.data.get() + h * T * D, T, D, cosT,
                 sinT);
    ropeHalfHead(k.data() + h * T * D, kr.data.get() + h * T * D, T, D, cosT,
                 sinT);
  }
  std::vector<Tensor> r;
  r.push_back(std::move(qr));
  r.push_back(std::move(kr));
  return r;
}

/// W1: split-half RoPE of q and k at positions 0..T-1, base 10000.
std::vector<Tensor> naiveW1(const std::vector<Input> &in) {
  const Input &q = in[0], &k = in[1];
  int64_t H = q.shape[1], T = q.shape[2], D = q.shape[3];
  std::vector<double> invFreq = defaultInvFreq(10000.0, D);
  std::vector<float> cosT, sinT;
  ropeTables(invFreq, 0, T, 1.0f, cosT, sinT);
  return ropeQK(q, k, H, T, D, cosT, sinT);
}

/// W2: llama3-scaled RoPE of q and k (materialized), causal attention.
std::vector<Tensor> naiveW2(const std::vector<Input> &in) {
  const Input &q = in[0], &k = in[1], &v = in[2];
  std::vector<double> invFreq = llama3Default(q.shape[3]);
  Tensor qr = ropeHalf(q.data(), q.shape, 0, invFreq, 1.0f);
  Tensor kr = ropeHalf(k.data(), k.shape, 0, invFreq, 1.0f);
  std::vector<Tensor> r;
  r.push_back(attention(qr.data.get(), qr.shape, kr.data.get(), v.data(),
                        k.shape[1], k.shape[2],
                        /*causal=*/true, /*alibi=*/false));
  return r;
}

/// W3: causal attention with the symmetric ALiBi bias.
std::vector<Tensor> naiveW3(const std::vector<Input> &in) {
  const Input &q = in[0], &k = in[1], &v = in[2];
  std::vector<Tensor> r;
  r.push_back(attention(q.data(), q.shape, k.data(), v.data(), k.shape[1],
                        k.shape[2],
                        /*causal=*/true, /*alibi=*/true));
  return r;
}

/// W4 / W4g: the query rotated at position Tk - 1, attention over the cache.
std::vector<Tensor> naiveW4(const std::vector<Input> &in) {
  const Input &q = in[0], &k = in[1], &v = in[2];
  int64_t Tk = k.shape[2];
  std::vector<double> invFreq = llama3Default(q.shape[3]);
  Tensor qr = ropeHalf(q.data(), q.shape, Tk - 1, invFreq, 1.0f);
  std::vector<Tensor> r;
  r.push_back(attention(qr.data.get(), qr.shape, k.data(), v.data(), k.shape[1],
                        Tk,
                        /*causal=*/true, /*alibi=*/false));
  return r;
}

/// W5: x[t, c] + PE(t, c), interleaved layout, base 10000, evaluated in
/// double per (t, c) and rounded once.
std::vector<Tensor> naiveW5(const std::vector<Input> &in) {
  const Input &x = in[0];
  int64_t T = x.shape[0], C = x.shape[1];
  Tensor y = makeTensor(x.shape);
  const float *xd = x.data();
  float *yd = y.data.get();
#pragma omp parallel for
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < C; ++c) {
      double pe;
      if (c % 2 == 0)
        pe = std::sin(double(t) * std::pow(10000.0, -double(c) / double(C)));
      else
        pe =
            std::cos(double(t) * std::pow(10000.0, -double(c - 1) / double(C)));
      yd[t * C + c] = float(double(xd[t * C + c]) + pe);
    }
  std::vector<Tensor> r;
  r.push_back(std::move(y));
  return r;
}

/// W1 with the cos/sin tables cached: what a framework does once per model
/// (a rotary module's precomputed f32 cos/sin buffers, as ropeTables), kept
/// outside the timed call; the call only rotates. The loops are those of
/// naiveW1 (the compiler vectorizes the channel loop).
std::vector<Tensor> cachedW1(const std::vector<Input> &in) {
  const Input &q = in[0], &k = in[1];
  int64_t H = q.shape[1], T = q.shape[2], D = q.shape[3];
  static std::vector<float> cosT, sinT;
  static int64_t cachedT = -1, cachedD = -1;
  if (cachedT != T || cachedD != D) {
    ropeTables(defaultInvFreq(10000.0, D), 0, T, 1.0f, cosT, sinT);
    cachedT = T;
    cachedD = D;
  }
  return ropeQK(q, k, H, T, D, cosT, sinT);
}

/// W5 with the encoding cached: a [T, C] f32 table (as a framework's
/// registered `pe` buffer, evaluated in double and rounded to f32 once),
/// kept outside the timed call; the call adds it to x in f32 (so the sum is
/// rounded twice, where the op rounds the f64 sum once).
std::vector<Tensor> cachedW5(const std::vector<Input> &in) {
  const Input &x = in[0];
  int64_t T = x.shape[0], C = x.shape[1];
  static std::vector<float> table;
  static int64_t cachedT = -1, cachedC = -1;
  if (cachedT != T || cachedC != C) {
    table.resize(T * C);
#pragma omp parallel for
    for (int64_t t = 0; t < T; ++t)
      for (int64_t c = 0; c < C; ++c) {
        double w = std::pow(10000.0, -double(c - c % 2) / double(C));
        table[t * C + c] = float(c % 2 == 0 ? std::sin(double(t) * w)
                                            : std::cos(double(t) * w));
      }
    cachedT = T;
    cachedC = C;
  }
  Tensor y = makeTensor(x.shape);
  const float *xd = x.data(), *pe = table.data();
  float *yd = y.data.get();
#pragma omp parallel for
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < C; ++c)
      yd[t * C + c] = xd[t * C + c] + pe[t * C + c];
  std::vector<Tensor> r;
  r.push_back(std::move(y));
  return r;
}

struct Workload {
  const char *name;
  std::vector<const char *> inputs; // file names in --inputs DIR
  std::vector<Tensor> (*run)(const std::vector<Input> &);
};

const std::vector<Workload> &workloads() {
  static const std::vector<Workload> w = {
      {"w1", {"q.npy", "k.npy"}, naiveW1},
      {"w2", {"q.npy", "k.npy", "v.npy"}, naiveW2},
      {"w3", {"q.npy", "k.npy", "v.npy"}, naiveW3},
      // W2/W3 in bf16: the same f32 computation on the bf16 values.
      {"w2b", {"q.npy", "k.npy", "v.npy"}, naiveW2},
      {"w3b", {"q.npy", "k.npy", "v.npy"}, naiveW3},
      {"w4", {"q.npy", "k.npy", "v.npy"}, naiveW4},
      {"w4g", {"q.npy", "k.npy", "v.npy"}, naiveW4},
      {"w5", {"x.npy"}, naiveW5},
      {"w1-cached", {"q.npy", "k.npy"}, cachedW1},
      {"w5-cached", {"x.npy"}, cachedW5},
  };
  return w;
}

Input load(const std::string &path, size_t rank) {
  pe::rt::Expected<npy::Array> a = npy::readNpy(path);
  if (!a)
    fail(a.errorMessage());
  if (a->dtype != npy::DType::F32)
    fail(path + ": expected float32, got " + npy::dtypeName(a->dtype));
  if (a->shape.size() != rank)
    fail(path + ": expected rank " + std::to_string(rank));
  Input in;
  in.shape.assign(a->shape.begin(), a->shape.end());
  in.array = std::move(*a);
  return in;
}

int cmdNaive(int argc, char **argv) {
  if (argc < 1)
    fail("naive: missing workload name");
  std::string name = argv[0];
  std::string dir;
  int repeat = 5;
  std::vector<std::string> outputs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail("naive: " + a + " needs a value");
      return argv[++i];
    };
    if (a == "--inputs")
      dir = value();
    else if (a == "--repeat")
      repeat = std::atoi(value().c_str());
    else if (a == "--output")
      outputs.push_back(value());
    else
      fail("naive: unknown argument '" + a + "'");
  }
  const Workload *w = nullptr;
  for (const Workload &c : workloads())
    if (name == c.name)
      w = &c;
  if (!w)
    fail("naive: unknown workload '" + name +
         "' (w1 w2 w3 w2b w3b w4 w4g w5 w1-cached w5-cached)");
  if (dir.empty())
    fail("naive: --inputs DIR is required");
  if (repeat < 1)
    fail("naive: --repeat must be >= 1");

  std::vector<Input> in;
  for (const char *f : w->inputs)
    in.push_back(load(dir + "/" + f, name.rfind("w5", 0) == 0 ? 2 : 4));
  if (name.rfind("w5", 0) != 0)
    for (const Input &i : in)
      if (i.shape[0] != 1 || i.shape[3] != in[0].shape[3] ||
          in[0].shape[1] % i.shape[1] != 0)
        fail("naive: expected [1, H, T, D] inputs with equal D and H % Hkv == "
             "0");

  std::vector<Tensor> result = w->run(in); // warm-up
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now();
    std::vector<Tensor> res = w->run(in);
    double t1 = now();
    ms.push_back((t1 - t0) * 1e3);
    result = std::move(res); // the previous result is freed untimed
  }
  std::printf("pe-bench: naive %s runs=%d min_ms=%.6f median_ms=%.6f\n",
              name.c_str(), repeat, *std::min_element(ms.begin(), ms.end()),
              median(ms));

  if (!outputs.empty() && outputs.size() != result.size())
    fail("naive: " + name + " has " + std::to_string(result.size()) +
         " results; give one --output per result");
  for (size_t i = 0; i < outputs.size(); ++i) {
    pe::rt::Expected<npy::Array> a =
        npy::makeArray(npy::DType::F32, result[i].shape);
    if (!a)
      fail(a.errorMessage());
    std::memcpy(a->data.data(), result[i].data.get(),
                result[i].size() * sizeof(float));
    if (pe::rt::Error e = npy::writeNpy(outputs[i], *a))
      fail(e.message());
  }
  return 0;
}

void usage() {
  std::fprintf(
      stderr,
      "usage: pe-bench peak [avx512|avx2|generic]\n"
      "       pe-bench bandwidth\n"
      "       pe-bench read-streams BYTES\n"
      "       pe-bench naive W --inputs DIR [--repeat N] [--output FILE.npy "
      "...]\n"
      "         W: w1 w2 w3 w2b w3b w4 w4g w5 w1-cached w5-cached (see\n"
      "         bench/README.md); DIR holds\n"
      "         q.npy k.npy [v.npy] (x.npy for w5); one --output per result\n");
}

} // namespace

int main(int argc, char **argv) {
  // As pe-run: freed memory stays in the process, so the result buffers of
  // later calls reuse pages already mapped instead of faulting in fresh ones
  // (both sides of the comparison allocate their results the same way).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  if (argc < 2) {
    usage();
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "peak")
    return cmdPeak(argc - 2, argv + 2);
  if (cmd == "read-streams")
    return cmdReadStreams(argc - 2, argv + 2);
  if (cmd == "bandwidth")
    return cmdBandwidth();
  if (cmd == "naive")
    return cmdNaive(argc - 2, argv + 2);
  usage();
  return 2;
}
