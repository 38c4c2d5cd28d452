#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ISA probe behind docs/architecture.md's "How the ISA code is organised": the max-pool window
# scan as GCC 8-lane vectors (poolgrad's former vec.h way, AVX2 and baseline) and as Highway code for
# every target this host runs, timed in alternating blocks, every variant checked against the first
# bit for bit. Runs on x86-64 and on aarch64 hosts (needs g++ and libhwy-dev).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
g++ -std=c++17 -O2 -ffp-contract=off -I"$here" "$here/main.cpp" "$here/scan_vec.cpp" \
  "$here/scan_hwy.cpp" -lhwy -o "$out/isa_probe"
"$out/isa_probe"
rm -rf "$out"
