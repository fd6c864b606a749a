#!/usr/bin/env bash
# The main job on the shipped example, a Llama-3.1-style attention block
# (examples/llama_attention.mlir): compile it with fusion (pe-cpu-pipeline)
# and with the unfused reference pipeline, run both on the same inputs,
# compare the results and time each.
# Usage: examples/run-demo.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: run-demo.sh BUILD_DIR}"
example="$here/llama_attention.mlir"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== 1. After compile-time folding and fusion (the first passes of pe-cpu-pipeline):"
echo "     the llama3 frequency table is a constant, RoPE on Q and K lives inside"
echo "     the rope encoding of one pe.attention"
"$build/bin/pe-opt" "$example" --pe-fold-frequencies --canonicalize \
  --pe-fuse-encodings-into-attention \
  --pe-fold-attention-scaling --canonicalize
echo
echo "== 2. Fused (pipeline=cpu, generated flash-attention kernel) against the"
echo "     unfused reference (pipeline=reference), same seeded inputs, 10 timed runs each"
"$build/bin/pe-run" "$example" -e llama_attention --random-inputs --seed=1 \
  --pipeline=cpu --check=reference --rtol=1e-4 --atol=1e-5 --repeat=10
echo
echo "== 3. The first values of head 0, query 255 (the last row) from each pipeline"
for p in cpu reference; do
  "$build/bin/pe-run" "$example" -e llama_attention --random-inputs --seed=1 \
    --pipeline=$p --output="$tmp/$p.npy"
done
/usr/bin/python3 - "$tmp" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
fused, ref = np.load(d + "/cpu.npy"), np.load(d + "/reference.npy")
np.set_printoptions(precision=6, suppress=True)
print("fused     ", fused[0, 0, 255, :6])
print("reference ", ref[0, 0, 255, :6])
print("max |fused - reference| over all %d values: %.3g" % (fused.size, np.abs(fused - ref).max()))
PY
