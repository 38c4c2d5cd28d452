# SPDX-License-Identifier: Apache-2.0
"""The Mask pair (aclnnMaxPool2dWithMask[Backward]) from Python, as PyTorch's Ascend plugin uses it
on A2/A3: the mask's int32 indices and the gradients equal PyTorch's max_pool2d_with_indices and its
backward on random cases; refused on Ascend950; the golden CLI writes the mask."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import poolgrad


@pytest.fixture
def a2():
    poolgrad.set_product("Ascend910B")
    yield
    poolgrad.set_product("Ascend950")


def _cases(n):
    rng = np.random.default_rng(15)
    for _ in range(n):
        k = int(rng.integers(2, 5))
        yield dict(k=k, s=int(rng.integers(1, 4)), p=int(rng.integers(0, k // 2 + 1)),
                   ceil=bool(rng.integers(0, 2)), rank3=bool(rng.integers(0, 4) == 0),
                   dtype=[torch.float32, torch.float16, torch.bfloat16][int(rng.integers(0, 3))],
                   shape=(int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(k, 14)),
                          int(rng.integers(k, 14))))


@pytest.mark.parametrize("case", list(_cases(40)))
def test_mask_pair_matches_torch(a2, case):
    torch.manual_seed(0)
    x = torch.randn(case["shape"]).to(case["dtype"])
    if case["rank3"]:
        x = x[0]
    k, s, p, ceil = case["k"], case["s"], case["p"], case["ceil"]
    out_t, idx_t = torch.ops.aten.max_pool2d_with_indices(x, [k, k], [s, s], [p, p], [1, 1], ceil)
    out, mask = poolgrad.max_pool2d_with_mask(x, k, s, p, 1, ceil)
    assert mask.dtype == torch.int8
    ho, wo = out_t.shape[-2:]
    assert list(mask.shape) == list(x.shape[:-2]) + [k * k, ((ho * wo + 15) // 16 + 1) * 32]
    assert torch.equal(out, out_t)
    flat = mask.contiguous().view(-1).numpy().view(np.int32)  # the bytes as little-endian int32
    n = idx_t.numel()
    assert np.array_equal(flat[:n], idx_t.reshape(-1).numpy())
    assert not flat[n:].any()
    gy = torch.randn(out_t.shape).to(case["dtype"])
    gx = poolgrad.max_pool2d_with_mask_backward(gy, x, mask, k, s, p, 1, ceil)
    gx_t = torch.ops.aten.max_pool2d_with_indices_backward(gy.float(), x.float(), [k, k], [s, s], [p, p],
                                                           [1, 1], ceil, idx_t).to(case["dtype"])
    assert torch.equal(gx, gx_t)


def test_unit_window_mask_is_not_read(a2):
    # FPN's extra level: max_pool2d(kernel_size=1, stride=2).
    x = torch.randn(2, 3, 9, 9)
    out, mask = poolgrad.max_pool2d_with_mask(x, 1, 2)
    assert torch.equal(out, x[:, :, ::2, ::2])
    gy = torch.randn(out.shape)
    junk = torch.randint(-128, 127, mask.shape, dtype=torch.int8)
    gx = poolgrad.max_pool2d_with_mask_backward(gy, x, junk, 1, 2)
    want = torch.zeros_like(x)
    want[:, :, ::2, ::2] = gy
    assert torch.equal(gx, want)


def test_refused_on_ascend950():
    with pytest.raises(poolgrad.PoolgradError) as e:
        poolgrad.max_pool2d_with_mask(np.zeros((1, 1, 4, 4), np.float32), 2)
    assert e.value.status == 161002
    assert "use aclnnMaxPool2dWithIndices" in e.value.message
    with pytest.raises(poolgrad.PoolgradError):
        poolgrad.set_product("Ascend310P")


def test_golden_cli_writes_the_mask(tmp_path):
    x = np.random.default_rng(3).standard_normal((1, 2, 6, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    run = [sys.executable, "-m", "poolgrad", "golden"]
    r = subprocess.run(run + ["max-pool2d-mask", "--input", str(tmp_path / "x.npy"), "--kernel", "2",
                              "--out-dir", str(tmp_path / "f")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    mask = np.load(tmp_path / "f" / "mask.npy")
    assert mask.dtype == np.int8 and mask.shape == (1, 2, 4, 64)
    _, idx = poolgrad.max_pool2d_with_indices(x, 2, index_dtype="int32")
    assert np.array_equal(mask.reshape(-1).view(np.int32)[:idx.size], idx.reshape(-1))
    np.save(tmp_path / "gy.npy", np.ones((1, 2, 3, 3), np.float32))
    r = subprocess.run(run + ["max-pool2d-mask-backward", "--input", str(tmp_path / "x.npy"),
                              "--grad-output", str(tmp_path / "gy.npy"), "--mask", str(tmp_path / "f" / "mask.npy"),
                              "--kernel", "2", "--out-dir", str(tmp_path / "b")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    gx = np.load(tmp_path / "b" / "grad_input.npy")
    assert gx.sum() == 18
