#!/usr/bin/env bash
#===- bench/gpu/run.sh - GPU execution tests and timings (NVIDIA) ---------===#
#
# Prepared for a machine with an NVIDIA GPU; not run by utils/pe.sh test.
#
#   bash DIR/run.sh [--no-tests] [--repeat N]  (AOT mode: DIR from prepare.sh)
#   bench/gpu/run.sh [--no-tests] [--repeat N] (JIT mode: a build of pe)
#
# AOT mode (a copy of this script in the directory bench/gpu/prepare.sh
# writes, beside aot.env) needs only the NVIDIA driver (libcuda.so.1) and
# /usr/bin/python3 (NumPy optional): the workloads are executables from
# `pe-run --emit-executable --pipeline=cuda`.
# JIT mode needs the driver, LLVM/MLIR 22 (pe-run links libMLIR.so), a build
# of this project (PE_BUILD_DIR, default build/), the CUDA toolkit for
# libdevice (CUDA_ROOT, default /usr/local/cuda) and NumPy.
#
# 1. Execution tests. JIT: lit --param pe_pipeline=cuda test/Integration
#    (each test through pe-run --pipeline=cuda, checked against the reference
#    pipeline and the float64 NumPy reference). AOT: the four workloads at
#    small sizes (H 8, Hkv 2, T 64, D 128; decode Tk 256) on prepared inputs,
#    compared with their float64 references (npycheck.py; f16 results within
#    rtol 2e-3 + atol 2e-3, bf16 within 1e-2 + 1e-2).
# 2. The attention workloads at GPU sizes (W2: Llama-3 prefill with RoPE,
#    causal, f16 and bf16; W3: ALiBi prefill, bf16; W4: decode with a 32k KV
#    cache, f16), 1 x 32 query heads over 8 KV heads, D = 128, timed per
#    kernel with CUDA events (PE_CUDA_KERNEL_TIMES=1 in pe's CUDA runtime);
#    prints TFLOP/s (prefill) and GB/s (decode) against the device's
#    published peaks. The kernel time excludes the host-side cos/sin tables
#    and the host<->device copies that the whole call includes. (An AOT
#    directory prepared for vulkan or cpu, to test this script without a
#    GPU, times whole calls instead.)
#
# The kernels are the SIMT row-per-thread kernels of docs/CodegenGPU.md (no
# tensor cores): expect a small fraction of the tensor-core peak.
#===----------------------------------------------------------------------===#
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3
REPEAT=3
TESTS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) TESTS=0 ;;
    --repeat) REPEAT="$2"; shift ;;
    *) echo "usage: $0 [--no-tests] [--repeat N]" >&2; exit 2 ;;
  esac
  shift
done

. "$HERE/workloads.sh"
if [ -f "$HERE/aot.env" ]; then
  AOT="$HERE"
  . "$AOT/aot.env"
  # A copy may have lost the executable bits.
  for w in $WORKLOADS; do chmod +x "$AOT/$w" "$AOT/check/$w/exe" 2>/dev/null || true; done
else
  AOT=""
  ROOT="$(cd "$HERE/../.." && pwd)"
  BUILD="${PE_BUILD_DIR:-$ROOT/build}"
  LLVM=/usr/lib/llvm-22
  export CUDA_ROOT="${CUDA_ROOT:-/usr/local/cuda}"
  PIPELINE=cuda
  B=1 H=32 HKV=8 T=4096 D=128 TK=32768
  PE_RUN="$BUILD/bin/pe-run"
  [ -x "$PE_RUN" ] || { echo "run.sh: $PE_RUN not found (utils/pe.sh build first, or bench/gpu/prepare.sh)" >&2; exit 1; }
fi
if [ "$PIPELINE" = cuda ]; then
  "$PY" -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null ||
    { echo "run.sh: no NVIDIA driver (libcuda.so.1 cannot be loaded)" >&2; exit 1; }
fi

# The device and its published dense peaks: f16/bf16 tensor-core TFLOP/s,
# f32 FMA TFLOP/s, HBM GB/s (SXM parts; PCIe parts are lower).
name="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)"
case "$name" in
  *H200*) tc=989; fma=67; bw=4800 ;;
  *H100*) tc=989; fma=67; bw=3350 ;;
  *A100*) tc=312; fma=19.5; bw=2039 ;;
  *) tc=0; fma=0; bw=0 ;;
esac
echo "device: ${name:-unknown} (peaks: ${tc} TFLOP/s f16 tensor, ${fma} TFLOP/s f32 FMA, ${bw} GB/s; 0 = unknown)"
if [ -n "$AOT" ]; then echo "mode: AOT ($AOT, pipeline $PIPELINE)"; else echo "mode: JIT ($PE_RUN)"; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rc=0
if [ "$TESTS" -eq 1 ] && [ -z "$AOT" ]; then
  echo "== execution tests through --pipeline=cuda"
  "$LLVM/bin/lit" -s --param pe_pipeline=cuda "$ROOT/test/Integration" || rc=1
elif [ "$TESTS" -eq 1 ]; then
  echo "== correctness of the workloads at small sizes (B=$CB H=$CH Hkv=$CHKV T=$CT D=$CD, decode Tk=$CTK) vs float64"
  for w in $WORKLOADS; do
    c="$AOT/check/$w"
    inputs=(--input="$c/q.npy" --input="$c/k.npy" --input="$c/v.npy")
    [ -f "$c/f.npy" ] && inputs+=(--input="$c/f.npy")
    case "$w" in *bf16) tol="1e-2 1e-2" ;; *) tol="2e-3 2e-3" ;; esac
    if timeout 300 "$c/exe" "${inputs[@]}" --output="$work/$w.npy"; then
      printf '%-10s ' "$w"
      "$PY" "$AOT/npycheck.py" "$work/$w.npy" "$c/expected.npy" $tol || rc=1
    else
      echo "$w: the executable failed (see its error above)"; rc=1
    fi
  done
fi

# best_ms FILE FUNC: the fastest attention kernel time of REPEAT timed calls
# (AOT mode: FILE is the executable; vulkan/cpu: the fastest whole call).
# Empty, with the run's errors on stderr, when the run fails.
best_ms() {
  local cmd log="$work/run.log" ms
  if [ -n "$AOT" ]; then cmd=("$1"); else cmd=("$PE_RUN" "$1" -e "$2" --pipeline=cuda); fi
  if [ "$PIPELINE" = cuda ]; then
    PE_CUDA_KERNEL_TIMES=1 timeout 300 "${cmd[@]}" --random-inputs --repeat="$REPEAT" \
      >/dev/null 2>"$log" || true
    ms="$(awk '/pe-cuda-runtime: kernel .*_kernel / {print $(NF-1)}' "$log" | sort -g | head -n 1)"
  else
    timeout 600 "${cmd[@]}" --random-inputs --repeat="$REPEAT" >"$log" 2>&1 || true
    ms="$(sed -n 's/.* min_ms=\([0-9.]*\) .*/\1/p' "$log")"
  fi
  [ -n "$ms" ] || grep -v 'pe-cuda-runtime: kernel' "$log" | tail -n 3 >&2
  echo "$ms"
}
if [ -n "$AOT" ]; then
  file_of() { echo "$AOT/$1"; }
else
  write_workloads "$work" "$B" "$H" "$HKV" "$T" "$D" "$TK"
  file_of() { echo "$work/$1.mlir"; }
fi
timed=kernel_ms
[ "$PIPELINE" = cuda ] || timed=call_ms

echo "== attention kernels (B=$B H=$H Hkv=$HKV D=$D; prefill T=$T causal, decode Tk=$TK)"
printf '%-10s %12s %12s %10s %10s\n' workload "$timed" TFLOP/s "%tensor" "%fma"
for w in w2_f16:w2 w2_bf16:w2 w3_bf16:w3; do
  ms="$(best_ms "$(file_of "${w%%:*}")" "${w##*:}")"
  if [ -z "$ms" ]; then echo "${w%%:*}: no kernel time (see the errors above)"; rc=1; continue; fi
  # Causal prefill: 4 B H T^2 D / 2 flops (QK^T and PV, half the scores).
  "$PY" - "$ms" "${w%%:*}" "$B" "$H" "$T" "$D" "$tc" "$fma" <<'PYEOF'
import sys
ms, name, b, h, t, d, tc, fma = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
tflops = 4 * b * h * t * t * d / 2 / (float(ms) * 1e-3) / 1e12
pct = lambda peak: "%.1f" % (100 * tflops / peak) if peak else "-"
print("%-10s %12s %12.4f %10s %10s" % (name, ms, tflops, pct(tc), pct(fma)))
PYEOF
done
ms="$(best_ms "$(file_of w4_f16)" w4)"
if [ -z "$ms" ]; then echo "w4_f16: no kernel time"; rc=1; else
  # Decode: K and V of every KV head read once (f16).
  "$PY" - "$ms" "$B" "$HKV" "$TK" "$D" "$bw" <<'PYEOF'
import sys
ms = float(sys.argv[1]); b, hkv, tk, d, bw = map(float, sys.argv[2:])
gbs = 2 * b * hkv * tk * d * 2 / (ms * 1e-3) / 1e9
print("%-10s %12s %9.1f GB/s %s" % ("w4_f16", sys.argv[1], gbs,
      "(%.1f%% of HBM)" % (100 * gbs / bw) if bw else ""))
PYEOF
fi
exit "$rc"
