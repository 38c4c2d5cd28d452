#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test: clang-format, the C++ suite (Release), the same suite under AddressSanitizer +
# UndefinedBehaviorSanitizer and under ThreadSanitizer, the suite cross-built for aarch64 under
# qemu (scripts/test-aarch64.sh), the examples under valgrind, every CMake
# option combination configured, and the Python package (its wheel built in one step from a fresh
# venv, installed there, the pytest suite run against it). Fuzzing is scripts/fuzz.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh"
jobs=$(nproc)

echo "== clang-format"
bash "$root/scripts/check-format.sh"
echo "== licence lines"
bash "$root/scripts/check-spdx.sh"

echo "== C++ tests (Release)"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build"
ctest --test-dir "$root/build" -j"$jobs" --output-on-failure
# The x86 rows run at the levels this CPU has: a test that asks for AVX-512 on a CPU without it
# gets the best level there is (the library's rule), so say which rows went untested.
if [ "$(uname -m)" = x86_64 ]; then
  missing=""
  for f in avx512f avx512bw avx512dq avx512vl avx512_bf16; do
    grep -m1 '^flags' /proc/cpuinfo | grep -qw "$f" || missing="$missing $f"
  done
  if [ -n "$missing" ]; then
    echo "NOTE: this CPU lacks$missing: the AVX-512 rows were not run (tests asking for them ran the AVX2 rows)"
  else
    echo "AVX-512 rows run: the CPU has AVX-512 F, BW, DQ, VL and BF16"
  fi
fi

echo "== C++ tests under ASan + UBSan"
cmake -S "$root" -B "$root/build-san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPOOLGRAD_SANITIZE=ON >/dev/null
cmake --build "$root/build-san"
# Fork.* runs in the Release and TSan builds, not here: GCC 12's libasan takes no lock of its own
# allocator around fork (compiler-rt added that in LLVM 18), so a child forked while another
# thread is inside malloc can inherit the allocator's lock held and hang, whatever poolgrad does.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-san" -j"$jobs" --output-on-failure -E "Fork\\."

echo "== C++ tests under ThreadSanitizer (kernels on the thread pool, API called from many threads)"
# die_after_fork=0: the fork test starts threads in the child on purpose (a new pool); Race.* races
# on rois deliberately (the test of reading them once), so it runs only in the other builds.
cmake -S "$root" -B "$root/build-tsan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPOOLGRAD_TSAN=ON >/dev/null
cmake --build "$root/build-tsan"
TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 ctest --test-dir "$root/build-tsan" -j"$jobs" --output-on-failure \
  -E "install_and_consume|cann_layout_sample_project|Race\\."

echo "== C++ tests and examples on aarch64 (cross-built, under qemu-aarch64)"
bash "$root/scripts/test-aarch64.sh"

if command -v valgrind >/dev/null; then
  echo "== Examples under valgrind memcheck"
  for ex in max_pool2d_with_indices_backward max_pool2d_with_mask max_pool3d_with_argmax roi_pooling_with_arg_max \
            roi_pooling_grad_with_arg_max; do
    soc=Ascend950
    [ "$ex" = max_pool2d_with_mask ] && soc=Ascend910B  # the Mask pair is A2/A3's
    POOLGRAD_SOC=$soc POOLGRAD_NUM_THREADS=1 valgrind --quiet --error-exitcode=3 --leak-check=full --show-possibly-lost=no \
      --errors-for-leak-kinds=definite \
      "$root/build/examples/example_$ex" >/dev/null
    echo "valgrind: examples/$ex clean"
  done
fi

echo "== Python package: the wheel as a plain pip install . builds it, installed into a fresh venv, pytest there"
bash "$root/scripts/venv.sh"
bash "$root/scripts/check-configure.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fresh venv that sees .venv's packages (torch, the test tools) but not a poolgrad installed
# there: a folder of links to everything else, on the new venv's path through a .pth file.
python3 -m venv "$tmp/venv"
site() { "$1" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"; }
mkdir "$tmp/deps"
for e in "$(site "$root/.venv/bin/python")"/*; do
  case "$(basename "$e")" in poolgrad* | *.pth | pip | pip-* | _distutils_hack | setuptools*) ;; *) ln -s "$e" "$tmp/deps/" ;; esac
done
echo "$tmp/deps" >"$(site "$tmp/venv/bin/python")/poolgrad-test-deps.pth"
# The fresh venv's own pip builds the wheel in an isolated environment (what `pip install .` does)
# from a read-only copy; the torch ops must find the venv's torch all the same (cmake/torch_ops.cmake).
bash "$root/scripts/wheel.sh" "$tmp/dist" "$tmp/venv/bin/python"
CC=false CXX=false "$tmp/venv/bin/pip" install --quiet --no-index --no-deps "$tmp"/dist/*.whl  # no compiler
"$tmp/venv/bin/python" - "$tmp/dist" "$tmp/venv" <<'PY'
import pathlib, sys, zipfile
import poolgrad, poolgrad.torch  # the torch ops load: built against this torch, in one step
assert pathlib.Path(poolgrad.__file__).is_relative_to(sys.argv[2]), poolgrad.__file__
names = [n for w in pathlib.Path(sys.argv[1]).glob("*.whl") for n in zipfile.ZipFile(w).namelist()]
libs = [n for n in names if "libpoolgrad" in n]
assert libs == ["poolgrad/libpoolgrad.so"], libs
assert "poolgrad/_torch_ops.so" in names, names
assert not [n for n in names if "libtorch" in n or "libc10" in n], names  # the installed torch's
assert not [n for n in names if n.endswith((".cpp", ".h"))], names
assert "poolgrad/py.typed" in names and "poolgrad/_ext.pyi" in names, names
print("wheel: manylinux, torch ops built in one step, one libpoolgrad.so, no sources, typed")
PY
(cd "$root/python/tests" && PATH="$tmp/venv/bin:$PATH" "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider .)
