//===- AOTCommon.cpp - What the mains of AOT executables share ------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "AOTCommon.h"

#include "pe/Runtime/HalfFloat.h"
#include "pe/Runtime/Hooks.h"
#include "pe/Runtime/Inputs.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <malloc.h>
#include <sstream>

using namespace pe;
using namespace pe::aot;

void pe::aot::fail(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "pe-aot: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static bool parseUnsigned(const std::string &text, unsigned long long &out) {
  if (text.empty() || text[0] == '-' || text[0] == '+')
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && end && *end == '\0';
}

Options pe::aot::parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    // Accept both --flag=value and --flag value.
    auto value = [&](const std::string &flag, std::string &out) {
      if (a.compare(0, flag.size() + 1, flag + "=") == 0) {
        out = a.substr(flag.size() + 1);
        return true;
      }
      if (a == flag) {
        if (i + 1 >= argc)
          fail("option '" + flag + "' needs a value");
        out = argv[++i];
        return true;
      }
      return false;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (value("--input", v)) {
      o.inputs.push_back(v);
    } else if (value("--output", v)) {
      o.outputs.push_back(v);
    } else if (a == "--random-inputs") {
      o.randomInputs = true;
    } else if (value("--seed", v)) {
      if (!parseUnsigned(v, o.seed))
        fail("--seed: expected an unsigned integer, got '" + v + "'");
    } else if (value("--repeat", v)) {
      if (!parseUnsigned(v, o.repeat) || o.repeat < 1 || o.repeat > 1000000000)
        fail("--repeat must be an integer of at least 1, got '" + v + "'");
      o.timing = true;
    } else {
      fail("unknown argument '" + a + "' (see --help)");
    }
  }
  return o;
}

void pe::aot::checkCounts(const rt::Signature &sig, const Options &o) {
  size_t numArgs = sig.args.size(), numResults = sig.results.size();
  std::string plural = numArgs == 1 ? "" : "s";
  if (o.inputs.size() > numArgs)
    fail(std::to_string(o.inputs.size()) +
         " --input files given but function '" + sig.function + "' takes " +
         std::to_string(numArgs) + " argument" + plural);
  if (o.inputs.size() < numArgs && !o.randomInputs)
    fail("function '" + sig.function + "' takes " + std::to_string(numArgs) +
         " argument" + plural + " but " + std::to_string(o.inputs.size()) +
         " --input files were given (--random-inputs fills the rest)");
  if (o.outputs.size() != numResults && !(o.timing && o.outputs.empty()))
    fail("function '" + sig.function + "' has " + std::to_string(numResults) +
         " result" + (numResults == 1 ? "" : "s") + " but " +
         std::to_string(o.outputs.size()) + " --output files were given");
}

rt::Array pe::aot::argument(const rt::Signature &sig, size_t i,
                            const Options &o) {
  if (i >= o.inputs.size())
    return take(rt::randomInput(sig.args[i], i, o.seed));
  return take(rt::adaptInput(sig.args[i], i, o.inputs[i],
                             take(rt::readNpy(o.inputs[i]))));
}

void pe::aot::keepFreedMemory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void pe::aot::printSignature(const rt::Signature &sig) {
  for (size_t i = 0; i < sig.args.size(); ++i)
    std::printf("  argument %zu: %s\n", i, typeString(sig.args[i]).c_str());
  for (size_t i = 0; i < sig.results.size(); ++i)
    std::printf("  result %zu: %s\n", i, typeString(sig.results[i]).c_str());
}

double pe::aot::median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

//===----------------------------------------------------------------------===//
// CPU features
//===----------------------------------------------------------------------===//

/// Whether this CPU has the x86 feature `name` (LLVM's name): 1 or 0, or -1
/// if it is not one that can be queried here. __builtin_cpu_supports needs
/// literal names, hence the table.
static int cpuSupports(const std::string &name) {
#if defined(__x86_64__)
  __builtin_cpu_init();
#define PE_AOT_FEATURE(x)                                                      \
  if (name == x)                                                               \
    return __builtin_cpu_supports(x) ? 1 : 0;
  PE_AOT_FEATURE("sse4.1")
  PE_AOT_FEATURE("sse4.2")
  PE_AOT_FEATURE("popcnt")
  PE_AOT_FEATURE("avx")
  PE_AOT_FEATURE("avx2")
  PE_AOT_FEATURE("fma")
  PE_AOT_FEATURE("f16c")
  PE_AOT_FEATURE("bmi")
  PE_AOT_FEATURE("bmi2")
  PE_AOT_FEATURE("avx512f")
  PE_AOT_FEATURE("avx512bw")
  PE_AOT_FEATURE("avx512vl")
  PE_AOT_FEATURE("avx512dq")
  PE_AOT_FEATURE("avx512cd")
  PE_AOT_FEATURE("avx512bf16")
  PE_AOT_FEATURE("avx512fp16")
  PE_AOT_FEATURE("avx512vnni")
  PE_AOT_FEATURE("avx512vbmi")
  PE_AOT_FEATURE("avx512vbmi2")
  PE_AOT_FEATURE("avx512ifma")
  PE_AOT_FEATURE("avx512bitalg")
  PE_AOT_FEATURE("avx512vpopcntdq")
#undef PE_AOT_FEATURE
#endif
  return -1;
}

void pe::aot::checkCPU(const rt::Signature &sig) {
  std::string assumeMissing;
  if (const char *env = std::getenv("PE_AOT_ASSUME_MISSING"))
    assumeMissing = "," + std::string(env) + ",";
  std::string missing;
  std::istringstream features(sig.features);
  std::string feature;
  while (std::getline(features, feature, ',')) {
    if (feature.size() < 2 || feature[0] != '+')
      continue;
    std::string name = feature.substr(1);
    bool forced = assumeMissing.find("," + name + ",") != std::string::npos;
    if (forced || cpuSupports(name) == 0)
      missing += (missing.empty() ? "" : ", ") + name;
  }
  if (!missing.empty())
    fail("this executable was compiled for the CPU of the machine that ran "
         "pe-run (" +
         sig.cpu + "); this CPU lacks " + missing);
}

//===----------------------------------------------------------------------===//
// What the lowered code calls
//===----------------------------------------------------------------------===//

static void exitWith(const std::string &message) { fail(message); }

extern "C" int pe_aot_puts(const char *m) { return rt::recordMessage(m); }

extern "C" [[noreturn]] void pe_aot_abort() { rt::abortRun(exitWith); }

extern "C" void *pe_aot_malloc(size_t bytes) {
  return rt::checkedMalloc(bytes, exitWith);
}

extern "C" void *pe_aot_aligned_alloc(size_t alignment, size_t bytes) {
  return rt::checkedAlignedAlloc(alignment, bytes, exitWith);
}

/// The float -> bfloat16 conversions LLVM calls for `arith.truncf` to bf16
/// on the host (compiler-rt builtins; GCC 12's libgcc, which clang++ links,
/// has neither). Round to nearest even, in one step.
extern "C" __bf16 __truncsfbf2(float value) {
  uint16_t bits = rt::floatToBFloat16(value);
  __bf16 out;
  std::memcpy(&out, &bits, 2);
  return out;
}

extern "C" __bf16 __truncdfbf2(double value) {
  uint16_t bits = rt::doubleToBFloat16(value);
  __bf16 out;
  std::memcpy(&out, &bits, 2);
  return out;
}

/// memref.copy of non-contiguous memrefs (what libmlir_c_runner_utils.so
/// provides to pe-run's JIT): an unranked memref is (rank, descriptor), the
/// descriptor (allocated, aligned, offset, sizes[rank], strides[rank]).
namespace {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedMemRef *src,
                           UnrankedMemRef *dst) {
  int64_t rank = src->rank;
  auto fields = [](UnrankedMemRef *m) {
    return reinterpret_cast<int64_t *>(m->descriptor);
  };
  int64_t *s = fields(src), *d = fields(dst);
  char *sBase, *dBase;
  std::memcpy(&sBase, &s[1], 8);
  std::memcpy(&dBase, &d[1], 8);
  const int64_t *sizes = s + 3, *sStrides = s + 3 + rank,
                *dStrides = d + 3 + rank;
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i)
    n *= sizes[i];
  if (n == 0)
    return;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t so = s[2], dof = d[2];
    for (int64_t i = 0; i < rank; ++i) {
      so += idx[i] * sStrides[i];
      dof += idx[i] * dStrides[i];
    }
    std::memcpy(dBase + dof * elemSize, sBase + so * elemSize,
                size_t(elemSize));
    for (int64_t i = rank - 1; i >= 0; --i) {
      if (++idx[i] < sizes[i])
        break;
      idx[i] = 0;
    }
  }
}
