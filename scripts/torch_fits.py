# SPDX-License-Identifier: Apache-2.0
"""Whether the torch installed for this Python fits poolgrad's tests, so that scripts/venv.sh can
reuse it instead of downloading PyPI's (about 5 GB with its CUDA libraries): prints the versions
and exits 0 when it fits, exits 1 when it does not or is absent.

Fits: torch 2.4 or later (torch.library.register_fake, which poolgrad/ops.py uses, came in 2.4)
and a torchvision (the RoI operators' oracle) whose declared torch requirement that torch meets.
"""
from __future__ import annotations

import re
import sys

MIN_TORCH = (2, 4)


def _release(version: str):
    """(major, minor, patch) of a version string such as "2.15.0+cpu"; None if it has none."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def fits(torch_version: str, torchvision_requires: list[str] | None) -> bool:
    """torch_version: torch.__version__; torchvision_requires: torchvision's requirement lines
    (importlib.metadata.requires), None when torchvision is not installed."""
    t = _release(torch_version)
    if t is None or t[:2] < MIN_TORCH or torchvision_requires is None:
        return False
    for line in torchvision_requires:
        m = re.match(r"torch\s*\(?\s*(==|>=)\s*([0-9.]+)", line)
        if m:
            want = _release(m.group(2))
            return want is not None and (t[:3] == want if m.group(1) == "==" else t >= want)
    return True  # torchvision names no torch version


def main() -> int:
    try:
        import importlib.metadata as metadata

        import torch
        import torchvision  # noqa: F401  (it must import with this torch)
        requires = metadata.requires("torchvision") or []
    except Exception:
        return 1
    if not fits(torch.__version__, requires):
        return 1
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
