# SPDX-License-Identifier: Apache-2.0
"""aclnnAdaptiveMaxPool2d and its backward from Python against PyTorch's adaptive_max_pool2d:
values, indices and gradients (float32 bitwise: the same scan and summation order), overlapping
bins, 3-D inputs, float16 / bfloat16 (within their rounding of the same float32 sums)."""
import numpy as np
import pytest
import torch

import poolgrad


@pytest.fixture
def a2():
    poolgrad.set_product("Ascend910B")  # the backward is A2/A3's (ops-nn's documentation)
    yield
    poolgrad.set_product("Ascend950")


def _cases(n):
    rng = np.random.default_rng(16)
    for _ in range(n):
        yield dict(shape=(int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 20)),
                          int(rng.integers(1, 20))),
                   out=(int(rng.integers(1, 9)), int(rng.integers(1, 9))), rank3=bool(rng.integers(0, 4) == 0),
                   dtype=[torch.float32, torch.float16, torch.bfloat16][int(rng.integers(0, 3))])


@pytest.mark.parametrize("case", list(_cases(60)) + [dict(shape=(4, 8, 37, 37), out=(7, 7), rank3=False,
                                                          dtype=torch.float32),
                                                     dict(shape=(4, 16, 40, 40), out=(1, 1), rank3=False,
                                                          dtype=torch.float32)])
def test_matches_torch(a2, case):
    torch.manual_seed(1)
    x = (torch.randint(-6, 7, case["shape"]) / 2).to(case["dtype"])  # ties on purpose
    if case["rank3"]:
        x = x[0]
    out_t, idx_t = torch.nn.functional.adaptive_max_pool2d(x.float(), case["out"], return_indices=True)
    out, idx = poolgrad.adaptive_max_pool2d(x, case["out"])
    assert torch.equal(idx, idx_t)
    assert torch.equal(out, out_t.to(case["dtype"]))
    gy = torch.randn(out.shape).to(case["dtype"])
    gx = poolgrad.adaptive_max_pool2d_backward(gy, x, idx)
    gx_t = torch.ops.aten.adaptive_max_pool2d_backward(gy.float(), x.float(), idx_t)
    assert torch.equal(gx, gx_t.to(case["dtype"]))


def test_nan_wins_and_int32_indices(a2):
    x = torch.tensor([[[1.0, float("nan"), 3.0], [4.0, 5.0, float("nan")]]])
    out, idx = poolgrad.adaptive_max_pool2d(x, (1, 2))
    out_t, idx_t = torch.nn.functional.adaptive_max_pool2d(x, (1, 2), return_indices=True)
    assert torch.equal(idx, idx_t) and torch.isnan(out).all() and torch.isnan(out_t).all()
    gx = poolgrad.adaptive_max_pool2d_backward(torch.ones(1, 1, 2), x, idx.to(torch.int32))
    assert gx.sum() == 2


def test_backward_runs_on_ascend950():
    # CANN's op_api has no product check for it and its doc lists Ascend 950 (issue 37, D1).
    assert poolgrad.get_product() == "Ascend950"
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    _, idx = poolgrad.adaptive_max_pool2d(x, 2)
    gx = poolgrad.adaptive_max_pool2d_backward(np.ones((1, 1, 2, 2), np.float32), x, idx)
    assert gx.reshape(-1)[[5, 7, 13, 15]].tolist() == [1.0] * 4 and gx.sum() == 4


def test_golden_cli(tmp_path):
    import subprocess
    import sys
    x = np.random.default_rng(5).standard_normal((1, 2, 9, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run = [sys.executable, "-m", "poolgrad", "golden"]
    r = subprocess.run(run + ["adaptive-max-pool2d", "--input", str(tmp_path / "x.npy"), "--output-size", "4,3",
                              "--out-dir", str(tmp_path / "f")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out, idx = np.load(tmp_path / "f" / "out.npy"), np.load(tmp_path / "f" / "indices.npy")
    out_t, idx_t = torch.nn.functional.adaptive_max_pool2d(torch.from_numpy(x), (4, 3), return_indices=True)
    assert np.array_equal(out, out_t.numpy()) and np.array_equal(idx, idx_t.numpy())
    np.save(tmp_path / "gy.npy", np.ones((1, 2, 4, 3), np.float32))
    r = subprocess.run(run + ["adaptive-max-pool2d-backward", "--input", str(tmp_path / "x.npy"), "--grad-output",
                              str(tmp_path / "gy.npy"), "--indices", str(tmp_path / "f" / "indices.npy"),
                              "--out-dir", str(tmp_path / "b")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert np.load(tmp_path / "b" / "grad_input.npy").sum() == 24
