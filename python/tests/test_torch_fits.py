# SPDX-License-Identifier: Apache-2.0
"""scripts/torch_fits.py: when scripts/venv.sh reuses a torch installed on the system."""
import importlib.util
import pathlib
import subprocess
import sys

_path = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "torch_fits.py"
_spec = importlib.util.spec_from_file_location("torch_fits", _path)
torch_fits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(torch_fits)


def test_versions_from_2_4_with_a_matching_torchvision_fit():
    assert torch_fits.fits("2.4.0", ["numpy", "torch (==2.4.0)"])
    assert torch_fits.fits("2.15.0+cpu", ["torch (>=2.14.0)", "pillow"])
    assert torch_fits.fits("2.6.0a0+git123", ["numpy"])  # no torch requirement named


def test_old_torch_missing_or_mismatched_torchvision_do_not_fit():
    assert not torch_fits.fits("2.3.1", ["torch (==2.3.1)"])
    assert not torch_fits.fits("1.13.1", [])
    assert not torch_fits.fits("2.5.0", None)  # no torchvision
    assert not torch_fits.fits("2.5.0", ["torch (==2.5.1)"])
    assert not torch_fits.fits("2.13.0", ["torch (>=2.14.0)"])
    assert not torch_fits.fits("unknown", ["torch (==2.5.0)"])


def test_the_test_environments_torch_fits():
    # The environment running these tests has a working torch and torchvision.
    run = subprocess.run([sys.executable, str(_path)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("torch "), run
