//===- FmaProbe.cpp - The host's FP32 multiply-add peak -------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Runtime/FmaProbe.h"

#include <string_view>

using namespace pe::rt;

namespace {
constexpr int kChains = 12;

#if defined(__x86_64__)
#define PE_VREG "+v"
#elif defined(__aarch64__)
#define PE_VREG "+w"
#endif

/// Defines `float NAME(int64_t iterations, float seed)` with the target
/// attribute ATTR: 12 chains a_i = a_i * x + y of VEC (LANES floats), FMA
/// when FUSED (a target with FMA instructions), else a multiply and an add
/// (2 operations as well). The empty asm keeps the accumulators in
/// registers and stops the compiler from folding iterations; the loop body
/// is 12 vector multiply-adds. (A macro, not a template: the asm operands'
/// vector width must be checked under the function's target attribute.)
#define PE_FMA_LOOP(NAME, VEC, LANES, FUSED, ATTR)                             \
  ATTR float NAME(int64_t iterations, float seed) {                            \
    VEC x, y, a[kChains];                                                      \
    for (int l = 0; l < LANES; ++l) {                                          \
      x[l] = 0.999999f;                                                        \
      y[l] = 1e-7f;                                                            \
    }                                                                          \
    for (int c = 0; c < kChains; ++c)                                          \
      for (int l = 0; l < LANES; ++l)                                          \
        a[c][l] = seed + 0.01f * float(c + 1);                                 \
    for (int64_t i = 0; i < iterations; ++i) {                                 \
      _Pragma("clang loop unroll(full)") for (int c = 0; c < kChains; ++c) {   \
        if constexpr (FUSED)                                                   \
          a[c] = __builtin_elementwise_fma(a[c], x, y);                        \
        else                                                                   \
          a[c] = a[c] * x + y;                                                 \
      }                                                                        \
      PE_KEEP(a);                                                              \
    }                                                                          \
    VEC s = a[0];                                                              \
    for (int c = 1; c < kChains; ++c)                                          \
      s += a[c];                                                               \
    float r = 0;                                                               \
    for (int l = 0; l < LANES; ++l)                                            \
      r += s[l];                                                               \
    return r;                                                                  \
  }

#ifdef PE_VREG
#define PE_KEEP(a)                                                             \
  asm volatile(""                                                              \
               : PE_VREG(a[0]), PE_VREG(a[1]), PE_VREG(a[2]), PE_VREG(a[3]),   \
                 PE_VREG(a[4]), PE_VREG(a[5]), PE_VREG(a[6]), PE_VREG(a[7]),   \
                 PE_VREG(a[8]), PE_VREG(a[9]), PE_VREG(a[10]), PE_VREG(a[11]))
#else
#define PE_KEEP(a) asm volatile("" : : "r"(a) : "memory")
#endif

typedef float V4 __attribute__((vector_size(16)));
PE_FMA_LOOP(loopGeneric, V4, 4, false, )

#if defined(__x86_64__) && defined(__clang__)
typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));
PE_FMA_LOOP(loopAvx2, V8, 8, true, __attribute__((target("avx2,fma"))))
PE_FMA_LOOP(loopAvx512, V16, 16, true, __attribute__((target("avx512f"))))
#endif
} // namespace

FmaProbe pe::rt::fmaProbe(const char *isa) {
  std::string_view name(isa ? isa : "");
#if defined(__x86_64__) && defined(__clang__)
  __builtin_cpu_init();
  if (name == "avx512" && __builtin_cpu_supports("avx512f"))
    return {loopAvx512, double(kChains) * 16 * 2, "avx512"};
  if (name == "avx2" && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma"))
    return {loopAvx2, double(kChains) * 8 * 2, "avx2"};
#endif
  if (name == "generic")
    return {loopGeneric, double(kChains) * 4 * 2, "generic"};
  return {};
}

FmaProbe pe::rt::hostFmaProbe() {
  for (const char *isa : {"avx512", "avx2"})
    if (FmaProbe p = fmaProbe(isa); p.loop)
      return p;
  return fmaProbe("generic");
}
