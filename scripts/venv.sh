#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Creates (once) and reuses the project virtual environment .venv with the Python
# tools the tests and benchmarks need: numpy, pytest, and torch/torchvision as oracle and peer, onnx/onnxruntime as the ONNX RoiAlign oracle.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
stamp="$venv/.poolgrad-deps-v5"
if [ ! -f "$stamp" ]; then
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet numpy ml_dtypes pytest hypothesis matplotlib scikit-build-core nanobind torch torchvision onnx onnxruntime
  touch "$stamp"
fi
