#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the twenty libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) and runs each for
# a bounded time on a copy of the seed corpus (fuzz/corpus/TARGET), plus the regression inputs.
# Fails on any crash, leak or sanitizer report. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-45}
POOLGRAD_NEED_CLANG=1 bash "$root/scripts/deps.sh"
CC=clang CXX=clang++ cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOOLGRAD_BUILD_FUZZERS=ON >/dev/null
cmake --build "$root/build-fuzz"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in maxpool_forward maxpool_backward mask_forward mask_backward adaptive_forward adaptive_backward \
         maxpool3d_forward maxpool3d_backward adaptive3d_forward adaptive3d_backward roi_forward roi_backward \
         unpool_forward unpool_backward unpool3d_forward unpool3d_backward roialign_forward roialign_backward \
         roialign_onnx any; do
  mkdir -p "$work/$t"
  cp "$root/fuzz/corpus/$t/"* "$work/$t/"
  # Regression inputs found by earlier runs, for the targets they belong to.
  for f in "$root/tests/fuzz_regressions/$t"-*; do [ -e "$f" ] && cp "$f" "$work/$t/"; done
  echo "== fuzz_$t for ${secs}s"
  "$root/build-fuzz/fuzz_$t" -max_total_time="$secs" -max_len=2048 -print_final_stats=1 \
    -artifact_prefix="$work/crash-$t-" "$work/$t" 2>"$work/$t.log" || {
    tail -40 "$work/$t.log"
    echo "fuzz_$t FAILED"
    exit 1
  }
  grep -E "stat::number_of_executed_units|cov:" "$work/$t.log" | tail -2
done
echo "fuzz: all targets clean"
