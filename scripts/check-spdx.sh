#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a tracked source file (code, build and packaging scripts) lacks the licence's SPDX
# line within its first three lines. Data files (golden values, corpora, JSON, images) and the
# docs are not source files.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
count=0
while IFS= read -r -d '' f; do
  count=$((count + 1))
  if ! head -n 3 "$f" | grep -q "SPDX-License-Identifier: Apache-2.0"; then
    echo "no SPDX-License-Identifier: Apache-2.0 line: $f"
    missing=$((missing + 1))
  fi
done < <(git ls-files -z '*.c' '*.h' '*.cpp' '*.py' '*.pyi' '*.sh' '*.cmake' '*.in' '*.toml' \
  'CMakeLists.txt' '*/CMakeLists.txt' '.ci/run' '.clang-format' '.gitignore')
[ "$missing" = 0 ] || exit 1
echo "spdx: $count source files carry the Apache-2.0 SPDX line"
