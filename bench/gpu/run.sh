#!/usr/bin/env bash
#===- bench/gpu/run.sh - GPU execution tests and timings (NVIDIA) ---------===#
#
# Prepared for a machine with an NVIDIA GPU; not run by utils/pe.sh test, and
# never run by its author (no GPU was available while it was written).
#
#   bench/gpu/run.sh [--no-tests] [--repeat N]
#
# Needs on that machine: the NVIDIA driver (libcuda.so.1), LLVM/MLIR 22 (pe-run
# links libMLIR.so), a build of this project (utils/pe.sh build; PE_BUILD_DIR,
# default build/), the CUDA toolkit for libdevice (CUDA_ROOT, default
# /usr/local/cuda) and /usr/bin/python3 with NumPy.
#
# 1. The execution tests through pe-run --pipeline=cuda (pe-gpu-pipeline,
#    target nvvm), each checked against the reference pipeline and the
#    float64 NumPy reference: lit --param pe_pipeline=cuda test/Integration.
# 2. The attention workloads at GPU sizes (W2: Llama-3 prefill with RoPE,
#    causal, f16 and bf16; W3: ALiBi prefill, bf16; W4: decode with a 32k KV
#    cache, f16), 1 x 32 query heads over 8 KV heads, D = 128, timed per
#    kernel with CUDA events (PE_CUDA_KERNEL_TIMES=1 in pe's CUDA runtime);
#    prints TFLOP/s (prefill) and GB/s (decode) against the device's
#    published peaks. The kernel time excludes the host-side cos/sin tables
#    and the host<->device copies that pe-run's whole call includes.
#
# The kernels are the SIMT row-per-thread kernels of docs/CodegenGPU.md (no
# tensor cores): expect a small fraction of the tensor-core peak.
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${PE_BUILD_DIR:-$ROOT/build}"
LLVM=/usr/lib/llvm-22
PY=/usr/bin/python3
export CUDA_ROOT="${CUDA_ROOT:-/usr/local/cuda}"
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

PE_RUN="$BUILD/bin/pe-run"
[ -x "$PE_RUN" ] || { echo "run.sh: $PE_RUN not found (utils/pe.sh build first)" >&2; exit 1; }
"$PY" -c 'import ctypes; ctypes.CDLL("libcuda.so.1")' 2>/dev/null ||
  { echo "run.sh: no NVIDIA driver (libcuda.so.1 cannot be loaded)" >&2; exit 1; }

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

rc=0
if [ "$TESTS" -eq 1 ]; then
  echo "== execution tests through --pipeline=cuda"
  "$LLVM/bin/lit" -s --param pe_pipeline=cuda "$BUILD/test/Integration" || rc=1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
B=1 H=32 HKV=8 T=4096 D=128 TK=32768
cat >"$work/w2_f16.mlir" <<EOF
func.func @w2(%q: tensor<${B}x${H}x${T}x${D}xf16>, %k: tensor<${B}x${HKV}x${T}x${D}xf16>, %v: tensor<${B}x${HKV}x${T}x${D}xf16>, %f: tensor<64xf64>) -> tensor<${B}x${H}x${T}x${D}xf16> {
  %attn_init0 = tensor.empty() : tensor<${B}x${H}x${T}x${D}xf16>
  %0 = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<64xf64>) outs(%attn_init0 : tensor<${B}x${H}x${T}x${D}xf16>) {causal} : tensor<${B}x${H}x${T}x${D}xf16>, tensor<${B}x${HKV}x${T}x${D}xf16>, tensor<${B}x${HKV}x${T}x${D}xf16> -> tensor<${B}x${H}x${T}x${D}xf16>
  return %0 : tensor<${B}x${H}x${T}x${D}xf16>
}
EOF
sed 's/f16/bf16/g' "$work/w2_f16.mlir" >"$work/w2_bf16.mlir"
cat >"$work/w3_bf16.mlir" <<EOF
func.func @w3(%q: tensor<${B}x${H}x${T}x${D}xbf16>, %k: tensor<${B}x${HKV}x${T}x${D}xbf16>, %v: tensor<${B}x${HKV}x${T}x${D}xbf16>) -> tensor<${B}x${H}x${T}x${D}xbf16> {
  %attn_init1 = tensor.empty() : tensor<${B}x${H}x${T}x${D}xbf16>
  %0 = pe.attention %q, %k, %v alibi <symmetric> outs(%attn_init1 : tensor<${B}x${H}x${T}x${D}xbf16>) {causal} : tensor<${B}x${H}x${T}x${D}xbf16>, tensor<${B}x${HKV}x${T}x${D}xbf16>, tensor<${B}x${HKV}x${T}x${D}xbf16> -> tensor<${B}x${H}x${T}x${D}xbf16>
  return %0 : tensor<${B}x${H}x${T}x${D}xbf16>
}
EOF
cat >"$work/w4_f16.mlir" <<EOF
func.func @w4(%q: tensor<${B}x${H}x1x${D}xf16>, %k: tensor<${B}x${HKV}x${TK}x${D}xf16>, %v: tensor<${B}x${HKV}x${TK}x${D}xf16>, %f: tensor<64xf64>) -> tensor<${B}x${H}x1x${D}xf16> {
  %attn_init2 = tensor.empty() : tensor<${B}x${H}x1x${D}xf16>
  %0 = pe.attention %q, %k, %v rope <half, query_only, query_offset = $((TK - 1))> inv_freq(%f : tensor<64xf64>) outs(%attn_init2 : tensor<${B}x${H}x1x${D}xf16>) : tensor<${B}x${H}x1x${D}xf16>, tensor<${B}x${HKV}x${TK}x${D}xf16>, tensor<${B}x${HKV}x${TK}x${D}xf16> -> tensor<${B}x${H}x1x${D}xf16>
  return %0 : tensor<${B}x${H}x1x${D}xf16>
}
EOF

# best_ms FILE FUNC: the fastest attention kernel time of REPEAT timed calls.
best_ms() {
  PE_CUDA_KERNEL_TIMES=1 timeout 300 "$PE_RUN" "$1" -e "$2" --random-inputs \
    --pipeline=cuda --repeat="$REPEAT" 2>&1 >/dev/null |
    awk '/pe-cuda-runtime: kernel .*_kernel / {print $(NF-1)}' | sort -g | head -n 1
}

echo "== attention kernels (B=$B H=$H Hkv=$HKV D=$D; prefill T=$T causal, decode Tk=$TK)"
printf '%-10s %12s %12s %10s %10s\n' workload kernel_ms TFLOP/s "%tensor" "%fma"
for w in w2_f16:w2 w2_bf16:w2 w3_bf16:w3; do
  file="$work/${w%%:*}.mlir"
  ms="$(best_ms "$file" "${w##*:}")"
  if [ -z "$ms" ]; then echo "${w%%:*}: no kernel time (see pe-run's errors above)"; rc=1; continue; fi
  # Causal prefill: 4 B H T^2 D / 2 flops (QK^T and PV, half the scores).
  "$PY" - "$ms" "${w%%:*}" "$B" "$H" "$T" "$D" "$tc" "$fma" <<'PYEOF'
import sys
ms, name, b, h, t, d, tc, fma = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
tflops = 4 * b * h * t * t * d / 2 / (float(ms) * 1e-3) / 1e12
pct = lambda peak: "%.1f" % (100 * tflops / peak) if peak else "-"
print("%-10s %12s %12.2f %10s %10s" % (name, ms, tflops, pct(tc), pct(fma)))
PYEOF
done
ms="$(best_ms "$work/w4_f16.mlir" w4)"
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
