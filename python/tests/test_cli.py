# SPDX-License-Identifier: Apache-2.0
"""The `poolgrad golden` and `poolgrad compare` commands, end to end (subprocesses)."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

import poolgrad


def _script():
    """The console script beside this Python (a venv's bin/), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "poolgrad")
    return here if os.access(here, os.X_OK) else shutil.which("poolgrad")


def run(*args, cwd=None):
    exe = _script()
    cmd = [exe, *args] if exe else [sys.executable, "-m", "poolgrad", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)


def test_console_script_is_installed():
    assert _script() is not None or os.environ.get("POOLGRAD_NO_SCRIPT")
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"poolgrad {poolgrad.__version__}"
    r = run("--help")
    assert r.returncode == 0 and "golden" in r.stdout and "examples:" in r.stdout
    r = run("golden", "--help")
    for opt in ("--input", "--grad-output", "--indices", "--rois", "--argmax", "--kernel", "--stride",
                "--padding", "--dilation", "--ceil", "--index-dtype", "--output-size", "--spatial-scale",
                "--input-shape", "--out-dir", "--out-format", "--threads", "examples:"):
        assert opt in r.stdout, opt


def test_golden_max_pool_npy_and_bin(tmp_path):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run("golden", "max-pool2d", "--input", str(tmp_path / "x.npy"), "--kernel", "3", "--stride", "2",
            "--padding", "1", "--ceil", "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "g" / "out.npy")
    idx = np.load(tmp_path / "g" / "indices.npy")
    ref, ref_idx = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, 2, 1, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(out, ref.numpy())
    np.testing.assert_array_equal(idx, ref_idx.numpy())
    # The backward from raw .bin float16 inputs, written as .bin.
    gy = np.ones(out.shape, np.float16)
    gy.tofile(tmp_path / "gy.bin")
    x.astype(np.float16).tofile(tmp_path / "x16.bin")
    shape = ",".join(map(str, out.shape))
    r = run("golden", "max-pool2d-backward", "--grad-output", f"{tmp_path / 'gy.bin'}:float16:{shape}",
            "--input", f"{tmp_path / 'x16.bin'}:float16:2,3,9,9", "--indices", str(tmp_path / "g" / "indices.npy"),
            "--kernel", "3", "--stride", "2", "--padding", "1", "--ceil", "--out-dir", str(tmp_path / "b"),
            "--out-format", "bin")
    assert r.returncode == 0, r.stderr
    gx = np.fromfile(tmp_path / "b" / "grad_input.bin", np.float16).reshape(x.shape)
    assert float(gx.astype(np.float32).sum()) == float(gy.size)
    # compare: identical passes, a changed element fails with its position
    r = run("compare", f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9",
            f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9")
    assert r.returncode == 0 and "PASS" in r.stdout and "mismatches 0" in r.stdout
    gx2 = gx.copy()
    gx2[1, 2, 3, 4] += 1
    np.save(tmp_path / "gx2.npy", gx2)
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9")
    assert r.returncode == 1
    assert "mismatches 1" in r.stdout and "largest error at [1, 2, 3, 4]: device" in r.stdout
    # --json: the same verdict, machine-readable, with the largest errors
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9",
            "--json")
    v = json.loads(r.stdout)
    assert r.returncode == 1 and v["passed"] is False and v["standard"] == "mixed"
    assert v["largest_errors"][0]["at"] == [1, 2, 3, 4] and v["metrics"]["elements"] == gx.size
    # tolerance and error cap overridable (the cap alone still fails it)
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9",
            "--atol", "1.5")
    assert r.returncode == 1 and "beyond the error cap" in r.stdout
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9",
            "--atol", "1.5", "--error-cap", "1.5")
    assert r.returncode == 0
    # msprobe's metrics printed with CANN's; its ULP standard: one element of 486 beyond 1 ULP
    # is 0.2%, over msprobe's 0.1% for float16
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9",
            "--standard", "ulp", "--json")
    v = json.loads(r.stdout)
    assert r.returncode == 1 and v["standard"] == "ulp" and "beyond 1 ULP" in v["reason"]
    assert v["metrics"]["ulp_error_proportion"] == 1 / gx.size
    assert v["metrics"]["one_thousandth_ratio"] == (gx.size - 1) / gx.size
    r = run("compare", str(tmp_path / "gx2.npy"), f"{tmp_path / 'b' / 'grad_input.bin'}:float16:2,3,9,9")
    assert "one thousandth ratio" in r.stdout and "five thousandths ratio" in r.stdout


def test_golden_roi_pool_and_backward(tmp_path):
    x = np.random.default_rng(1).standard_normal((2, 4, 12, 10)).astype(np.float32)
    rois = np.array([[0, 0, 0, 15, 20], [1, 4, 4, 9, 9]], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "rois.npy", rois)
    r = run("golden", "roi-pool", "--input", str(tmp_path / "x.npy"), "--rois", str(tmp_path / "rois.npy"),
            "--output-size", "3", "--spatial-scale", "0.5", "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 0, r.stderr
    y = np.load(tmp_path / "g" / "y.npy")
    am = np.load(tmp_path / "g" / "argmax.npy")
    ry, ram = poolgrad.roi_pool_with_argmax(x, rois, 3, 0.5)
    np.testing.assert_array_equal(y, ry)
    np.testing.assert_array_equal(am, ram)
    np.save(tmp_path / "gy.npy", np.ones_like(y))
    r = run("golden", "roi-pool-backward", "--grad-output", str(tmp_path / "gy.npy"), "--rois",
            str(tmp_path / "rois.npy"), "--argmax", str(tmp_path / "g" / "argmax.npy"), "--input-shape",
            "2,4,12,10", "--out-dir", str(tmp_path / "b"))
    assert r.returncode == 0, r.stderr
    gx = np.load(tmp_path / "b" / "grad_input.npy")
    assert gx.shape == x.shape and gx.sum() == (am >= 0).sum()
    r = run("compare", str(tmp_path / "g" / "argmax.npy"), str(tmp_path / "g" / "argmax.npy"))
    assert r.returncode == 0 and "dtype int32" in r.stdout
    # integer outputs: the count of mismatches, no float metrics; a PASS says nothing of errors
    assert "mismatches 0 of" in r.stdout and "rmse" not in r.stdout and "largest error" not in r.stdout
    am2 = am.copy()
    am2.flat[3] += 7
    np.save(tmp_path / "am2.npy", am2)
    r = run("compare", str(tmp_path / "am2.npy"), str(tmp_path / "g" / "argmax.npy"))
    assert r.returncode == 1 and "mismatches 1 of" in r.stdout and "cosine" not in r.stdout
    assert r.stdout.count("largest error at") == 1, r.stdout


@pytest.mark.parametrize("args,needle", [
    (["golden", "max-pool2d", "--input", "/nonexistent.npy", "--kernel", "2", "--out-dir", "o"], "no such file"),
    (["golden", "max-pool2d", "--kernel", "2", "--out-dir", "o"], "needs --input"),
    (["golden", "max-pool2d", "--input", "BAD", "--kernel", "2", "--out-dir", "o"], "no such file"),
    (["golden", "max-pool2d", "--input", "{raw}:float32:1,1,4,5", "--kernel", "2", "--out-dir", "o"], "needs 20"),
    (["golden", "max-pool2d", "--input", "{raw}", "--kernel", "2", "--out-dir", "o"], "needs its dtype and shape"),
    (["golden", "max-pool2d", "--input", "{raw}:complex7:1,1,4,4", "--kernel", "2", "--out-dir", "o"], "unknown dtype"),
    (["golden", "max-pool2d", "--input", "{raw}:float32:1,1,4,4", "--kernel", "2", "--padding", "3",
      "--out-dir", "o"], "[161002]"),
    (["golden", "max-pool2d", "--input", "{txt}", "--kernel", "2", "--out-dir", "o"], "not a .npy file (bad magic)"),
    (["compare", "{raw}:float32:1,1,4,4", "{raw}:float32:16"], "shapes differ"),
])
def test_errors_are_one_line(tmp_path, args, needle):
    raw = tmp_path / "x.bin"
    np.zeros(16, np.float32).tofile(raw)
    txt = tmp_path / "x.npy"
    txt.write_text("not numpy")
    args = [a.replace("{raw}", str(raw)).replace("{txt}", str(txt)) for a in args]
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert needle in r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_golden_3d_ops(tmp_path):
    """The 3-D max pool and the 3-D adaptive max pool, forward then backward, against PyTorch."""
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 9, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    xt = torch.from_numpy(x)
    r = run("golden", "max-pool3d", "--input", str(tmp_path / "x.npy"), "--kernel", "3", "--stride", "2",
            "--padding", "1", "--ceil", "--out-dir", str(tmp_path / "m"))
    assert r.returncode == 0, r.stderr
    ref, ref_idx = torch.nn.functional.max_pool3d(xt, 3, 2, 1, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(np.load(tmp_path / "m" / "out.npy"), ref.numpy())
    np.testing.assert_array_equal(np.load(tmp_path / "m" / "indices.npy"), ref_idx.numpy())
    gy = np.ones(ref.shape, np.float32)
    np.save(tmp_path / "gy.npy", gy)
    r = run("golden", "max-pool3d-backward", "--grad-output", str(tmp_path / "gy.npy"), "--input",
            str(tmp_path / "x.npy"), "--indices", str(tmp_path / "m" / "indices.npy"), "--kernel", "3",
            "--stride", "2", "--padding", "1", "--ceil", "--out-dir", str(tmp_path / "mb"))
    assert r.returncode == 0, r.stderr
    want = torch.ops.aten.max_pool3d_with_indices_backward(torch.from_numpy(gy), xt, [3] * 3, [2] * 3, [1] * 3,
                                                           [1] * 3, True, ref_idx)
    np.testing.assert_array_equal(np.load(tmp_path / "mb" / "grad_input.npy"), want.numpy())
    # The adaptive pair, on an A2 profile (INT32 indices only there).
    r = run("golden", "adaptive-max-pool3d", "--input", str(tmp_path / "x.npy"), "--output-size", "2,4,4",
            "--index-dtype", "int32", "--product", "Ascend910B", "--out-dir", str(tmp_path / "a"))
    assert r.returncode == 0, r.stderr
    ref, ref_idx = torch.nn.functional.adaptive_max_pool3d(xt, (2, 4, 4), return_indices=True)
    idx = np.load(tmp_path / "a" / "indices.npy")
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, ref_idx.numpy())
    np.save(tmp_path / "agy.npy", np.ones(ref.shape, np.float32))
    r = run("golden", "adaptive-max-pool3d-backward", "--grad-output", str(tmp_path / "agy.npy"), "--input",
            str(tmp_path / "x.npy"), "--indices", str(tmp_path / "a" / "indices.npy"), "--product", "Ascend910B",
            "--out-dir", str(tmp_path / "ab"))
    assert r.returncode == 0, r.stderr
    assert float(np.load(tmp_path / "ab" / "grad_input.npy").sum()) == float(ref.numel())
    r = run("golden", "adaptive-max-pool3d", "--input", str(tmp_path / "x.npy"), "--output-size", "2,4,4",
            "--product", "Ascend910B", "--out-dir", str(tmp_path / "bad"))
    assert r.returncode == 2 and "INT32 only on Ascend910B" in r.stderr


def test_golden_bfloat16_files_keep_their_dtype(tmp_path):
    ml_dtypes = pytest.importorskip("ml_dtypes")  # installed by scripts/venv.sh: never skipped in CI
    x = np.random.default_rng(2).standard_normal((1, 2, 6, 6)).astype(ml_dtypes.bfloat16)
    x.tofile(tmp_path / "x.bin")
    for fmt in ("bin", "npy"):
        r = run("golden", "max-pool2d", "--input", f"{tmp_path / 'x.bin'}:bfloat16:1,2,6,6", "--kernel", "2",
                "--out-dir", str(tmp_path / fmt), "--out-format", fmt)
        assert r.returncode == 0, r.stderr
        assert "bfloat16" in r.stdout
    want = x.astype(np.float32).reshape(1, 2, 3, 2, 3, 2).max(axis=(3, 5))
    raw = np.fromfile(tmp_path / "bin" / "out.bin", np.uint16)  # 2 bytes a value: bfloat16 bits
    assert raw.size == want.size
    assert np.array_equal(raw.view(ml_dtypes.bfloat16).astype(np.float32).reshape(want.shape), want)
    r = run("compare", str(tmp_path / "npy" / "out.npy"), f"{tmp_path / 'bin' / 'out.bin'}:bfloat16:1,2,3,3")
    assert r.returncode == 0 and "dtype bfloat16" in r.stdout, r.stdout + r.stderr
