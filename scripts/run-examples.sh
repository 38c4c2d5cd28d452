#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: builds libpoolgrad and the CANN-style example programs (not the tests), runs all
# five examples (the Mask pair's under the Ascend910B profile, the product CANN documents it for)
# and ends with a one-line summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build-examples" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPOOLGRAD_BUILD_TESTS=OFF -DPOOLGRAD_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$root/build-examples"
ran=0
for ex in max_pool2d_with_indices_backward max_pool2d_with_mask max_pool3d_with_argmax \
          roi_pooling_with_arg_max roi_pooling_grad_with_arg_max; do
  echo "== examples/$ex"
  soc=Ascend950
  [ "$ex" = max_pool2d_with_mask ] && soc=Ascend910B
  POOLGRAD_SOC=$soc "$root/build-examples/examples/example_$ex"
  ran=$((ran + 1))
done
echo "run-examples: $ran of 5 examples ran and passed (library and examples in build-examples/)"
