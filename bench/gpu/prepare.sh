#!/usr/bin/env bash
#===- bench/gpu/prepare.sh - AOT executables for bench/gpu/run.sh ---------===#
#
#   bench/gpu/prepare.sh [--out DIR] [--pipeline cuda|vulkan|cpu] [--small]
#
# Runs on a machine with this project's build (LLVM/MLIR 22, the CUDA
# toolkit for libdevice; no GPU needed) and writes one directory (default
# $PE_BUILD_DIR/gpu-aot, about 12 MB) that a GPU machine with only the NVIDIA
# driver and /usr/bin/python3 can run: `bash DIR/run.sh [--no-tests] [--repeat N]`.
#
#   DIR/run.sh, workloads.sh, npycheck.py   the benchmark script (AOT mode)
#   DIR/aot.env                             pipeline and sizes
#   DIR/w2_f16 w2_bf16 w3_bf16 w4_f16       the timed workloads, compiled by
#                                           `pe-run --emit-executable`; their
#                                           inputs are made on the GPU
#                                           machine (--random-inputs)
#   DIR/check/<workload>/{exe,*.npy}        the same workloads at small sizes
#                                           with inputs and the float64
#                                           reference (aot_cases.py), for the
#                                           correctness checks
#
# With the device tool: run(carry=["build/gpu-aot"],
# command="bash build/gpu-aot/run.sh"). --pipeline vulkan|cpu builds the same
# directory for pe's Vulkan runtime or the CPU pipeline, to test the whole
# path on a machine without a GPU (with --small: timed sizes small enough
# for lavapipe or the CPU).
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${PE_BUILD_DIR:-$ROOT/build}"
PY=/usr/bin/python3
export CUDA_ROOT="${CUDA_ROOT:-/usr/local/cuda}"
OUT="$BUILD/gpu-aot"
PIPELINE=cuda
SMALL=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT="$2"; shift ;;
    --pipeline) PIPELINE="$2"; shift ;;
    --small) SMALL=1 ;;
    *) echo "usage: $0 [--out DIR] [--pipeline cuda|vulkan|cpu] [--small]" >&2; exit 2 ;;
  esac
  shift
done
case "$PIPELINE" in
  cuda | vulkan | cpu) ;;
  *) echo "prepare.sh: unknown pipeline '$PIPELINE' (cuda, vulkan or cpu)" >&2; exit 2 ;;
esac
PE_RUN="$BUILD/bin/pe-run"
[ -x "$PE_RUN" ] || { echo "prepare.sh: $PE_RUN not found (utils/pe.sh build first)" >&2; exit 1; }

# The timed sizes (docs/CodegenGPU.md, "Benchmark script") and the sizes of
# the correctness checks.
if [ "$SMALL" -eq 1 ]; then
  B=1 H=8 HKV=2 T=128 D=128 TK=512
else
  B=1 H=32 HKV=8 T=4096 D=128 TK=32768
fi
CB=1 CH=8 CHKV=2 CT=64 CD=128 CTK=256

. "$ROOT/bench/gpu/workloads.sh"
# Replace only a directory this script wrote (or an empty one).
if [ -e "$OUT" ] && [ ! -f "$OUT/.pe-gpu-aot" ] && [ ! -f "$OUT/aot.env" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
  echo "prepare.sh: $OUT exists and was not written by prepare.sh; not replacing it" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$OUT/check" "$OUT/src" "$OUT/src/check"
touch "$OUT/.pe-gpu-aot"
cp "$ROOT/bench/gpu/run.sh" "$ROOT/bench/gpu/workloads.sh" "$ROOT/bench/gpu/npycheck.py" "$OUT/"

emit() { # emit FILE FUNC EXE
  "$PE_RUN" "$1" -e "$2" --pipeline="$PIPELINE" --emit-executable="$3" >/dev/null
}

WORKLOADS="w2_f16 w2_bf16 w3_bf16 w4_f16"
write_workloads "$OUT/src" "$B" "$H" "$HKV" "$T" "$D" "$TK"
write_workloads "$OUT/src/check" "$CB" "$CH" "$CHKV" "$CT" "$CD" "$CTK"
"$PY" "$ROOT/bench/gpu/aot_cases.py" "$OUT/check" "$CB" "$CH" "$CHKV" "$CT" "$CD" "$CTK"
for w in $WORKLOADS; do
  func="${w%%_*}"
  emit "$OUT/src/$w.mlir" "$func" "$OUT/$w"
  emit "$OUT/src/check/$w.mlir" "$func" "$OUT/check/$w/exe"
done

cat >"$OUT/aot.env" <<ENV
# Written by bench/gpu/prepare.sh ($(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)).
PIPELINE=$PIPELINE
WORKLOADS="$WORKLOADS"
B=$B H=$H HKV=$HKV T=$T D=$D TK=$TK
CB=$CB CH=$CH CHKV=$CHKV CT=$CT CD=$CD CTK=$CTK
ENV
echo "prepare.sh: wrote $OUT ($(du -sh "$OUT" | cut -f1), pipeline $PIPELINE; B=$B H=$H Hkv=$HKV T=$T D=$D Tk=$TK)"
echo "prepare.sh: run it with bash $OUT/run.sh [--no-tests] [--repeat N]"
