#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where a benchmark row spends its time: samples poolgrad_bench with perf (cpu-clock, so it works
# on VMs without hardware counters) and prints the share of each function and the hottest
# instructions of the hottest poolgrad function. Hardware counters (cache misses, cycles) are not
# available on this team's machines ('not supported'); the annotation shows where the samples land.
#
#   bash scripts/profile.sh 'roi_backward/fast-rcnn-vgg16/phase2' [seconds]
#
# POOLGRAD_NUM_THREADS picks the thread count (default 2). The benchmark's own set-up (random
# inputs, the forward that makes the indices) is sampled too; it shows under poolgrad_bench and the
# forward kernels, and a longer run dilutes it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
filter=${1:?usage: profile.sh BENCHMARK_FILTER [seconds]}
secs=${2:-5}
POOLGRAD_NEED_PERF=1 bash "$root/scripts/deps.sh"
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPOOLGRAD_BUILD_BENCHMARKS=ON -DPOOLGRAD_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-bench" >/dev/null
lib=$(basename "$(readlink -f "$root/build-bench/libpoolgrad.so")")  # perf names the DSO by its file
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
POOLGRAD_NUM_THREADS=${POOLGRAD_NUM_THREADS:-2} perf record -q -e cpu-clock -F 4999 -o "$out/perf.data" -- \
  "$root/build-bench/bench/poolgrad_bench" --benchmark_filter="$filter" --benchmark_min_time="$secs"
echo "== share of samples by library and function (>= 1%)"
perf report -i "$out/perf.data" --no-children --sort dso,symbol --percent-limit 1 --stdio 2>/dev/null |
  grep '%' | grep -v '^#' | sed -E 's/ +- +- +$//'
echo "== share of libpoolgrad's samples by function (>= 1%)"
perf report -i "$out/perf.data" --no-children --dsos "$lib" --percentage relative \
  --sort symbol --percent-limit 1 --stdio 2>/dev/null | grep '%' | grep -v '^#' | sed -E 's/ +- +- +$//'
top=$(perf report --percentage relative -i "$out/perf.data" --no-children --dsos "$lib" --sort symbol --stdio 2>/dev/null |
  grep '%' | grep -v '^#' | sed -n 1p | sed -E 's/^ *[0-9.]+% +\[\.\] //; s/ +- +- *$//; s/ +$//')
[ -n "$top" ] || exit 0
echo "== hottest instructions of $top (share of its samples; a stall is charged to the instruction after it)"
perf annotate -i "$out/perf.data" --stdio -s "$top" 2>&1 | grep -E '^ +[0-9]+\.[0-9]+ +:' | sort -rn | sed -n 1,16p
