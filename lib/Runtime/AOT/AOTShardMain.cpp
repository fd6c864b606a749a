//===- AOTShardMain.cpp - main() of sharded executables ------------------===//
//
// Part of the pe-mlir project.
//
// `pe-run FILE -e FUNC --pipeline=cpu --emit-executable=EXE` for a sharded
// function (shard.shard annotations) compiles the per-rank program of
// pe-shard-pipeline and links it with this file (libpe_aot_shard_main.a) and
// MPICH's libmpich. EXE is an MPI program, started with `mpiexec -n N EXE`;
// it takes the global inputs and writes the global results, like the
// executables of unsharded functions (AOTMain.cpp):
//
//   * every rank reads the global inputs (or makes --random-inputs) and keeps
//     its block of each argument;
//   * every rank calls its program (which talks to the others through MPI);
//   * rank 0 gathers the result blocks (MPI_Gatherv), checks that the ranks
//     holding the same block agree bit for bit, and writes the outputs.
//
// The layouts are in pe_aot_signature, after the lines parseSignature reads:
//
//   processes P
//   shard arg|result I G g_0 .. g_{G-1} R n_0 axes_0... n_{R-1} axes_{R-1}...
//
// the grid's shape (G = 0: the whole value on every rank) and, per
// dimension, the grid axes it is split on (pe-run's Distribution); the block
// of a rank is the one pe-run --ranks gives it (tools/pe-run/Ranks.cpp,
// blockOf). It depends only on the C++ standard library, glibc, MPI
// and pe's host runtime.
//
//===----------------------------------------------------------------------===//

#include "AOTCommon.h"

#include "pe/Runtime/Blocks.h"
#include "pe/Runtime/Invocation.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <set>
#include <sstream>

// MPI's C interface only (no libmpichcxx).
#define MPICH_SKIP_MPICXX
#include <mpi.h>

using namespace pe;
using namespace pe::aot;
using rt::Array;
using Layout = rt::BlockLayout;

namespace {

struct ShardedSignature {
  int64_t processes = 0;
  std::vector<Layout> args, results;
};

ShardedSignature parseShardedSignature(const rt::Signature &sig) {
  ShardedSignature s;
  s.args.resize(sig.args.size());
  s.results.resize(sig.results.size());
  std::istringstream lines(pe_aot_signature);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string what;
    in >> what;
    if (what == "processes") {
      in >> s.processes;
      if (!in || s.processes < 1)
        fail("corrupt embedded signature: '" + line + "'");
      continue;
    }
    if (what != "shard")
      continue;
    std::string kind;
    size_t index = 0;
    int64_t gridRank = -1, rank = -1;
    in >> kind >> index >> gridRank;
    std::vector<Layout> &list = kind == "arg" ? s.args : s.results;
    if (!in || (kind != "arg" && kind != "result") || index >= list.size() ||
        gridRank < 0)
      fail("corrupt embedded signature: '" + line + "'");
    Layout &l = list[index];
    l.gridShape.resize(gridRank);
    for (int64_t &g : l.gridShape)
      in >> g;
    in >> rank;
    for (int64_t d = 0; in && d < rank; ++d) {
      int64_t n = 0;
      in >> n;
      std::vector<int64_t> axes(std::max<int64_t>(n, 0));
      for (int64_t &a : axes)
        in >> a;
      for (int64_t a : axes)
        if (a < 0 || a >= gridRank)
          fail("corrupt embedded signature: '" + line + "'");
      l.splitAxes.push_back(axes);
    }
    if (!in)
      fail("corrupt embedded signature: '" + line + "'");
  }
  if (!s.processes)
    fail("corrupt embedded signature: no 'processes' line");
  return s;
}

/// Rank `r`'s block of a value of `shape` laid out by `l`.
void blockOfRank(const Layout &l, const std::vector<int64_t> &shape, int64_t r,
                 std::vector<int64_t> &offsets, std::vector<int64_t> &sizes) {
  check(rt::blockOf(l, shape, r, offsets, sizes));
}

int64_t product(const std::vector<int64_t> &v) {
  int64_t n = 1;
  for (int64_t x : v)
    n *= x;
  return n;
}

/// Gathers result `index` (this rank's block `local`) on rank 0 into the
/// global array of `shape`; other ranks return an empty array.
Array gatherResult(const Layout &l, const std::vector<int64_t> &shape,
                   size_t index, const Array &local, int rank, int size) {
  int64_t es = dtypeSize(local.dtype);
  std::vector<int> counts(size), displs(size);
  std::vector<std::vector<int64_t>> offsets(size), sizes(size);
  int64_t total = 0;
  for (int r = 0; r < size; ++r) {
    blockOfRank(l, shape, r, offsets[r], sizes[r]);
    int64_t bytes = product(sizes[r]) * es;
    if (bytes > INT_MAX || total + bytes > INT_MAX)
      fail("result " + std::to_string(index) +
           ": the blocks of the ranks exceed the 2 GiB MPI_Gatherv takes");
    counts[r] = int(bytes);
    displs[r] = int(total);
    total += bytes;
  }
  if (local.shape != sizes[rank])
    fail("rank " + std::to_string(rank) + " returned result " +
         std::to_string(index) + " of shape " + rt::shapeString(local.shape) +
         ", expected its block " + rt::shapeString(sizes[rank]));
  std::vector<uint8_t> all(rank == 0 ? size_t(total) : 0);
  if (MPI_Gatherv(local.data.data(), counts[rank], MPI_BYTE, all.data(),
                  counts.data(), displs.data(), MPI_BYTE, 0,
                  MPI_COMM_WORLD) != MPI_SUCCESS)
    fail("MPI_Gatherv of result " + std::to_string(index) + " failed");
  Array global;
  if (rank != 0)
    return global;
  global.dtype = local.dtype;
  global.shape = shape;
  global.data.assign(size_t(product(shape) * es), 0);
  std::set<std::vector<int64_t>> seen;
  for (int r = 0; r < size; ++r) {
    bool replica = !seen.insert(offsets[r]).second;
    if (!rt::insertBlock(global, all.data() + displs[r], offsets[r], sizes[r],
                         replica))
      fail("result " + std::to_string(index) + ": rank " + std::to_string(r) +
           " disagrees with another rank on a replicated block");
  }
  return global;
}

void printShardUsage(const char *argv0, const rt::Signature &sig,
                     const ShardedSignature &sharded) {
  std::printf("OVERVIEW: runs '%s', partitioned by pe-shard-pipeline and "
              "compiled ahead of\ntime by pe-run --emit-executable, on %lld "
              "MPI ranks, on .npy data\n\n"
              "USAGE: mpiexec -n %lld %s [--input=FILE.npy]... "
              "[--output=FILE.npy]... [--random-inputs [--seed=S]] "
              "[--repeat=N]\n\n",
              sig.function.c_str(), (long long)sharded.processes,
              (long long)sharded.processes, argv0);
  std::printf("SIGNATURE (global values; each rank takes its block of the "
              "inputs, rank 0\nwrites the results):\n");
  printSignature(sig);
  std::printf(
      "\nOPTIONS (as pe-run's):\n"
      "  --input=FILE.npy   global argument data, one per argument, in order "
      "(every\n"
      "                     rank reads it)\n"
      "  --output=FILE.npy  where rank 0 writes the global results, one per "
      "result\n"
      "                     (optional with --repeat)\n"
      "  --random-inputs    pe-run's deterministic data for the arguments "
      "without an\n"
      "                     --input (the same as pe-run --random-inputs)\n"
      "  --seed=S           seed of --random-inputs (default 0)\n"
      "  --repeat=N         time N calls (started together on all ranks) "
      "after one\n"
      "                     warm-up call; a call takes as long as its "
      "slowest rank;\n"
      "                     rank 0 prints 'pe-aot: time pipeline=shard "
      "ranks=P runs=N\n"
      "                     min_ms=... median_ms=...'\n"
      "  --help             this text\n\n"
      "Errors print 'pe-aot: error: ...' on stderr and exit with status 1.\n");
}

/// Times `repeat` calls after a warm-up, each started on all ranks together
/// (MPI_Barrier); rank 0 prints the times of the slowest rank.
void timeCalls(rt::Invocation &inv, unsigned long long repeat, int rank,
               int size) {
  check(inv.call(pe_aot_entry, nullptr, nullptr)); // warm-up
  std::vector<double> ms(repeat), slowest(repeat);
  for (double &m : ms) {
    MPI_Barrier(MPI_COMM_WORLD);
    check(inv.call(pe_aot_entry, nullptr, &m));
  }
  if (MPI_Reduce(ms.data(), slowest.data(), int(repeat), MPI_DOUBLE, MPI_MAX, 0,
                 MPI_COMM_WORLD) != MPI_SUCCESS)
    fail("MPI_Reduce of the call times failed");
  if (rank != 0)
    return;
  std::printf("pe-aot: time pipeline=shard ranks=%d runs=%zu min_ms=%.6f "
              "median_ms=%.6f\n",
              size, slowest.size(),
              *std::min_element(slowest.begin(), slowest.end()),
              median(slowest));
}

} // namespace

int main(int argc, char **argv) {
  keepFreedMemory();
  rt::Signature sig = take(rt::parseSignature(pe_aot_signature));
  ShardedSignature sharded = parseShardedSignature(sig);
  Options o = parseOptions(argc, argv);
  if (o.help) {
    printShardUsage(argv[0], sig, sharded);
    return 0;
  }
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
    fail("MPI_Init failed");
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != sharded.processes) {
    // One message (from rank 0), then every rank exits with status 1.
    if (rank == 0) {
      std::fprintf(stderr,
                   "pe-aot: error: '%s' is sharded over %lld processes but "
                   "runs on %d MPI rank%s: start it with 'mpiexec -n %lld'\n",
                   sig.function.c_str(), (long long)sharded.processes, size,
                   size == 1 ? "" : "s", (long long)sharded.processes);
      std::fflush(stderr);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 1;
  }

  checkCPU(sig);
  checkCounts(sig, o);

  // This rank's blocks of the global inputs.
  rt::Signature local = sig;
  std::vector<Array> args;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    Array global = argument(sig, i, o);
    if (!sig.args[i].isTensor) {
      args.push_back(std::move(global));
      continue;
    }
    std::vector<int64_t> offsets, sizes;
    blockOfRank(sharded.args[i], global.shape, rank, offsets, sizes);
    local.args[i].shape = sizes;
    args.push_back(rt::extractBlock(global, offsets, sizes));
  }

  pe_aot_init();
  rt::Invocation inv(local, args.data());
  check(inv.prepare());
  std::vector<Array> results;
  check(inv.call(pe_aot_entry, &results, nullptr));
  for (size_t i = 0; i < sig.results.size(); ++i) {
    Array global = gatherResult(sharded.results[i], sig.results[i].shape, i,
                                results[i], rank, size);
    if (rank == 0 && i < o.outputs.size())
      check(rt::writeNpy(o.outputs[i], global));
  }
  if (o.timing)
    timeCalls(inv, o.repeat, rank, size);
  std::fflush(stdout);
  pe_aot_fini();
  MPI_Finalize();
  return 0;
}
