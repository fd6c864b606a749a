//===- AOTMain.cpp - main() of executables from pe-run --emit-executable --===//
//
// Part of the pe-mlir project.
//
// libpe_aot_main.a: reads the .npy inputs (or makes pe-run's
// --random-inputs), calls the compiled function, writes the results and
// times calls (see AOTCommon.h for what the linked object provides).
//
//===----------------------------------------------------------------------===//

#include "AOTCommon.h"

#include "pe/Runtime/Invocation.h"

#include <algorithm>
#include <cstdio>

using namespace pe;
using namespace pe::aot;

static void printUsage(const char *argv0, const rt::Signature &sig) {
  std::printf("OVERVIEW: runs '%s', compiled ahead of time by pe-run "
              "--emit-executable\n(pipeline %s), on .npy data\n\n"
              "USAGE: %s [--input=FILE.npy]... [--output=FILE.npy]... "
              "[--random-inputs [--seed=S]] [--repeat=N]\n\n",
              sig.function.c_str(), sig.pipeline.c_str(), argv0);
  if (!sig.cpu.empty())
    std::printf("Compiled for this CPU: %s (pe-run's host).\n\n",
                sig.cpu.c_str());
  std::printf("SIGNATURE:\n");
  printSignature(sig);
  std::printf(
      "\nOPTIONS (as pe-run's):\n"
      "  --input=FILE.npy   argument data, one per argument, in order\n"
      "  --output=FILE.npy  where to write the results, one per result\n"
      "                     (optional with --repeat)\n"
      "  --random-inputs    fill the arguments without an --input with "
      "pe-run's\n"
      "                     deterministic data (the same as pe-run "
      "--random-inputs)\n"
      "  --seed=S           seed of --random-inputs (default 0)\n"
      "  --repeat=N         time N calls after one warm-up call; prints\n"
      "                     'pe-aot: time pipeline=P runs=N min_ms=... "
      "median_ms=...'\n"
      "  --help             this text\n\n"
      "Errors print one 'pe-aot: error: ...' line on stderr and exit with "
      "status 1.\n");
}

int main(int argc, char **argv) {
  keepFreedMemory();
  rt::Signature sig = take(rt::parseSignature(pe_aot_signature));
  Options o = parseOptions(argc, argv);
  if (o.help) {
    printUsage(argv[0], sig);
    return 0;
  }
  checkCPU(sig);
  checkCounts(sig, o);
  std::vector<rt::Array> args;
  for (size_t i = 0; i < sig.args.size(); ++i)
    args.push_back(argument(sig, i, o));

  // GPU module loading (the driver) only now, after the inputs are checked.
  pe_aot_init();
  rt::Invocation inv(sig, args.data());
  check(inv.prepare());
  std::vector<rt::Array> results;
  check(inv.call(pe_aot_entry, &results, nullptr));
  for (size_t i = 0; i < o.outputs.size(); ++i)
    check(rt::writeNpy(o.outputs[i], results[i]));

  if (o.timing) {
    check(inv.call(pe_aot_entry, nullptr, nullptr)); // warm-up
    std::vector<double> ms(o.repeat);
    for (double &m : ms)
      check(inv.call(pe_aot_entry, nullptr, &m));
    std::printf("pe-aot: time pipeline=%s runs=%zu min_ms=%.6f "
                "median_ms=%.6f\n",
                sig.pipeline.c_str(), ms.size(),
                *std::min_element(ms.begin(), ms.end()), median(ms));
  }
  std::fflush(stdout);
  pe_aot_fini();
  return 0;
}
