# SPDX-License-Identifier: Apache-2.0
"""MaxUnpool from Python: poolgrad's NumPy functions and poolgrad.torch's functions and modules
against torch.nn.functional.max_unpool2d / 3d bit for bit (values, gradients, second order),
duplicates against torch at one thread, every dtype, the registered ops under opcheck, compile
and export, and the golden CLI."""
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import poolgrad
import poolgrad.torch as pgt

torch.manual_seed(0)


def distinct_indices(shape, plane, rng, dtype=np.int64):
    """Distinct positions of each output plane for an input of `shape`."""
    k = len(plane)
    planes, size = int(np.prod(shape[:-k])), int(np.prod(shape[-k:]))
    flat = np.stack([rng.permutation(int(np.prod(plane)))[:size] for _ in range(max(planes, 1))])[:planes]
    return flat.reshape(shape).astype(dtype)


def reference_unpool(x, idx, plane):
    """The rule, element by element: each plane zero-filled, then out[idx[i]] = x[i] in order."""
    k = len(plane)
    lead = x.shape[:-k]
    xs, ids = x.reshape(-1, int(np.prod(x.shape[-k:]))), idx.reshape(-1, int(np.prod(x.shape[-k:])))
    out = np.zeros((xs.shape[0], int(np.prod(plane))), x.dtype)
    for p in range(xs.shape[0]):
        for i in range(xs.shape[1]):
            out[p, ids[p, i]] = xs[p, i]
    return out.reshape(lead + tuple(plane))


CASES_2D = [((2, 3, 4, 5), (8, 10)), ((3, 4, 4), (5, 7)), ((1, 2, 3, 3), (9, 1)), ((0, 2, 3, 3), (4, 4))]


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8", "uint8", "int16", "int32", "int64"])
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("shape,size", CASES_2D)
def test_numpy_max_unpool2d_equals_torch(dtype, index_dtype, shape, size):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 50).astype(dtype)
    idx = distinct_indices(shape, size, rng, index_dtype)
    got = poolgrad.max_unpool2d(x, idx, size)
    assert got.dtype == x.dtype and np.array_equal(got, reference_unpool(x, idx, size))
    if dtype.startswith("float"):  # torch's CPU max_unpool2d takes floating dtypes only
        want = torch.ops.aten.max_unpool2d(torch.from_numpy(x), torch.from_numpy(idx.astype(np.int64)), list(size))
        assert np.array_equal(got, want.numpy())
    gy = (rng.standard_normal(got.shape) * 50).astype(dtype if dtype != "float64" else "float32")
    if dtype != "float64":  # CANN's 2-D backward has no DOUBLE
        gx = poolgrad.max_unpool2d_backward(gy, x, idx)
        flat = gy.reshape(gy.shape[:-2] + (size[0] * size[1],))
        at = idx.astype(np.int64).reshape(idx.shape[:-2] + (shape[-2] * shape[-1],))
        want_gx = np.take_along_axis(flat, at, -1)
        assert np.array_equal(gx, want_gx.reshape(x.shape))


@pytest.mark.parametrize("shape,size", [((2, 2, 2, 3, 3), (4, 6, 6)), ((3, 2, 2, 2), (2, 4, 4))])
def test_numpy_max_unpool3d_equals_torch(shape, size):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    idx = distinct_indices(shape, size, rng)
    got = poolgrad.max_unpool3d(x, idx, size)
    want = torch.ops.aten.max_unpool3d(torch.from_numpy(x), torch.from_numpy(idx), list(size), [2, 2, 2], [0, 0, 0])
    assert np.array_equal(got, want.numpy())
    gx = poolgrad.max_unpool3d_backward(np.ones(got.shape, np.float32) * 3, x, idx)
    assert np.array_equal(gx, np.full(x.shape, 3, np.float32))


def test_duplicates_the_later_input_wins_as_torch_at_one_thread():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    idx = rng.integers(0, 9, (2, 3, 3, 3))  # positions drawn with repeats
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        want = torch.ops.aten.max_unpool2d(torch.from_numpy(x), torch.from_numpy(idx), [3, 3])
    finally:
        torch.set_num_threads(before)
    for threads in (1, 2, 3):
        poolgrad.set_num_threads(threads)
        assert np.array_equal(poolgrad.max_unpool2d(x, idx, (3, 3)), want.numpy())
    poolgrad.set_num_threads(0)


def test_an_index_outside_the_plane_is_named():
    x = np.ones((1, 2, 2, 2), np.float32)
    idx = np.zeros((1, 2, 2, 2), np.int64)
    idx[0, 1, 1, 0] = 16
    with pytest.raises(poolgrad.PoolgradError, match=r"indices\[0,1,1,0\]=16 must be in \[0, .*=16\)") as e:
        poolgrad.max_unpool2d(x, idx, (4, 4))
    assert e.value.status == 161002
    with pytest.raises(poolgrad.PoolgradError, match=r"indices\[0,1,1,0\]=16"):
        pgt.max_unpool2d(torch.from_numpy(x), torch.from_numpy(idx), 2)


@pytest.mark.parametrize("spatial", [2, 3])
@pytest.mark.parametrize("batched", [True, False])
def test_torch_layers_equal_torch_values_and_gradients(spatial, batched):
    shape = (2, 3, 8, 10) if spatial == 2 else (2, 2, 4, 6, 6)
    if not batched:
        shape = shape[1:]
    x = torch.randn(shape)
    pool, unpool = (F.max_pool2d, F.max_unpool2d) if spatial == 2 else (F.max_pool3d, F.max_unpool3d)
    mine_layer = (pgt.MaxUnpool2d if spatial == 2 else pgt.MaxUnpool3d)(2)
    assert isinstance(mine_layer, torch.nn.MaxUnpool2d if spatial == 2 else torch.nn.MaxUnpool3d)
    y, i = pool(x, 2, return_indices=True)
    a = y.clone().requires_grad_(True)
    b = y.clone().requires_grad_(True)
    size = x.shape[-spatial:]
    out_mine, out_torch = mine_layer(a, i, output_size=size), unpool(b, i, 2, output_size=size)
    assert torch.equal(out_mine, out_torch)
    g = torch.randn_like(out_torch)
    out_mine.backward(g)
    out_torch.backward(g)
    assert torch.equal(a.grad, b.grad)


def test_second_order_gradients_equal_torchs():
    x = torch.randn(2, 3, 8, 8)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    grads = []
    for unpool in (lambda t: pgt.max_unpool2d(t, i, 2), lambda t: F.max_unpool2d(t, i, 2)):
        t = y.clone().requires_grad_(True)
        out = unpool(t)
        (gt,) = torch.autograd.grad((out * out).sum(), t, create_graph=True)
        (gg,) = torch.autograd.grad((gt * gt).sum(), t)
        grads.append((gt.detach(), gg))
    assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])


def test_segnet_round_trip_with_poolgrads_max_pool():
    x = torch.randn(1, 4, 12, 12)
    y, i = pgt.max_pool2d(x, 2, return_indices=True)
    up = pgt.MaxUnpool2d(2)(y, i)
    assert torch.equal(up, F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2))


def test_convert_swaps_unpool_layers():
    m = torch.nn.Sequential(torch.nn.MaxUnpool2d(2), torch.nn.MaxUnpool3d(2))
    pgt.convert(m)
    assert type(m[0]) is pgt.MaxUnpool2d and type(m[1]) is pgt.MaxUnpool3d


def test_opcheck_every_unpool_op():
    x = torch.randn(2, 3, 4, 4, requires_grad=True)
    i = torch.from_numpy(distinct_indices((2, 3, 4, 4), (8, 8), np.random.default_rng(4)))
    ops = torch.ops.poolgrad
    torch.library.opcheck(ops.max_unpool2d, (x, i, [8, 8]))
    torch.library.opcheck(ops.max_unpool2d_backward, (torch.randn(2, 3, 8, 8, requires_grad=True), x, i, [8, 8]))
    x3 = torch.randn(1, 2, 2, 3, 3, requires_grad=True)
    i3 = torch.from_numpy(distinct_indices((1, 2, 2, 3, 3), (4, 6, 6), np.random.default_rng(5)))
    torch.library.opcheck(ops.max_unpool3d, (x3, i3, [4, 6, 6], [2, 2, 2], [0, 0, 0]))
    torch.library.opcheck(ops.max_unpool3d_backward,
                          (torch.randn(1, 2, 4, 6, 6, requires_grad=True), x3, i3, [4, 6, 6], [2, 2, 2], [0, 0, 0]))


def test_compiles_fullgraph_and_exports():
    class Net(torch.nn.Module):
        def forward(self, x):
            y, i = pgt.max_pool2d(x, 2, return_indices=True)
            return pgt.max_unpool2d(y, i, 2)

    x = torch.randn(2, 3, 8, 8)
    want = Net()(x)
    assert torch.equal(torch.compile(Net(), fullgraph=True, backend="aot_eager")(x), want)
    ep = torch.export.export(Net(), (x,))
    assert "poolgrad.max_unpool2d" in str(ep.graph)
    assert torch.equal(ep.module()(x), want)


def test_golden_cli_unpools(tmp_path):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 3, 3)).astype(np.float32)
    idx = distinct_indices(x.shape, (6, 6), rng)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "i.npy", idx)
    r = subprocess.run([sys.executable, "-m", "poolgrad", "golden", "max-unpool2d", "--input", str(tmp_path / "x.npy"),
                        "--indices", str(tmp_path / "i.npy"), "--output-size", "6,6", "--out-dir", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert np.array_equal(np.load(tmp_path / "out.npy"), poolgrad.max_unpool2d(x, idx, (6, 6)))
