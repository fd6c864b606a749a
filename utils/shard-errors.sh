#!/usr/bin/env bash
#===- utils/shard-errors.sh - max errors of the sharded execution tests ----===#
#
# Usage: utils/shard-errors.sh [BUILD_DIR]
#
# Runs every test of test/Integration/Shard with pe-run --ranks on its inputs
# (test/Integration/lib/shard_cases.py) and prints, per result, the maximum
# absolute error of the sharded run against the unsharded function through
# pe-cpu-pipeline (the same kernels) and through pe-reference-pipeline, and
# against the float64 NumPy reference. Needs MPICH (utils/pe.sh deps).
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
PY=/usr/bin/python3
LIB="$ROOT/test/Integration/lib"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

maxerr() { sed -n 's/.*check result \([0-9]*\): max_abs_err=\([^ ]*\).*/\2/p' | paste -sd' ' -; }

printf '%-30s %-6s %-22s %-22s %s\n' test ranks "vs unsharded (cpu)" \
  "vs unsharded (ref)" "vs float64"
for f in "$ROOT"/test/Integration/Shard/*.mlir; do
  name="$(basename "$f" .mlir)"
  dir="$TMP/$name"
  "$PY" "$LIB/shard_cases.py" "$name" "$dir"
  ranks="$(grep -o -- '--ranks=[0-9]*' "$f" | head -1)"
  args=()
  # The test's own --input/--output files, from its pe-run line.
  for a in $(grep -m1 'pe-run %s' "$f" |
               grep -o -- '--\(input\|output\)=%t/[a-z_]*\.npy'); do
    args+=("${a//%t/$dir}")
  done
  cpu="$("$BUILD/bin/pe-run" "$f" -e "$name" "$ranks" "${args[@]}" \
           --check=cpu --rtol=0 --atol=0 | maxerr || true)"
  ref="$("$BUILD/bin/pe-run" "$f" -e "$name" "$ranks" "${args[@]}" \
           --check=reference --rtol=0 --atol=0 | maxerr || true)"
  f64=""
  for out in "$dir"/out.npy "$dir"/lse.npy; do
    [ -f "$out" ] || continue
    expected="$dir/expected.npy"
    [ "$(basename "$out")" = lse.npy ] && expected="$dir/expected_lse.npy"
    f64+="$("$PY" "$LIB/npycmp.py" "$out" "$expected" --rtol 1 --atol 1 |
             sed -n 's/.*max_abs=\([^ ]*\).*/\1/p') "
  done
  printf '%-30s %-6s %-22s %-22s %s\n' "$name" "${ranks#--ranks=}" "$cpu" "$ref" "$f64"
done
