# SPDX-License-Identifier: Apache-2.0
"""aclnnMaxPool3dWithArgmax(Backward) and aclnnAdaptiveMaxPool3d(Backward) from Python against
PyTorch's max_pool3d_with_indices / adaptive_max_pool3d and their backwards: values, indices and
gradients (float32 bitwise: the same scan and summation order; float16 / bfloat16 equal to
PyTorch's float32 result rounded once), ceil mode, padding, dilation, overlapping bins, 4-D inputs,
strided and channels-last views, empty batches, NaN; and the poolgrad.torch layers MaxPool3d,
AdaptiveMaxPool2d, AdaptiveMaxPool3d against torch.nn's in a training step."""
import numpy as np
import pytest
import torch

import poolgrad
import poolgrad.torch as pgt

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def _views(x, rng):
    """x as it is, as a strided view, or as a channels-last (NDHWC-strided) view."""
    kind = int(rng.integers(0, 3))
    if kind == 1:
        big = torch.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype)
        big[..., ::2] = x
        return big[..., ::2]
    if kind == 2 and x.dim() == 5:
        return x.contiguous(memory_format=torch.channels_last_3d)
    return x


def _pool_cases(n):
    rng = np.random.default_rng(3)
    for _ in range(n):
        k = [int(rng.integers(1, 4)) for _ in range(3)]
        s = [int(rng.integers(1, 3)) for _ in range(3)]
        p = [int(rng.integers(0, v // 2 + 1)) for v in k]
        d = [int(rng.choice([1, 1, 2])) for _ in range(3)]
        ceil = bool(rng.integers(0, 2))
        shape = [int(rng.integers(0, 3)), int(rng.integers(1, 4))]
        for i in range(3):
            size = int(rng.integers(1, 9))
            while size + 2 * p[i] - d[i] * (k[i] - 1) - 1 < 0:  # every axis has an output
                size += 1
            shape.append(size)
        yield dict(shape=shape, k=k, s=s, p=p, d=d, ceil=ceil, rank4=bool(rng.integers(0, 4) == 0),
                   dtype=DTYPES[int(rng.integers(0, 3))], seed=int(rng.integers(0, 1 << 30)))


@pytest.mark.parametrize("case", list(_pool_cases(150)) + [
    dict(shape=[2, 4, 8, 28, 28], k=[3] * 3, s=[2] * 3, p=[1] * 3, d=[1] * 3, ceil=False, rank4=False,
         dtype=torch.float32, seed=1)])
def test_max_pool3d_matches_torch(case):
    rng = np.random.default_rng(case["seed"])
    torch.manual_seed(case["seed"])
    x = (torch.randint(-6, 7, case["shape"]) / 2).to(case["dtype"])  # ties on purpose
    x[torch.rand(x.shape) < 0.02] = float("nan")
    if case["rank4"]:
        x = x[0] if x.shape[0] else x  # an empty batch stays 5-D
    k, s, p, d, c = case["k"], case["s"], case["p"], case["d"], case["ceil"]
    out_t, idx_t = torch.ops.aten.max_pool3d_with_indices(x.float(), k, s, p, d, c)
    xv = _views(x, rng)
    out, idx = poolgrad.max_pool3d_with_indices(xv, k, s, p, d, c)
    assert torch.equal(idx, idx_t)
    assert torch.equal(out.isnan(), out_t.isnan())
    assert torch.equal(out.nan_to_num(), out_t.to(case["dtype"]).nan_to_num())
    gy = torch.randn(out.shape).to(case["dtype"])
    gx = poolgrad.max_pool3d_with_indices_backward(_views(gy, rng), xv, idx.to(torch.int32), k, s, p, d, c)
    gx_t = torch.ops.aten.max_pool3d_with_indices_backward(gy.float(), x.float(), k, s, p, d, c, idx_t)
    assert torch.equal(gx, gx_t.to(case["dtype"]))


def _adaptive_cases(n):
    rng = np.random.default_rng(33)
    for _ in range(n):
        yield dict(shape=[int(rng.integers(0, 3)), int(rng.integers(1, 4))] + [int(rng.integers(1, 12)) for _ in range(3)],
                   out=[int(rng.integers(1, 7)) for _ in range(3)], rank4=bool(rng.integers(0, 4) == 0),
                   dtype=DTYPES[int(rng.integers(0, 3))], seed=int(rng.integers(0, 1 << 30)))


@pytest.mark.parametrize("case", list(_adaptive_cases(120)) + [
    dict(shape=[2, 8, 3, 37, 37], out=[2, 7, 7], rank4=False, dtype=torch.float32, seed=2),
    dict(shape=[2, 8, 4, 20, 20], out=[1, 1, 1], rank4=False, dtype=torch.float32, seed=3)])
def test_adaptive_max_pool3d_matches_torch(case):
    rng = np.random.default_rng(case["seed"])
    torch.manual_seed(case["seed"])
    x = (torch.randint(-6, 7, case["shape"]) / 2).to(case["dtype"])
    x[torch.rand(x.shape) < 0.02] = float("nan")
    if case["rank4"]:
        x = x[0] if x.shape[0] else x  # an empty batch stays 5-D
    if x.numel() == 0:  # torch's adaptive_max_pool3d refuses an empty batch; poolgrad returns empties
        out, idx = poolgrad.adaptive_max_pool3d(x, case["out"])
        assert out.shape == x.shape[:2] + tuple(case["out"])
        return
    out_t, idx_t = torch.ops.aten.adaptive_max_pool3d(x.float(), case["out"])
    xv = _views(x, rng)
    out, idx = poolgrad.adaptive_max_pool3d(xv, case["out"])
    assert torch.equal(idx, idx_t)
    assert torch.equal(out.isnan(), out_t.isnan())
    assert torch.equal(out.nan_to_num(), out_t.to(case["dtype"]).nan_to_num())
    gy = torch.randn(out.shape).to(case["dtype"])
    gx = poolgrad.adaptive_max_pool3d_backward(_views(gy, rng), xv, idx)
    gx_t = torch.ops.aten.adaptive_max_pool3d_backward(gy.float(), x.float(), idx_t)
    assert torch.equal(gx, gx_t.to(case["dtype"]))


def test_numpy_and_errors():
    x = np.arange(2 * 3 * 4 * 6 * 6, dtype=np.float32).reshape(2, 3, 4, 6, 6)
    out, idx = poolgrad.max_pool3d_with_indices(x, 2)
    assert isinstance(out, np.ndarray) and out.shape == (2, 3, 2, 3, 3) and idx.dtype == np.int64
    assert idx[0, 0, 0, 0, 0] == 6 + 1 + 36  # the last element of the first 2x2x2 window
    with pytest.raises(poolgrad.PoolgradError, match="padding must be <= kernelSize/2"):
        poolgrad.max_pool3d_with_indices(x, 2, padding=2)
    with pytest.raises(poolgrad.PoolgradError, match="must be 4-D or 5-D"):
        poolgrad.max_pool3d_with_indices(x[0, 0], 2)
    bad = idx.copy()
    bad[1, 2, 1, 2, 2] = 144
    with pytest.raises(poolgrad.PoolgradError, match=r"indices\[1,2,1,2,2\]=144"):
        poolgrad.max_pool3d_with_indices_backward(out, x, bad, 2)
    poolgrad.set_product("Ascend910B")
    try:
        with pytest.raises(poolgrad.PoolgradError, match="INT32 only on Ascend910B"):
            poolgrad.max_pool3d_with_indices(x, 2)
        out32, idx32 = poolgrad.max_pool3d_with_indices(x, 2, index_dtype="int32")
        assert np.array_equal(idx32, idx) and np.array_equal(out32, out)
    finally:
        poolgrad.set_product("Ascend950")


@pytest.mark.parametrize("product", ["Ascend950", "Ascend910B"])
def test_layers_train_like_torch_nn(product):
    """A few steps of a small 3-D CNN with each layer: the same losses and gradients as torch.nn."""
    poolgrad.set_product(product)
    try:
        for mine, ref, shape in [
                (pgt.MaxPool3d(3, 2, 1), torch.nn.MaxPool3d(3, 2, 1), (2, 3, 6, 10, 10)),
                (pgt.MaxPool3d((1, 2, 2), ceil_mode=True), torch.nn.MaxPool3d((1, 2, 2), ceil_mode=True),
                 (2, 3, 5, 9, 9)),
                (pgt.AdaptiveMaxPool3d((2, None, 3)), torch.nn.AdaptiveMaxPool3d((2, None, 3)), (2, 3, 5, 7, 9)),
                (pgt.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3), (2, 3, 10, 11))]:
            torch.manual_seed(0)
            conv = torch.nn.Conv3d(3, 4, 3, padding=1) if len(shape) == 5 else torch.nn.Conv2d(3, 4, 3, padding=1)
            x = torch.randn(shape)
            losses = []
            for pool in (mine, ref):
                torch.manual_seed(1)
                c = type(conv)(3, 4, 3, padding=1)
                opt = torch.optim.SGD(c.parameters(), lr=0.1)
                run = []
                for _ in range(3):
                    opt.zero_grad()
                    loss = pool(c(x)).square().mean()
                    loss.backward()
                    opt.step()
                    run.append(loss.item())
                losses.append((run, c.weight.grad.clone()))
            assert losses[0][0] == losses[1][0], repr(mine)
            assert torch.equal(losses[0][1], losses[1][1])
    finally:
        poolgrad.set_product("Ascend950")


def test_layers_return_indices_like_torch():
    x = torch.randn(2, 3, 6, 8, 8)
    out, idx = pgt.MaxPool3d(2, return_indices=True)(x)
    out_t, idx_t = torch.nn.MaxPool3d(2, return_indices=True)(x)
    assert idx.dtype == torch.int64 and torch.equal(idx, idx_t) and torch.equal(out, out_t)
    out, idx = pgt.adaptive_max_pool3d(x, 3, return_indices=True)
    out_t, idx_t = torch.nn.functional.adaptive_max_pool3d(x, 3, return_indices=True)
    assert torch.equal(idx, idx_t) and torch.equal(out, out_t)
    assert "output_size=3" in repr(pgt.AdaptiveMaxPool3d(3))
    assert "kernel_size=2" in repr(pgt.MaxPool3d(2))
