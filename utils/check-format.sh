#!/usr/bin/env bash
#===- utils/check-format.sh - clang-format check of the C/C++ sources -----===#
#
# Part of the pe-mlir project.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Runs `clang-format-22 --dry-run --Werror` (.clang-format: LLVM style) over
# every tracked .c, .cpp and .h file except those listed in
# utils/format-exclude.txt. Exit status 1 and the offending lines when a file
# is not formatted. Fix with: clang-format-22 -i FILE
#
# Environment: CLANG_FORMAT (default clang-format-22).
#===----------------------------------------------------------------------===#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLANG_FORMAT="${CLANG_FORMAT:-clang-format-22}"
cd "$ROOT"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t all < <(git ls-files '*.c' '*.cpp' '*.h')
else
  mapfile -t all < <(find . -path ./build -prune -o -path './build-*' -prune -o \
    \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) -type f -print | sed 's|^\./||' | sort)
fi
# The exclude list: one path per line, '#' comments.
mapfile -t excluded < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
  utils/format-exclude.txt 2>/dev/null || true)

files=()
for f in "${all[@]}"; do
  skip=0
  for e in "${excluded[@]}"; do
    [ "$f" = "$e" ] && skip=1 && break
  done
  [ "$skip" -eq 0 ] && [ -f "$f" ] && files+=("$f")
done

if "$CLANG_FORMAT" --dry-run --Werror "${files[@]}"; then
  echo "format: ${#files[@]} files formatted (${#excluded[@]} excluded)"
else
  echo "format: some files are not formatted (clang-format-22 -i FILE)" >&2
  exit 1
fi
