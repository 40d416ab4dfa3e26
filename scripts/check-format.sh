#!/usr/bin/env bash
# Fails when a tracked C++ source differs from clang-format-22's LLVM style
# (.clang-format). Fix with: git ls-files '*.cpp' '*.h' | xargs clang-format-22 -i
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t sources < <(git ls-files '*.cpp' '*.h')
if [ "${#sources[@]}" -eq 0 ]; then
  echo "check-format: no tracked sources found (not a git checkout?)" >&2
  exit 1
fi
clang-format-22 --dry-run -Werror "${sources[@]}"
echo "check-format: ${#sources[@]} files formatted"
