#!/usr/bin/env bash
#===- bench/run-benchmarks.sh - the pe-mlir benchmark --------------------===#
#
# Usage: bench/run-benchmarks.sh [--no-reference] [--repeat N]
#                                [--workloads w1,w2,...] [--no-memory]
#                                [--keep-inputs] [--target-cpu CPU]
#
# Builds pe-bench and pe-run, generates the inputs once (uniform [-1, 1)
# float32, fixed seed) into a temporary directory, measures the machine
# (pe-bench peak, pe-bench bandwidth), then times every workload of
# bench/workloads with the fused pipeline (pe-run --pipeline=cpu), the unfused
# reference lowering (pe-run --pipeline=reference) and the naive C++ version
# (pe-bench naive), checks the cpu (and reference) output against the naive
# one, prints one table, and finally the peak memory of the cpu pipeline on
# W2 for T = 2048 .. 16384. See bench/README.md for the columns.
#
#   --no-reference  skip the reference pipeline (W2/W3 take seconds per call)
#   --repeat N      timed runs per variant after one warm-up (default 5)
#   --workloads L   comma-separated subset of w1 w1b w1p w2 w2d80 w2d96 w3
#                   w2b w3b w4 w4g w4h w4b w4gh w4gb w5
#   --no-memory     skip the peak-memory sweep
#   --keep-inputs   keep the temporary directory (inputs and outputs)
#   --target-cpu C  compile the cpu pipeline for x86-64 CPU C (pe-run
#                   --target-cpu; x86-64-v3: the AVX2 + FMA kernels) and take
#                   the FMA peak in that CPU's vectors (pe-bench peak avx2);
#                   default: this machine
#
# Workloads w2d80 and w2d96 are W2 with head dimensions 80 and 96 (masked
# tail vectors); the report gives their FLOP rates as fractions of W2's.
#
# Environment: PE_BUILD_DIR (default build/), PE_JOBS (ninja -j, default 2).
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${PE_BUILD_DIR:-$ROOT/build}"
JOBS="${PE_JOBS:-2}"
PYTHON=/usr/bin/python3

if [ ! -f "$BUILD/build.ninja" ]; then
  # Fresh checkout: install, configure and build everything the usual way.
  PE_BUILD_DIR="$BUILD" PE_JOBS="$JOBS" "$ROOT/utils/pe.sh" build
fi
ninja -C "$BUILD" -j "$JOBS" pe-bench pe-run >&2

read -r -d '' DRIVER <<'PY' || true
import argparse, os, re, resource, shutil, subprocess, sys, tempfile, time

import numpy as np

root, build = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "test", "Integration", "lib"))
import npycmp  # noqa: E402

ap = argparse.ArgumentParser(prog="run-benchmarks.sh")
ap.add_argument("--no-reference", action="store_true")
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--workloads", default="w1,w1b,w1p,w2,w2d80,w2d96,w3,w2b,w3b,w4,w4g,w4h,w4b,w4gh,w4gb,w5")
ap.add_argument("--no-memory", action="store_true")
ap.add_argument("--keep-inputs", action="store_true")
ap.add_argument("--target-cpu", default="")
args = ap.parse_args(sys.argv[3:])
if args.repeat < 1:
    sys.exit("run-benchmarks.sh: --repeat must be >= 1")

PE_RUN = os.path.join(build, "bin", "pe-run")
# Calls (each with its roofs) of the memory-bound workloads' cpu pipeline.
ROOF_CALLS = 9
PE_BENCH = os.path.join(build, "bin", "pe-bench")
WDIR = os.path.join(root, "bench", "workloads")
SEED = 20240601
RTOL, ATOL = 1e-4, 1e-5
MIB = 1 << 20

# name, file, function, inputs {file: shape}, results, flops, bytes, basis
#   flops: 2 H T^2 D (causal attention), 4 H Tk D (decode); None: not counted
#   bytes: read + write of the tensors (W1, W5), the K and V caches (W4, W4g)
#   basis: what the "frac" column compares with the machine: flop (the
#          2-thread FMA peak), byte (the best copy bandwidth, for read + write
#          workloads), read (the read bandwidth, for the decode steps)
F32, F16 = 4, 2
WORKLOADS = [
    ("w1", "w1_rope.mlir", "w1_rope",
     {"q": (1, 32, 4096, 128), "k": (1, 32, 4096, 128)}, 2,
     None, 4 * 32 * 4096 * 128 * F32, "byte"),
    ("w1b", "w1b_rope_bf16.mlir", "w1b_rope_bf16",
     {"q": (1, 32, 4096, 128), "k": (1, 32, 4096, 128)}, 2,
     None, 4 * 32 * 4096 * 128 * F16, "byte"),
    ("w1p", "w1p_rope_positions.mlir", "w1p_rope_positions",
     {"q": (1, 32, 4096, 128), "k": (1, 32, 4096, 128), "p": (4096,)}, 2,
     None, 4 * 32 * 4096 * 128 * F32, "byte"),
    ("w2", "w2_llama3_attention.mlir", "w2_llama3_attention",
     {"q": (1, 8, 2048, 128), "k": (1, 8, 2048, 128), "v": (1, 8, 2048, 128)}, 1,
     2 * 8 * 2048 ** 2 * 128, None, "flop"),
    ("w2d80", "w2_llama3_attention_d80.mlir", "w2_llama3_attention_d80",
     {"q": (1, 8, 2048, 80), "k": (1, 8, 2048, 80), "v": (1, 8, 2048, 80)}, 1,
     2 * 8 * 2048 ** 2 * 80, None, "flop"),
    ("w2d96", "w2_llama3_attention_d96.mlir", "w2_llama3_attention_d96",
     {"q": (1, 8, 2048, 96), "k": (1, 8, 2048, 96), "v": (1, 8, 2048, 96)}, 1,
     2 * 8 * 2048 ** 2 * 96, None, "flop"),
    ("w3", "w3_alibi_attention.mlir", "w3_alibi_attention",
     {"q": (1, 8, 2048, 128), "k": (1, 8, 2048, 128), "v": (1, 8, 2048, 128)}, 1,
     2 * 8 * 2048 ** 2 * 128, None, "flop"),
    ("w2b", "w2b_llama3_attention_bf16.mlir", "w2b_llama3_attention_bf16",
     {"q": (1, 8, 2048, 128), "k": (1, 8, 2048, 128), "v": (1, 8, 2048, 128)}, 1,
     2 * 8 * 2048 ** 2 * 128, None, "flop"),
    ("w3b", "w3b_alibi_attention_bf16.mlir", "w3b_alibi_attention_bf16",
     {"q": (1, 8, 2048, 128), "k": (1, 8, 2048, 128), "v": (1, 8, 2048, 128)}, 1,
     2 * 8 * 2048 ** 2 * 128, None, "flop"),
    ("w4", "w4_decode.mlir", "w4_decode",
     {"q": (1, 32, 1, 128), "k": (1, 32, 4096, 128), "v": (1, 32, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 32 * 4096 * 128 * F32, "read"),
    ("w4g", "w4g_decode_gqa.mlir", "w4g_decode_gqa",
     {"q": (1, 32, 1, 128), "k": (1, 8, 4096, 128), "v": (1, 8, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 8 * 4096 * 128 * F32, "read"),
    ("w4h", "w4h_decode_f16.mlir", "w4h_decode_f16",
     {"q": (1, 32, 1, 128), "k": (1, 32, 4096, 128), "v": (1, 32, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 32 * 4096 * 128 * F16, "read"),
    ("w4b", "w4b_decode_bf16.mlir", "w4b_decode_bf16",
     {"q": (1, 32, 1, 128), "k": (1, 32, 4096, 128), "v": (1, 32, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 32 * 4096 * 128 * F16, "read"),
    ("w4gh", "w4gh_decode_gqa_f16.mlir", "w4gh_decode_gqa_f16",
     {"q": (1, 32, 1, 128), "k": (1, 8, 4096, 128), "v": (1, 8, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 8 * 4096 * 128 * F16, "read"),
    ("w4gb", "w4gb_decode_gqa_bf16.mlir", "w4gb_decode_gqa_bf16",
     {"q": (1, 32, 1, 128), "k": (1, 8, 4096, 128), "v": (1, 8, 4096, 128)}, 1,
     4 * 32 * 4096 * 128, 2 * 8 * 4096 * 128 * F16, "read"),
    ("w5", "w5_sinusoidal.mlir", "w5_sinusoidal",
     {"x": (8192, 4096)}, 1,
     None, 2 * 8192 * 4096 * F32, "byte"),
]
LABEL = {"w1": "W1 rope", "w1b": "W1b rope bf16", "w1p": "W1 positions", "w2": "W2 llama3+attn", "w3": "W3 alibi+attn",
         "w2d80": "W2 D=80", "w2d96": "W2 D=96",
         "w2b": "W2b bf16", "w3b": "W3b bf16",
         "w4": "W4 decode", "w4g": "W4g decode-gqa", "w4h": "W4 f16 KV",
         "w4b": "W4 bf16 KV", "w4gh": "W4g f16 KV", "w4gb": "W4g bf16 KV",
         "w5": "W5 sinusoidal"}
# Workloads whose K and V caches are stored in half precision: pe-run reads
# them in that type (f16 .npy, or f32 .npy holding bf16 values, as pe-run
# takes bf16); the naive C++ version reads the same values as f32.
# W2b and W3b store query, key and value in bf16 (f32 result).
KV_DTYPE = {"w4h": "f16", "w4b": "bf16", "w4gh": "f16", "w4gb": "bf16",
            "w2b": "bf16", "w3b": "bf16", "w1b": "bf16"}
HALF_ARGS = {"w2b": ("q", "k", "v"), "w3b": ("q", "k", "v"), "w1b": ("q", "k")}
NAIVE = {"w1b": "w1", "w1p": "w1", "w4h": "w4", "w4b": "w4", "w4gh": "w4g", "w4gb": "w4g",
         "w2d80": "w2", "w2d96": "w2"}
# The bf16 attention kernel (bf16 dot products on AVX512-BF16) rounds the
# rotated queries and keys and the softmax weights P to bf16, which the naive
# f32 version does not: each weight within 2^-9 relative, the rotated q, k
# within 2^-9 each (scores within about 2^-8 |q||k| scale).
# W1b rounds its result to bf16 (half an ulp is 2^-9 relative; the naive
# version returns f32).
TOL = {"w2b": (1e-2, 4e-3), "w3b": (1e-2, 4e-3), "w1b": (1e-2, 4e-3)}
# C++ baselines that precompute the encoding once, outside the timed call
# (pe-bench naive W-cached): the cos/sin tables of W1, the [T, C] table of W5.
CACHED = {"w1": "w1-cached", "w5": "w5-cached"}
# Integer inputs, written as given instead of random floats: W1p's positions
# 0..4095 (an argument, so not folded to the offset form), whose result is
# W1's (the naive W1 checks it).
INT_INPUTS = {("w1p", "p"): lambda shape: np.arange(shape[0], dtype=np.int32)}


def round_bf16(a):
    """Rounds float32 values to bfloat16 (nearest even), as float32."""
    bits = a.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)
selected = [w.strip() for w in args.workloads.split(",") if w.strip()]
# The cpu pipeline's target, and the FMA probe in its vectors.
TARGET = ([f"--target-triple=x86_64-unknown-linux-gnu", f"--target-cpu={args.target_cpu}"]
          if args.target_cpu else [])
PEAK_ISA = {"x86-64-v3": ["avx2"], "x86-64-v4": ["avx512"]}.get(args.target_cpu, [])
if args.target_cpu and not PEAK_ISA:
    sys.exit(f"run-benchmarks.sh: --target-cpu {args.target_cpu}: x86-64-v3 or x86-64-v4")
unknown = set(selected) - {w[0] for w in WORKLOADS}
if unknown:
    sys.exit(f"run-benchmarks.sh: unknown workloads {sorted(unknown)}")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def busy_seconds():
    """CPU seconds all processes have spent busy (not idle / iowait)."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


def child_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, **kw):
    """Runs cmd; p.others = average number of cores other processes kept busy
    meanwhile (machine busy time minus cmd's own CPU time, per wall second)."""
    log("+ " + " ".join(cmd))
    b0, c0, t0 = busy_seconds(), child_seconds(), time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    b1, c1, t1 = busy_seconds(), child_seconds(), time.time()
    p.others = max(0.0, ((b1 - b0) - (c1 - c0)) / max(t1 - t0, 1e-3))
    if p.returncode != 0:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"run-benchmarks.sh: command failed ({p.returncode}): {' '.join(cmd)}")
    return p


def parse_time(out, what):
    m = re.search(r"min_ms=([0-9.eE+-]+) median_ms=([0-9.eE+-]+)", out)
    if not m:
        raise SystemExit(f"run-benchmarks.sh: no timing line from {what}:\n{out}")
    return float(m.group(1)), float(m.group(2))


def kv(out):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.eE+-]+)", out)}


tmp = tempfile.mkdtemp(prefix="pe-bench.")
try:
    # ---- inputs ------------------------------------------------------------
    rng = np.random.default_rng(SEED)
    t0 = time.time()
    for name, _, _, inputs, *_ in WORKLOADS:
        if name not in selected:
            continue
        d = os.path.join(tmp, name)
        os.makedirs(d)
        half = KV_DTYPE.get(name)
        if half:
            os.makedirs(os.path.join(d, "naive"))
        for arg, shape in inputs.items():
            if (name, arg) in INT_INPUTS:
                np.save(os.path.join(d, arg + ".npy"), INT_INPUTS[(name, arg)](shape))
                continue
            a = rng.random(shape, dtype=np.float32) * np.float32(2) - np.float32(1)
            if half and arg in HALF_ARGS.get(name, ("k", "v")):
                if half == "f16":
                    a16 = a.astype(np.float16)
                    np.save(os.path.join(d, arg + ".npy"), a16)
                    a = a16.astype(np.float32)
                else:
                    a = round_bf16(a)
                    np.save(os.path.join(d, arg + ".npy"), a)
            else:
                np.save(os.path.join(d, arg + ".npy"), a)
            if half:
                np.save(os.path.join(d, "naive", arg + ".npy"), a)
    log(f"inputs generated in {time.time() - t0:.1f} s under {tmp}")

    # ---- machine -----------------------------------------------------------
    load_before = os.getloadavg()[0]
    p = run([PE_BENCH, "peak"] + PEAK_ISA)
    peak, peak_others = kv(p.stdout), p.others
    p = run([PE_BENCH, "bandwidth"])
    bw, bw_others = kv(p.stdout), p.others
    peak2 = peak["peak_gflops_2t"]

    # ---- workloads ---------------------------------------------------------
    rows, checks, start_fracs = [], [], {}
    t_bench = time.time()
    ref_seconds = 0.0
    for name, fname, func, inputs, nres, flops, nbytes, basis in WORKLOADS:
        if name not in selected:
            continue
        d = os.path.join(tmp, name)
        mlir = os.path.join(WDIR, fname)
        ins = [f"--input={os.path.join(d, a + '.npy')}" for a in inputs]
        res, outs, others = {}, {}, {}
        # Memory-bound workloads: pe-run --roofline evicts the caches before
        # each timed call of the cpu pipeline and times, right after each
        # call and in the same process, a read and a copy of the same bytes
        # (the memory system drifts with the host's other tenants by up to
        # 1.5x within seconds on a shared VM; a call and its roofs are
        # milliseconds apart). The cpu fraction is the median of the
        # per-call ratios; the bound is the roofs' median bandwidth.
        # Compute-bound workloads: pe-run --flops times the FMA peak on the
        # same threads right after each call, for as long as the call took
        # (a vCPU's compute drifts too when its core's other hardware thread
        # is busy); the cpu fraction is the median of the per-call ratios.
        roof, froof = None, None
        variants = ["cpu"] + ([] if args.no_reference else ["reference"])
        for pipe in variants:
            o = [os.path.join(d, f"{pipe}_{i}.npy") for i in range(nres)]
            t_start = time.time()
            timing = [f"--repeat={args.repeat}"]
            if pipe == "cpu" and basis != "flop":
                timing = [f"--repeat={max(args.repeat, ROOF_CALLS)}", "--roofline"]
            elif pipe == "cpu":
                timing.append(f"--flops={flops}")
            target = TARGET if pipe == "cpu" else []
            p = run([PE_RUN, mlir, "-e", func, f"--pipeline={pipe}"] + target + timing
                    + ins + [f"--output={x}" for x in o])
            if pipe == "reference":
                ref_seconds += time.time() - t_start
            res[pipe] = parse_time(p.stdout, f"pe-run {pipe}")
            outs[pipe], others[pipe] = o, p.others
            if "--roofline" in timing:
                line = [l for l in p.stdout.splitlines() if "roofline" in l]
                if not line:
                    raise SystemExit(f"run-benchmarks.sh: no roofline line from pe-run:\n{p.stdout}")
                roof = kv(line[0])
            if any(t.startswith("--flops") for t in timing):
                line = [l for l in p.stdout.splitlines() if l.startswith("pe-run: flops")]
                if not line:
                    raise SystemExit(f"run-benchmarks.sh: no flops line from pe-run:\n{p.stdout}")
                froof = kv(line[0])
        o = [os.path.join(d, f"naive_{i}.npy") for i in range(nres)]
        naive_dir = os.path.join(d, "naive") if name in KV_DTYPE else d
        p = run([PE_BENCH, "naive", NAIVE.get(name, name), "--inputs", naive_dir,
                 "--repeat", str(args.repeat)]
                + sum([["--output", x] for x in o], []))
        res["naive"] = parse_time(p.stdout, "pe-bench naive")
        outs["naive"], others["naive"] = o, p.others
        if name in CACHED:
            o = [os.path.join(d, f"cached_{i}.npy") for i in range(nres)]
            p = run([PE_BENCH, "naive", CACHED[name], "--inputs", d,
                     "--repeat", str(args.repeat)]
                    + sum([["--output", x] for x in o], []))
            res["cached"] = parse_time(p.stdout, "pe-bench naive cached")
            outs["cached"], others["cached"] = o, p.others
            variants = variants + ["cached"]
        # Correctness: cpu (and reference) against naive, every result.
        check = {"naive": ""}
        for pipe in variants:
            verdicts = []
            rtol, atol = TOL.get(name, (RTOL, ATOL))
            for a, e in zip(outs[pipe], outs["naive"]):
                ok, line = npycmp.compare(np.load(a), np.load(e), rtol, atol)
                verdicts.append(ok)
                checks.append(f"{LABEL[name]:<15} {pipe:<9} vs naive: {line}")
            check[pipe] = "PASS" if all(verdicts) else "FAIL"
        if basis == "read":
            bound = roof["best_read_gbs"]
        elif basis == "byte":
            bound = max(roof["copy_gbs"], roof["copy_nt_gbs"])
        else:
            bound = froof["peak_gflops"]
            start_fracs[name] = flops / res["cpu"][1] * 1e-6 / peak2
        for v in ["cpu", "reference", "naive", "cached"]:
            if v not in res:
                continue
            mn, med = res[v]
            gflops = flops / med * 1e-6 if flops else None  # per ms -> G/s
            gbs = nbytes / med * 1e-6 if nbytes else None
            if basis == "flop":
                frac, of = gflops / bound, "peak"
                if v == "cpu":
                    frac = froof["peak_fraction"]
            elif basis == "read":
                frac, of = gbs / bound, "read"
                if v == "cpu":
                    frac = roof["best_read_fraction"]
            else:
                frac, of = gbs / bound, "copy"
                if v == "cpu":
                    frac = roof["copy_fraction"]
            speed = "" if v == "cpu" else f"{med / res['cpu'][1]:.2f}x"
            rows.append((LABEL[name], v, med, mn, gflops, gbs, frac, of,
                         check[v], speed, others[v], bound))
    bench_seconds = time.time() - t_bench
    load_after = os.getloadavg()[0]
    # Memory bandwidth drifts with the host's other tenants: measure it again.
    p = run([PE_BENCH, "bandwidth"])
    bw_end, bw_end_others = kv(p.stdout), p.others

    # ---- peak memory of the cpu pipeline on W2 ------------------------------
    mem = []
    if not args.no_memory:
        text = open(os.path.join(WDIR, "w2_llama3_attention.mlir")).read()
        for T in (2048, 4096, 8192, 16384):
            f = os.path.join(tmp, f"w2_T{T}.mlir")
            open(f, "w").write(text.replace("2048", str(T)))
            p = run(["/usr/bin/time", "-f", "maxrss_kb=%M", PE_RUN, f, "-e",
                     "w2_llama3_attention", "--pipeline=cpu", "--random-inputs",
                     "--repeat=1"])
            rss = kv(p.stderr.strip().splitlines()[-1])["maxrss_kb"] * 1024
            _, med = parse_time(p.stdout, "pe-run memory sweep")
            tensors = 4 * 8 * T * 128 * F32          # q, k, v, result
            scores = 8 * T * T * F32                 # one [H, T, T] f32 buffer
            mem.append((T, rss, tensors, scores, med, 2 * 8 * T * T * 128 / med * 1e-6,
                        p.others))

    # ---- report ------------------------------------------------------------
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu)
    print()
    print(f"pe-mlir benchmark  ({model.group(1) if model else '?'}, {os.cpu_count()} CPUs; "
          f"median of {args.repeat} runs after one warm-up, W1/W4*/W5 cpu: "
          f"{max(args.repeat, ROOF_CALLS)} cold runs with roofs; inputs uniform [-1,1) f32, "
          f"seed {SEED})")
    if args.target_cpu:
        print(f"cpu pipeline target: --target-cpu={args.target_cpu} (FMA peak in "
              f"{PEAK_ISA[0]} vectors)")
    print(f"machine: peak_gflops_1t={peak['peak_gflops_1t']:.1f} "
          f"peak_gflops_2t={peak2:.1f} (others {peak_others:.2f})  "
          f"read_gbs={bw['read_gbs']:.1f} copy_gbs={bw['copy_gbs']:.1f} "
          f"copy_nt_gbs={bw['copy_nt_gbs']:.1f} (others {bw_others:.2f})")
    print(f"         bandwidth again after the workloads: read_gbs={bw_end['read_gbs']:.1f} "
          f"copy_gbs={bw_end['copy_gbs']:.1f} copy_nt_gbs={bw_end['copy_nt_gbs']:.1f} "
          f"(others {bw_end_others:.2f})")
    if peak2 < 1.6 * peak["peak_gflops_1t"]:
        print("note: the 2-thread peak is not ~2x the 1-thread peak: another process "
              "shared the cores, or the two vCPUs share one physical core")
    print(f"load average: {load_before:.2f} before, {load_after:.2f} after; 'others' = "
          "cores kept busy by other processes during that measurement (0 = idle machine)")
    print()
    hdr = ("workload", "variant", "median_ms", "min_ms", "GFLOP/s", "GB/s",
           "frac", "of", "bound", "check", "cpu_speedup", "others")
    fmt = ("{:<15} {:<9} {:>10} {:>10} {:>8} {:>7} {:>6} {:<6} {:>6} {:<5} "
           "{:>11} {:>6}")
    print(fmt.format(*hdr))
    print("-" * 110)
    last = None
    for r in rows:
        if last and r[0] != last:
            print()
        last = r[0]
        opt = lambda x: "-" if x is None else f"{x:.2f}"
        print(fmt.format(r[0], r[1], f"{r[2]:.2f}", f"{r[3]:.2f}", opt(r[4]),
                         opt(r[5]), f"{r[6]:.3f}", r[7], f"{r[11]:.1f}", r[8],
                         r[9], f"{r[10]:.2f}"))
    print()
    print("GFLOP/s: 2*H*T^2*D (W2, W3) or 4*H*Tk*D (W4*) / median; GB/s: bytes "
          "(W1, W5: read + write; W4*: the K and V caches in their stored type; the "
          "naive rows of the f16/bf16 KV workloads read f32) / median")
    print("frac: GFLOP/s / bound; bound: for W2/W3 the FP32 FMA peak of the threads, "
          "timed by pe-run --flops right after each of the cpu pipeline's "
          f"{args.repeat} calls for as long as the call took; for "
          "W4* the best read bandwidth (1, 2, 4 or 8 streams per thread) and for "
          "W1/W5 the best copy bandwidth (plain or "
          "streaming stores) of the same bytes, timed by pe-run --roofline right after "
          f"each of the cpu pipeline's {max(args.repeat, ROOF_CALLS)} calls (caches "
          "evicted before each call and each roof); bound: the median of those roofs; "
          "the cpu row's frac is the median of the per-call ratios, the other rows' "
          "GFLOP/s or GB/s / bound (the memory-bound ones run warm: the C++ variants "
          "do not evict the caches)")
    if start_fracs:
        print(f"cpu frac against the peak_gflops_2t measured at the start ({peak2:.1f}): "
              + ", ".join(f"{LABEL[w]} {f:.3f}" for w, f in start_fracs.items()))
    print("cached (W1, W5): C++ with the encoding precomputed outside the call "
          "(f32 cos/sin tables; an f32 [T, C] table added in f32), 2 threads")
    print(f"check: output vs naive within rtol {RTOL:g} atol {ATOL:g} (npycmp; "
          + ", ".join(f"{LABEL[w]}: rtol {r:g} atol {a:g}" for w, (r, a) in TOL.items())
          + "); cpu_speedup: this variant's median / cpu's median")
    if "w2" in selected and "w2b" in selected or "w3" in selected and "w3b" in selected:
        med = {r[0]: r[2] for r in rows if r[1] == "cpu"}
        ratios = [f"{LABEL[b]} / {LABEL[f]}: {med[LABEL[f]] / med[LABEL[b]]:.2f}x"
                  for f, b in (("w2", "w2b"), ("w3", "w3b"))
                  if LABEL[f] in med and LABEL[b] in med]
        print("bf16 / f32 throughput of the cpu pipeline (same run): " + ", ".join(ratios))
    med = {r[0]: r[2] for r in rows if r[1] == "cpu"}
    tails = [f"{LABEL[t]} {(2 * 8 * 2048 ** 2 * d / med[LABEL[t]]) / (2 * 8 * 2048 ** 2 * 128 / med[LABEL['w2']]):.3f}"
             for t, d in (("w2d80", 80), ("w2d96", 96))
             if LABEL[t] in med and LABEL["w2"] in med]
    if tails:
        print("head-dimension tails, FLOP rate / W2's (D=128) in the same run: " + ", ".join(tails))
    print("checks:")
    for c in checks:
        print("  " + c)
    if not args.no_reference:
        print(f"reference pipeline wall time (compile + {args.repeat + 1} calls, all workloads): "
              f"{ref_seconds:.0f} s of {bench_seconds:.0f} s")
    if mem:
        print()
        print("peak memory of pe-run --pipeline=cpu on W2 (H 8, D 128, --random-inputs, "
              "max RSS from /usr/bin/time -f %M)")
        fmt2 = "{:>6} {:>11} {:>10} {:>14} {:>17} {:>9} {:>8} {:>7}"
        print(fmt2.format("T", "maxrss_MiB", "d_rss_MiB", "q,k,v,out_MiB",
                          "HxTxT_scores_MiB", "call_ms", "GFLOP/s", "others"))
        base_rss = mem[0][1]
        for T, rss, tensors, scores, med, gf, oth in mem:
            print(fmt2.format(T, f"{rss / MIB:.0f}", f"{(rss - base_rss) / MIB:+.0f}",
                              f"{tensors / MIB:.0f}", f"{scores / MIB:.0f}",
                              f"{med:.1f}", f"{gf:.1f}", f"{oth:.2f}"))
        # Growth per doubling of T, in [H, T, D] f32 tensors of the added tokens:
        # constant when memory is linear in T; a [H, T, T] buffer would make it
        # grow with T (by T / D per step).
        steps = []
        for (Ta, ra, *_), (Tb, rb, *_) in zip(mem, mem[1:]):
            steps.append((rb - ra) / (8 * (Tb - Ta) * 128 * F32))
        print("RSS growth per step, in [1,8,dT,128] f32 tensors: " +
              ", ".join(f"{a[0]}->{b[0]}: {g:.1f}" for a, b, g in zip(mem, mem[1:], steps)) +
              f" (linear in T when constant; one [H,T,T] f32 score buffer at "
              f"T={mem[-1][0]} would add {mem[-1][3] / MIB:.0f} MiB)")
    failed = [r for r in rows if r[8] == "FAIL"]
    if failed:
        print()
        print("FAIL: " + ", ".join(f"{r[0]} {r[1]}" for r in failed) +
              " disagree with the naive version (see checks)")
        raise SystemExit(1)
finally:
    if args.keep_inputs:
        log(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
PY

exec "$PYTHON" -c "$DRIVER" "$ROOT" "$BUILD" "$@"
