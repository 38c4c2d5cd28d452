#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the system packages the C++ build needs, only where they are missing (Debian).
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev libgmock-dev)
[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
command -v clang-format >/dev/null || need+=(clang-format)
# Google Highway's headers (used for every architecture: the cross-build reads the same headers).
# Not libhwy-dev:arm64: it brings Debian's own libc6:arm64 into /lib/aarch64-linux-gnu, whose
# mix with the cross toolchain's loader under qemu-aarch64 -L hangs threaded tests.
[ -f /usr/include/hwy/highway.h ] || need+=(libhwy-dev)
# aarch64: the cross toolchain, the emulator and GoogleTest for arm64 (multiarch).
command -v aarch64-linux-gnu-g++ >/dev/null || need+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
[ -f /usr/lib/aarch64-linux-gnu/libgtest.a ] || need+=(libgtest-dev:arm64)
if [ "${POOLGRAD_NEED_CLANG:-0}" = 1 ]; then
  command -v clang++ >/dev/null || need+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi
if [ "${POOLGRAD_NEED_PERF:-0}" = 1 ]; then  # scripts/profile.sh
  command -v perf >/dev/null || need+=(linux-perf)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  case " ${need[*]} " in
    *:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64 ;;
  esac
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
