#!/usr/bin/env bash
#===- utils/pe.sh - install, build, test and demo pe-mlir -----------------===#
#
# Usage: utils/pe.sh demo | test [--sanitize] | fuzz [seconds] | build | deps
#
#   demo   install what is missing, build, run the main job on the shipped
#          example (examples/llama_attention.mlir)
#   test   install what is missing, build, run every test (format check, lit
#          + GoogleTest)
#   test --sanitize
#          the same tests on an ASan+UBSan build in build-asan/
#          (PE_ASAN_BUILD_DIR); any sanitizer report fails the test
#   fuzz [seconds]
#          build the libFuzzer target pe-fuzz in build-fuzz/ (PE_FUZZ_BUILD_DIR)
#          and fuzz for `seconds` (default 60) from the lit corpus
#   build  install what is missing and build
#   deps   only install what is missing (Debian 12 packages)
#
# Environment: PE_BUILD_DIR (default build/), PE_JOBS (default 2).
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${PE_BUILD_DIR:-$ROOT/build}"
JOBS="${PE_JOBS:-2}"
LLVM=/usr/lib/llvm-22
PY=/usr/bin/python3

# Everything the build, the tests and the demo use, from Debian 12 (bookworm
# and bookworm-security, where LLVM/MLIR 22 lives).
PACKAGES=(
  cmake ninja-build ccache
  clang-22 libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libomp-22-dev libgtest-dev python3-numpy clang-format-22
  mpich libmpich-dev pkgconf
  mesa-vulkan-drivers libvulkan-dev
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross
)

# Only for `test --sanitize` (the ASan/UBSan runtimes) and `fuzz` (libFuzzer).
SANITIZE_PACKAGES=(libclang-rt-22-dev)
FUZZ_PACKAGES=(libclang-rt-22-dev libfuzzer-22-dev)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

deps() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  if [ "${#missing[@]}" -ne 0 ]; then
    echo "pe.sh: installing ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

# configure [extra cmake args...]: configures $BUILD once.
configure() {
  if [ -f "$BUILD/build.ninja" ]; then return; fi
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$LLVM/bin/clang" \
    -DCMAKE_CXX_COMPILER="$LLVM/bin/clang++" \
    -DMLIR_DIR="$LLVM/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$LLVM/bin/lit" \
    "${launcher[@]}" "$@"
}

build() {
  deps
  configure
  ninja -C "$BUILD" -j "$JOBS" all PEUnitTests mlir-doc
}

run_tests() {
  # Not `set -e`: this runs in `run_tests || ...` (sanitize_tests), where
  # bash ignores it; never test stale binaries after a failed build.
  if ! build; then
    echo "pe.sh: the build failed"
    echo "check-pe: 0 passed, 1 failed"
    return 1
  fi
  local log rc=0
  log="$(mktemp)"
  set +e
  # The C/C++ sources are clang-formatted (utils/check-format.sh).
  "$ROOT/utils/check-format.sh" || rc=1
  # Everything (lit + GoogleTest through lit), then the execution tests again
  # through pe-cpu-pipeline, each also checked against the reference pipeline.
  "$LLVM/bin/lit" -sv "$BUILD/test" 2>&1 | tee "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  "$LLVM/bin/lit" -sv --param pe_pipeline=cpu "$BUILD/test/Integration" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  # And through pe-gpu-pipeline{target=spirv}: the GPU kernels run on
  # lavapipe (Mesa's Vulkan driver on the CPU) through pe's Vulkan runtime.
  "$LLVM/bin/lit" -sv --param pe_pipeline=vulkan "$BUILD/test/Integration" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  # And the CPU execution tests through an AVX2 + FMA target (x86-64-v3,
  # 8-lane kernels), whatever this machine has beyond it.
  "$LLVM/bin/lit" -sv --param pe_pipeline=cpu-avx2 "$BUILD/test/Integration/CPU" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  # And every CPU execution test through an AArch64 NEON target, as
  # executables run under qemu-aarch64 (test/Integration/CPU/lit.local.cfg;
  # the shapes are small enough for the emulation's ~70x).
  "$LLVM/bin/lit" -sv --param pe_pipeline=cpu-aarch64 \
    "$BUILD/test/Integration/CPU" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
  set -e
  # One closing line a reader (or CI) can grep: "N passed, N failed".
  local passed failed
  passed=$(grep -E '^ *Passed *:' "$log" | grep -oE '^ *Passed *: *[0-9]+' |
    grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}' || true)
  failed=$(grep -E '^ *(Failed|Unresolved|Timed Out) *:' "$log" |
    awk -F: '{gsub(/ /,"",$2); split($2,a,"("); s+=a[1]} END {print s+0}' || true)
  rm -f "$log"
  echo "check-pe: ${passed:-0} passed, ${failed:-0} failed"
  return "$rc"
}

demo() {
  build
  "$ROOT/examples/run-demo.sh" "$BUILD"
}

# test --sanitize: the same suites on an ASan+UBSan build of its own.
sanitize_tests() {
  local start=$SECONDS rc=0
  BUILD="${PE_ASAN_BUILD_DIR:-$ROOT/build-asan}"
  # Every report is fatal and aborts (a signal, which lit's `not` does not
  # take for an expected failure). test/lit.cfg.py sets the same defaults and
  # says why allow_user_poisoning=0.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:halt_on_error=1:detect_leaks=1:allow_user_poisoning=0:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1}"
  export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/test/lsan-suppressions.txt}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-abort_on_error=1:halt_on_error=1:print_stacktrace=1}"
  deps "${SANITIZE_PACKAGES[@]}"
  configure -DPE_SANITIZE=ON
  run_tests || rc=$?
  echo "pe.sh: sanitizer build and tests took $((SECONDS - start)) s"
  return "$rc"
}

# fuzz [seconds]: builds pe-fuzz (tools/pe-fuzz) in a build directory of its
# own, seeds the working corpus from the lit corpus and fuzzes for `seconds`
# (default 60) with $JOBS worker processes (fork mode: a crash, time-out or
# out-of-memory is saved and the run goes on).
fuzz() {
  local seconds="${1:-60}"
  case "$seconds" in ''|*[!0-9]*) echo "usage: $0 fuzz [seconds]" >&2; exit 2 ;; esac
  BUILD="${PE_FUZZ_BUILD_DIR:-$ROOT/build-fuzz}"
  deps "${FUZZ_PACKAGES[@]}"
  configure -DPE_ENABLE_FUZZER=ON -DPE_BUILD_UNITTESTS=OFF
  ninja -C "$BUILD" -j "$JOBS" pe-fuzz pe-opt
  local work="$BUILD/fuzz"
  mkdir -p "$work/seeds" "$work/corpus" "$work/artifacts"
  # Seeds: every .mlir of the repository split at `// -----` (lit's
  # --split-input-file marker), comments dropped, plus the saved crashes.
  "$PY" - "$ROOT" "$work/seeds" <<'PYEOF'
import hashlib, os, pathlib, re, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = sorted(p for d in ("test", "examples", "bench/workloads")
               for p in (root / d).rglob("*.mlir")
               if "Fuzz/open" not in p.as_posix())  # known, unfixed crashes
files += sorted(p for p in (root / "test/Fuzz/crashes").glob("*") if p.is_file())
n = 0
for f in files:
    for chunk in re.split(r"^// -----.*$", f.read_text(errors="replace"), flags=re.M):
        text = "\n".join(l for l in chunk.splitlines()
                         if not l.lstrip().startswith("//")).strip()
        if not text:
            continue
        data = (text + "\n").encode()
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
        n += 1
print(f"pe.sh fuzz: {n} seeds from {len(files)} files")
PYEOF
  local before
  before=$(ls "$work/artifacts" | wc -l)
  echo "pe.sh fuzz: fuzzing for $seconds s with $JOBS workers (log: $work/fuzz.log)"
  # Leaks are not findings here (LeakSanitizer in every execution would also
  # be slow); every other sanitizer report is (allow_user_poisoning=0: see
  # test/lit.cfg.py).
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}" \
  "$BUILD/bin/pe-fuzz" "$work/corpus" "$work/seeds" \
    -fork="$JOBS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -max_len=4096 -timeout=30 -rss_limit_mb=4096 \
    -dict="$ROOT/tools/pe-fuzz/pe.dict" -artifact_prefix="$work/artifacts/" \
    -print_final_stats=1 >"$work/fuzz.log" 2>&1 || true
  grep -E '^#[0-9]+' "$work/fuzz.log" | tail -n 1 || true
  local after
  after=$(ls "$work/artifacts" | wc -l)
  echo "pe.sh fuzz: $((after - before)) new findings in $work/artifacts ($after in all)"
  if [ "$after" -ne "$before" ]; then
    echo "  reproduce: $BUILD/bin/pe-fuzz FILE  (or pe-opt FILE --pe-cpu-pipeline)"
    echo "  once fixed, keep each reproducer in test/Fuzz/crashes/ (replayed by utils/pe.sh test)"
  fi
}

case "${1:-}" in
  deps) deps ;;
  fuzz) fuzz "${2:-}" ;;
  build) build ;;
  test)
    case "${2:-}" in
      "") run_tests ;;
      --sanitize) sanitize_tests ;;
      *) echo "usage: $0 test [--sanitize]" >&2; exit 2 ;;
    esac ;;
  demo) demo ;;
  *) echo "usage: $0 demo|test [--sanitize]|fuzz [seconds]|build|deps" >&2; exit 2 ;;
esac
