#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cross-builds poolgrad, its examples and the C++ suite for aarch64 Linux with Debian's toolchain
# (cmake/aarch64-toolchain.cmake) and runs them under qemu-aarch64 (about 2 minutes here).
# Left out under the emulator, with the reason: the two tests that start threads in a forked child
# of a threaded process or under an address-space limit (qemu-user aborts in its own vCPU set-up
# there, and its own reservation exceeds the limit); the fork test of the Fork suite runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-aarch64"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-toolchain.cmake" >/dev/null
cmake --build "$build"
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"; }
skip="Hardening.ForkedChildRunsKernelsAfterParentUsedThreads:Hardening.ThreadCountIsCappedAndAPoolThatCannotStartRunsWithFewer"
log=$(mktemp)
run "$build/tests/poolgrad_tests" --gtest_brief=1 --gtest_filter="-$skip" | tee "$log" | tail -n 3
passed=$(sed -n 's/.*PASSED  \] \([0-9]*\) test.*/\1/p' "$log")
rm -f "$log"
for ex in max_pool2d_with_indices_backward max_pool3d_with_argmax roi_pooling_with_arg_max \
          roi_pooling_grad_with_arg_max max_pool2d_with_mask; do
  soc=Ascend950
  [ "$ex" = max_pool2d_with_mask ] && soc=Ascend910B  # the Mask pair is A2/A3's
  POOLGRAD_SOC=$soc run "$build/examples/example_$ex" >/dev/null
done
run "$build/tests/acl_surface" >/dev/null
# Determinism across architectures: the fixed case set's checksums equal the stored x86-64 figures,
# on the SVE rows (qemu's default CPU has SVE: the best level), the NEON rows and the portable
# ones.
for cap in sve neon default; do
  POOLGRAD_CPU_CAPABILITY=$cap run "$build/tests/checksum_probe" "$root/tests/checksums.txt" |
    grep -q identical || { echo "aarch64 ($cap): checksums differ from x86-64's"; exit 1; }
done
# SVE's vector length is the CPU's (qemu's default: 64 bytes): the SVE rows again at the smallest
# (16 bytes: Kunpeng 930, Neoverse V2) and the architecture's largest (256 bytes), so that no
# kernel assumes a width.
for vl in 16 256; do
  qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max,sve-default-vector-length=$vl \
    "$build/tests/checksum_probe" "$root/tests/checksums.txt" | grep -q identical ||
    { echo "aarch64 (SVE, $vl-byte vectors): checksums differ from x86-64's"; exit 1; }
done
# The trace names the rows that ran: SVE ones at the best level, NEON ones under "neon" (and
# neither under "default").
traced() { POOLGRAD_CPU_CAPABILITY=$1 POOLGRAD_LOG=info run "$build/tests/checksum_probe" \
  "$root/tests/checksums.txt" 2>&1 | grep -o "[a-z0-9-]*/$2" | sort -u; }
sve_rows=$(traced sve sve)
[ -n "$sve_rows" ] || { echo "aarch64: the trace names no SVE row"; exit 1; }
neon_rows=$(traced neon neon)
[ -n "$neon_rows" ] || { echo "aarch64: the trace names no NEON row"; exit 1; }
if [ -n "$(traced default 'neon\|sve')" ] || [ -n "$(traced neon sve)" ]; then
  echo "aarch64: a vector row ran above its cap"
  exit 1
fi
# The install: CANN's layout with the aarch64-linux alias, the libraries aarch64 ELF files.
prefix=$(mktemp -d)
cmake --install "$build" --prefix "$prefix" >/dev/null
[ -d "$prefix/aarch64-linux" ] && [ -f "$prefix/lib/pkgconfig/poolgrad.pc" ] &&
  [ -f "$prefix/lib/cmake/poolgrad/poolgradConfig.cmake" ] ||
  { echo "aarch64 install: CANN's layout is incomplete in $prefix"; exit 1; }
readelf -h "$prefix/lib64/libascendcl.so" | grep -q "AArch64" ||
  { echo "aarch64 install: lib64/libascendcl.so is not an aarch64 library"; exit 1; }
rm -rf "$prefix"
echo "aarch64 (qemu): ${passed:-0} C++ tests passed ($(echo "$skip" | tr ':' '\n' | wc -l) left out), 5 examples and the ACL surface program ran, checksums equal x86-64's on the SVE (16-, 64- and 256-byte vectors), NEON and portable rows, SVE rows traced: $(echo $sve_rows), NEON rows traced: $(echo $neon_rows), install layout checked"
