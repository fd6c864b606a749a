#!/usr/bin/env bash
# Regenerates the op, dialect and pass references from the ODS/TableGen
# sources and copies them into docs/. test/docs-current.test fails when they
# are stale. Usage: utils/update-docs.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
ninja -C "$build" mlir-doc >/dev/null
cp "$build"/docs/PE/*.md "$root/docs/Dialects/"
cp "$build"/docs/*Passes.md "$root/docs/Passes/"
echo "docs updated from $build/docs"
