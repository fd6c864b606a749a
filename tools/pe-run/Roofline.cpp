//===- Roofline.cpp - Roofs timed next to a function's calls --------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Roofline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace pe::run;

namespace {
/// 64 bytes: one cache line, four 16-byte vectors on any x86-64 (the loops
/// below are compiled for the generic target; 16-byte loads and stores reach
/// the memory bandwidth of two cores just as 64-byte ones do).
typedef float Line __attribute__((vector_size(64), aligned(64)));

constexpr int64_t kAlign = 4096;

/// Splits [0, n) lines into `parts` contiguous ranges.
void split(int64_t n, int part, int parts, int64_t &lo, int64_t &hi) {
  lo = n * part / parts;
  hi = n * (part + 1) / parts;
}

float readLines(const Line *p, int64_t lo, int64_t hi) {
  Line s0 = {}, s1 = {};
  int64_t i = lo;
  for (; i + 1 < hi; i += 2) {
    s0 += p[i];
    s1 += p[i + 1];
  }
  if (i < hi)
    s0 += p[i];
  s0 += s1;
  float r = 0;
  for (int k = 0; k < 16; ++k)
    r += s0[k];
  return r;
}

/// Reads lines [lo, hi) as `streams` equal contiguous parts, one line of
/// each part per step (a kernel reading several rows or tensors at once);
/// the lines left over by the split are read at the end.
float readLinesStreams(const Line *p, int64_t lo, int64_t hi, int streams) {
  constexpr int kMaxStreams = 16;
  streams = std::clamp(streams, 1, kMaxStreams);
  int64_t len = (hi - lo) / streams;
  Line acc[kMaxStreams] = {};
  for (int64_t i = 0; i < len; ++i)
    for (int s = 0; s < streams; ++s)
      acc[s] += p[lo + s * len + i];
  for (int64_t i = lo + streams * len; i < hi; ++i)
    acc[0] += p[i];
  Line sum = {};
  for (int s = 0; s < streams; ++s)
    sum += acc[s];
  float r = 0;
  for (int k = 0; k < 16; ++k)
    r += sum[k];
  return r;
}

void copyLines(const Line *s, Line *d, int64_t lo, int64_t hi, bool nt) {
  if (nt) {
#if defined(__clang__)
    for (int64_t i = lo; i < hi; ++i)
      __builtin_nontemporal_store(s[i], &d[i]);
#else
    for (int64_t i = lo; i < hi; ++i)
      d[i] = s[i];
#endif
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#endif
    return;
  }
  for (int64_t i = lo; i < hi; ++i)
    d[i] = s[i];
}

/// Keeps the reads' sums alive (an atomic or plain global that is never
/// read would let the optimizer drop the reads).
volatile float sink = 0;

} // namespace

/// Worker threads for one parallel region at a time (when libomp is not
/// loaded). Idle workers block on a condition variable; a region starts once
/// every worker is awake and spinning, so the timed interval holds no
/// wake-up latency.
class pe::run::Pool {
public:
  explicit Pool(int threads) : n(threads) {
    for (int t = 1; t < n; ++t)
      workers.emplace_back([this, t] { loop(t); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      ++generation;
    }
    wake.notify_all();
    for (std::thread &w : workers)
      w.join();
  }

  /// Runs body(t) on every thread t (the caller is thread 0); returns the
  /// seconds from the common start to the last thread's end.
  double run(const std::function<void(int)> &fn) {
    body = &fn;
    ready.store(0);
    done.store(0);
    go.store(false);
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++generation;
    }
    wake.notify_all();
    while (ready.load() != n - 1)
      std::this_thread::yield();
    auto start = std::chrono::steady_clock::now();
    go.store(true);
    fn(0);
    while (done.load() != n - 1)
      ;
    auto end = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(end - start).count();
  }

private:
  void loop(int t) {
    unsigned seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] { return generation != seen; });
        seen = generation;
        if (stop)
          return;
      }
      ready.fetch_add(1);
      while (!go.load())
        ;
      (*body)(t);
      done.fetch_add(1);
    }
  }

  int n;
  std::vector<std::thread> workers;
  const std::function<void(int)> *body = nullptr;
  std::mutex mutex;
  std::condition_variable wake;
  unsigned generation = 0;
  bool stop = false;
  std::atomic<int> ready{0}, done{0};
  std::atomic<bool> go{false};
};

namespace {
/// libomp's source location record (`ident_t`); a zeroed one with a
/// placeholder location is what compilers pass without debug information.
struct Ident {
  int32_t reserved1 = 0, flags = 0, reserved2 = 0, reserved3 = 0;
  const char *psource = ";unknown;unknown;0;0;;";
};

/// The region body of a fork: `ctx` points to the std::function.
void microtask(int32_t * /*gtid*/, int32_t *btid, void *ctx) {
  (*static_cast<const std::function<void(int)> *>(ctx))(*btid);
}

int64_t lastLevelCacheBytes() {
  long l3 = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  // Unknown (0 or -1 on some systems): assume a large L3.
  return l3 > 0 ? l3 : int64_t(64) << 20;
}
} // namespace

int Roofline::defaultThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    int v = std::atoi(env); // the first entry of a nested list
    if (v > 0)
      return v;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? int(hw) : 1;
}

std::unique_ptr<Roofline> Roofline::create(int64_t bytes, int threads,
                                           ForkCall forkCall,
                                           const std::string &fmaIsa) {
  std::unique_ptr<Roofline> r(new Roofline());
  r->fork = forkCall;
  r->numThreads = std::max(1, threads);
  if (forkCall) {
    // libomp's default team size: the largest thread number of a region.
    std::atomic<int> team{1};
    r->timeParallel([&](int t) {
      int seen = team.load();
      while (t + 1 > seen && !team.compare_exchange_weak(seen, t + 1))
        ;
    });
    r->numThreads = team.load();
  } else {
    r->pool = std::make_unique<Pool>(r->numThreads);
  }
  r->probe = pe::rt::fmaProbe(fmaIsa.c_str());
  if (!r->probe.loop)
    r->probe = pe::rt::hostFmaProbe();
  if (bytes <= 0)
    return r;
  // Whole lines, an even count (half of them are a copy's source).
  r->size = std::max<int64_t>(128, (bytes + 127) / 128 * 128);
  r->evictSize = 2 * lastLevelCacheBytes();
  r->evictSize = (r->evictSize + kAlign - 1) / kAlign * kAlign;
  int64_t buf = (r->size + kAlign - 1) / kAlign * kAlign;
  r->data = static_cast<char *>(std::aligned_alloc(kAlign, buf));
  r->evictBuf = static_cast<char *>(std::aligned_alloc(kAlign, r->evictSize));
  if (!r->data || !r->evictBuf)
    return nullptr;
  // First touch (the pages exist before any timing), split as the roofs are.
  int64_t lines = r->size / 64, evictLines = r->evictSize / 64;
  Roofline *self = r.get();
  r->timeParallel([&](int t) {
    int64_t lo, hi;
    split(lines, t, self->numThreads, lo, hi);
    std::memset(self->data + lo * 64, 1, (hi - lo) * 64);
    split(evictLines, t, self->numThreads, lo, hi);
    std::memset(self->evictBuf + lo * 64, 3, (hi - lo) * 64);
  });
  return r;
}

Roofline::~Roofline() {
  std::free(data);
  std::free(evictBuf);
}

double Roofline::timeParallel(const std::function<void(int)> &body) {
  if (!fork)
    return pool->run(body);
  Ident loc;
  auto start = std::chrono::steady_clock::now();
  fork(&loc, 1, reinterpret_cast<void *>(&microtask),
       const_cast<std::function<void(int)> *>(&body));
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(end - start).count();
}

double Roofline::readAll(const char *buf, int64_t bytes) {
  int64_t lines = bytes / 64;
  const Line *p = reinterpret_cast<const Line *>(buf);
  return timeParallel([&](int t) {
    int64_t lo, hi;
    split(lines, t, numThreads, lo, hi);
    sink = readLines(p, lo, hi);
  });
}

void Roofline::evict() { readAll(evictBuf, evictSize); }

double Roofline::readSeconds() {
  evict();
  return readAll(data, size);
}

double Roofline::bestReadSeconds() {
  double best = readSeconds();
  int64_t lines = size / 64;
  const Line *p = reinterpret_cast<const Line *>(data);
  for (int streams : {2, 4, 8}) {
    evict();
    best = std::min(best, timeParallel([&](int t) {
                      int64_t lo, hi;
                      split(lines, t, numThreads, lo, hi);
                      sink = readLinesStreams(p, lo, hi, streams);
                    }));
  }
  return best;
}

double Roofline::fmaFlopsPerSecond(double seconds) {
  std::vector<float> sums(numThreads);
  auto run = [&](int64_t iterations) {
    return timeParallel(
        [&](int t) { sums[t] += probe.loop(iterations, float(t)); });
  };
  if (fmaIterationsPerSecond <= 0) // calibrate (and wake the threads)
    fmaIterationsPerSecond = double(1 << 16) / run(1 << 16);
  int64_t iterations = std::max<int64_t>(
      1024, int64_t(fmaIterationsPerSecond * std::max(seconds, 1e-3)));
  double t = run(iterations);
  fmaIterationsPerSecond = double(iterations) / t;
  for (float s : sums)
    sink = sink + s;
  return double(numThreads) * double(iterations) * probe.flopsPerIteration / t;
}

double Roofline::copySeconds(bool nonTemporal) {
  evict();
  int64_t half = size / 128; // lines per half
  const Line *s = reinterpret_cast<const Line *>(data);
  Line *d = reinterpret_cast<Line *>(data + size / 2);
  return timeParallel([&](int t) {
    int64_t lo, hi;
    split(half, t, numThreads, lo, hi);
    copyLines(s, d, lo, hi, nonTemporal);
  });
}
