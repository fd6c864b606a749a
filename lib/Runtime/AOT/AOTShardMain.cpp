//===- AOTShardMain.cpp - main() of sharded executables ----------*- C++
//-*-===//
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
// blockOf). Everything but main() comes from AOTMain.cpp, included here:
// this file depends only on the C++ standard library, glibc and MPI.
//
//===----------------------------------------------------------------------===//

#define PE_AOT_SHARD_MAIN
// (AOTMain.cpp's printUsage is replaced by printShardUsage.)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#include "AOTMain.cpp"
#pragma clang diagnostic pop

#include <climits>

// MPI's C interface only (no libmpichcxx).
#define MPICH_SKIP_MPICXX
#include <mpi.h>

namespace {

/// How one argument or result is laid out over the ranks.
struct Layout {
  std::vector<int64_t> gridShape;
  std::vector<std::vector<int64_t>> splitAxes;
};

struct ShardedSignature {
  int64_t processes = 0;
  std::vector<Layout> args, results;
};

ShardedSignature parseShardedSignature(const Signature &sig) {
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

/// The offsets and sizes of rank `r`'s block of a value of `shape` (the rule
/// of pe-run --ranks: the rank's row-major index on the grid; a dimension
/// split on axes (a, b) is cut into |a|*|b| equal blocks, numbered a-major).
void blockOf(const Layout &l, const std::vector<int64_t> &shape, int64_t r,
             std::vector<int64_t> &offsets, std::vector<int64_t> &sizes) {
  offsets.assign(shape.size(), 0);
  sizes = shape;
  if (l.gridShape.empty())
    return;
  std::vector<int64_t> index(l.gridShape.size());
  for (int64_t a = int64_t(l.gridShape.size()) - 1; a >= 0; --a) {
    index[a] = r % l.gridShape[a];
    r /= l.gridShape[a];
  }
  for (size_t dim = 0; dim < l.splitAxes.size() && dim < shape.size(); ++dim) {
    int64_t block = 0, count = 1;
    for (int64_t a : l.splitAxes[dim]) {
      block = block * l.gridShape[a] + index[a];
      count *= l.gridShape[a];
    }
    if (count == 1)
      continue;
    if (shape[dim] % count != 0)
      fail("dimension " + std::to_string(dim) + " of size " +
           std::to_string(shape[dim]) + " is not split evenly over " +
           std::to_string(count) + " ranks");
    sizes[dim] = shape[dim] / count;
    offsets[dim] = block * sizes[dim];
  }
}

/// Calls `fn(src, dst, bytes)` for each contiguous innermost row of the block
/// [offsets, offsets + sizes) of a row-major array of `shape`: `src` is the
/// row's byte offset in the array, `dst` in the packed block.
template <typename Fn>
void forEachBlockRow(const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &offsets,
                     const std::vector<int64_t> &sizes, int64_t elemSize,
                     Fn fn) {
  int64_t rank = shape.size();
  if (rank == 0) {
    fn(0, 0, elemSize);
    return;
  }
  for (int64_t s : sizes)
    if (s == 0)
      return;
  std::vector<int64_t> strides(rank, elemSize);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  int64_t rowBytes = sizes[rank - 1] * elemSize, dst = 0;
  std::vector<int64_t> idx(rank, 0);
  while (true) {
    int64_t src = offsets[rank - 1] * elemSize;
    for (int64_t d = 0; d + 1 < rank; ++d)
      src += (offsets[d] + idx[d]) * strides[d];
    fn(src, dst, rowBytes);
    dst += rowBytes;
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
    if (d < 0)
      return;
  }
}

Array extractBlock(const Array &a, const std::vector<int64_t> &offsets,
                   const std::vector<int64_t> &sizes) {
  Array block;
  block.dtype = a.dtype;
  block.shape = sizes;
  block.data.resize(size_t(block.numElements() * dtypeSize(a.dtype)));
  forEachBlockRow(a.shape, offsets, sizes, dtypeSize(a.dtype),
                  [&](int64_t src, int64_t dst, int64_t bytes) {
                    std::memcpy(block.data.data() + dst, a.data.data() + src,
                                bytes);
                  });
  return block;
}

/// Writes the packed block `data` of `sizes` into `a` at `offsets`; returns
/// false when `compare` is set and it differs from what `a` holds there.
bool insertBlock(Array &a, const uint8_t *data,
                 const std::vector<int64_t> &offsets,
                 const std::vector<int64_t> &sizes, bool compare) {
  bool same = true;
  forEachBlockRow(a.shape, offsets, sizes, dtypeSize(a.dtype),
                  [&](int64_t dst, int64_t src, int64_t bytes) {
                    if (compare)
                      same &= std::memcmp(a.data.data() + dst, data + src,
                                          bytes) == 0;
                    else
                      std::memcpy(a.data.data() + dst, data + src, bytes);
                  });
  return same;
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
    blockOf(l, shape, r, offsets[r], sizes[r]);
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
         std::to_string(index) + " of shape " + shapeString(local.shape) +
         ", expected its block " + shapeString(sizes[rank]));
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
    if (!insertBlock(global, all.data() + displs[r], offsets[r], sizes[r],
                     replica))
      fail("result " + std::to_string(index) + ": rank " + std::to_string(r) +
           " disagrees with another rank on a replicated block");
  }
  return global;
}

void printShardUsage(const char *argv0, const Signature &sig,
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
  for (size_t i = 0; i < sig.args.size(); ++i)
    std::printf("  argument %zu: %s\n", i, sig.args[i].type.c_str());
  for (size_t i = 0; i < sig.results.size(); ++i)
    std::printf("  result %zu: %s\n", i, sig.results[i].type.c_str());
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

struct Options {
  std::vector<std::string> inputs, outputs;
  bool randomInputs = false, timing = false, help = false;
  unsigned long long seed = 0, repeat = 0;
};

Options parseOptions(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
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

/// Times `repeat` calls after a warm-up, each started on all ranks together
/// (MPI_Barrier); rank 0 prints the times of the slowest rank.
void timeCalls(Invocation &inv, unsigned long long repeat, int rank, int size) {
  inv.call(nullptr, nullptr); // warm-up
  std::vector<double> ms(repeat), slowest(repeat);
  for (double &m : ms) {
    MPI_Barrier(MPI_COMM_WORLD);
    inv.call(nullptr, &m);
  }
  if (MPI_Reduce(ms.data(), slowest.data(), int(repeat), MPI_DOUBLE, MPI_MAX, 0,
                 MPI_COMM_WORLD) != MPI_SUCCESS)
    fail("MPI_Reduce of the call times failed");
  if (rank != 0)
    return;
  std::sort(slowest.begin(), slowest.end());
  size_t n = slowest.size();
  double median =
      n % 2 ? slowest[n / 2] : 0.5 * (slowest[n / 2 - 1] + slowest[n / 2]);
  std::printf("pe-aot: time pipeline=shard ranks=%d runs=%zu min_ms=%.6f "
              "median_ms=%.6f\n",
              size, n, slowest.front(), median);
}

} // namespace

int main(int argc, char **argv) {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());

  Signature sig = parseSignature(pe_aot_signature);
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

  // This rank's blocks of the global inputs.
  Signature local = sig;
  std::vector<Array> args;
  for (size_t i = 0; i < numArgs; ++i) {
    Array global = i < o.inputs.size() ? adaptInput(sig.args[i], i, o.inputs[i],
                                                    readNpy(o.inputs[i]))
                                       : randomInput(sig.args[i], i, o.seed);
    if (!sig.args[i].isTensor) {
      args.push_back(std::move(global));
      continue;
    }
    std::vector<int64_t> offsets, sizes;
    blockOf(sharded.args[i], global.shape, rank, offsets, sizes);
    local.args[i].shape = sizes;
    args.push_back(extractBlock(global, offsets, sizes));
  }

  pe_aot_init();
  Invocation inv(local, args);
  std::vector<Array> results;
  inv.call(&results, nullptr);
  for (size_t i = 0; i < numResults; ++i) {
    Array global = gatherResult(sharded.results[i], sig.results[i].shape, i,
                                results[i], rank, size);
    if (rank == 0 && i < o.outputs.size())
      writeNpy(o.outputs[i], global);
  }
  if (o.timing)
    timeCalls(inv, o.repeat, rank, size);
  std::fflush(stdout);
  pe_aot_fini();
  MPI_Finalize();
  return 0;
}
