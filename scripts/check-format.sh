#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a C or C++ source of the tree is not clang-format clean (.clang-format).
# Fix with: clang-format -i $(git ls-files '*.c' '*.h' '*.cpp')
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp')
else
  mapfile -t files < <(find include src tests bench fuzz examples python -name '*.c' -o -name '*.h' -o -name '*.cpp')
fi
clang-format --dry-run --Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
