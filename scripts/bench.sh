#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/performance.md, .png and .json: poolgrad
# against PyTorch/torchvision in one process, 1 and 2 threads, then the per-call cost
# (bench/overhead.py) and docs/scaling.md (bench/scaling.py). Extra arguments go to compare.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
bash "$root/scripts/venv.sh"
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPOOLGRAD_BUILD_BENCHMARKS=ON -DPOOLGRAD_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-bench"
# compare.py times the installed package (the same library and kernels as the build).
# The build folder is kept outside the package sources (pip install also works from a read-only
# tree, in a temporary folder) but reused here between runs.
"$root/.venv/bin/pip" install --quiet --no-build-isolation -C build-dir="$root/build-py/{wheel_tag}" "$root"
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
"$root/.venv/bin/python" "$root/bench/compare.py" --build "$root/build-bench" "$@"
# The per-call cost (issue 38's goal: poolgrad.torch at most 1.5x torch's) as the report's last section.
(cd "$root" && printf '\n' >> docs/performance.md && "$root/.venv/bin/python" bench/overhead.py --markdown >> docs/performance.md)
# The scaling model's predictions from the report just written (docs/scaling.md).
"$root/.venv/bin/python" "$root/bench/scaling.py"
