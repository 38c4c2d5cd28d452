#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures every combination of the CMake options the README lists (configure only: the builds
# themselves are scripts/test.sh's and scripts/fuzz.sh's), so that none of them rots.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python="$root/.venv/bin/python"
combos=(
  ""
  "-DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=OFF"
  "-DPOOLGRAD_BUILD_BENCHMARKS=ON"
  "-DPOOLGRAD_BUILD_BENCHMARKS=ON -DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=OFF"
  "-DPOOLGRAD_SANITIZE=ON"
  "-DPOOLGRAD_TSAN=ON"
  "-DPOOLGRAD_BUILD_PYTHON=ON -DPython_EXECUTABLE=$python"
  "-DPOOLGRAD_BUILD_PYTHON=ON -DPOOLGRAD_BUILD_TESTS=OFF -DPython_EXECUTABLE=$python"
)
i=0
for opts in "${combos[@]}"; do
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$work/$i" -G Ninja $opts >"$work/log" 2>&1 || { cat "$work/log"; echo "configure failed: $opts"; exit 1; }
  echo "configure ok: ${opts:-(defaults)}"
  i=$((i + 1))
done
if command -v clang++ >/dev/null; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$work/fuzz" -G Ninja -DPOOLGRAD_BUILD_FUZZERS=ON >"$work/log" 2>&1 ||
    { cat "$work/log"; echo "configure failed: fuzzers"; exit 1; }
  echo "configure ok: -DPOOLGRAD_BUILD_FUZZERS=ON (clang)"
fi
