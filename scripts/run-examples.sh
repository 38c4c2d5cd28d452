#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: builds libpoolgrad and the CANN-style example programs, then runs them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build"
for ex in max_pool2d_with_indices_backward max_pool3d_with_argmax roi_pooling_with_arg_max roi_pooling_grad_with_arg_max; do
  echo "== examples/$ex"
  "$root/build/examples/example_$ex"
done
