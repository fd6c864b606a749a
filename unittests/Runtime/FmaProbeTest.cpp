//===- FmaProbeTest.cpp - Tests of the FP32 multiply-add probe ------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/FmaProbe.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace pe::rt;

namespace {

/// Lanes of the probe's vectors, from its width.
int lanesOf(const FmaProbe &p) {
  if (!std::strcmp(p.isa, "avx512"))
    return 16;
  if (!std::strcmp(p.isa, "avx2"))
    return 8;
  return 4;
}

/// What the loop computes, in double: 12 chains a = a * x + y from
/// seed + 0.01 (c + 1), summed over the chains and the lanes.
double expected(int lanes, int64_t iterations, float seed) {
  double sum = 0;
  for (int c = 0; c < 12; ++c) {
    double a = double(seed + 0.01f * float(c + 1));
    for (int64_t i = 0; i < iterations; ++i)
      a = a * double(0.999999f) + double(1e-7f);
    sum += a;
  }
  return sum * lanes;
}

TEST(FmaProbeTest, HostProbeIsComplete) {
  FmaProbe p = hostFmaProbe();
  ASSERT_NE(p.loop, nullptr);
  const char *isas[] = {"avx512", "avx2", "generic"};
  bool known = false;
  for (const char *isa : isas)
    known |= !std::strcmp(p.isa, isa);
  EXPECT_TRUE(known) << p.isa;
  // 12 multiply-adds of `lanes` floats, 2 operations each, per iteration.
  EXPECT_EQ(p.flopsPerIteration, 12.0 * lanesOf(p) * 2);
}

TEST(FmaProbeTest, LoopRunsItsIterations) {
  FmaProbe p = hostFmaProbe();
  int lanes = lanesOf(p);
  // The chains move by about 1e-6 of their value per iteration: after 10^5
  // iterations the result is 0.905 of the start, far from it in f32. The
  // f32 rounding of 10^5 steps stays below 10^5 * 2^-24 relative.
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(1000), int64_t(100000)})
    for (float seed : {0.0f, 1.5f}) {
      double want = expected(lanes, n, seed);
      double got = p.loop(n, seed);
      EXPECT_NEAR(got, want, std::abs(want) * 1e-2 * (n > 0 ? 1 : 0.001))
          << "iterations " << n << " seed " << seed;
    }
  // Sanity of the reference itself: 10^5 iterations change the result.
  EXPECT_LT(expected(lanes, 100000, 1.5f), 0.95 * expected(lanes, 0, 1.5f));
}

TEST(FmaProbeTest, NamedProbes) {
  // The generic probe runs everywhere; the host's is one of the named ones,
  // with the same loop; unknown names give no probe.
  FmaProbe generic = fmaProbe("generic");
  ASSERT_NE(generic.loop, nullptr);
  EXPECT_EQ(generic.flopsPerIteration, 12.0 * 4 * 2);
  FmaProbe host = hostFmaProbe();
  FmaProbe same = fmaProbe(host.isa);
  EXPECT_EQ(same.loop, host.loop);
  EXPECT_EQ(same.flopsPerIteration, host.flopsPerIteration);
  EXPECT_EQ(fmaProbe("sse9").loop, nullptr);
  EXPECT_EQ(fmaProbe(nullptr).loop, nullptr);
  // A named probe that the host has computes what its width says.
  for (const char *isa : {"avx512", "avx2"}) {
    FmaProbe p = fmaProbe(isa);
    if (!p.loop)
      continue;
    EXPECT_STREQ(p.isa, isa);
    int lanes = lanesOf(p);
    double want = expected(lanes, 1000, 1.5f);
    EXPECT_NEAR(p.loop(1000, 1.5f), want, std::abs(want) * 1e-2);
  }
}

} // namespace
