#!/usr/bin/env bash
# The main job on the shipped example: fold the frequency tables of
# examples/llama_attention.mlir at compile time and print the resulting IR.
# Usage: examples/run-demo.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:?usage: run-demo.sh BUILD_DIR}"
echo "== pe-opt --canonicalize examples/llama_attention.mlir"
"$build/bin/pe-opt" "$here/llama_attention.mlir" --canonicalize
