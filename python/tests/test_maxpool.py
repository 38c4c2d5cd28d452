# SPDX-License-Identifier: Apache-2.0
"""Max pooling through the Python package against PyTorch (values, indices, autograd)."""
import numpy as np
import pytest
import torch

import poolgrad
import poolgrad.torch as pgt

DTYPES = [torch.float32, torch.float16, torch.bfloat16]

CASES = [
    # shape, kernel, stride, padding, dilation, ceil
    ((2, 3, 9, 11), 3, 2, 1, 1, False),
    ((2, 3, 9, 11), 3, 2, 1, 1, True),
    ((1, 4, 8, 8), 2, None, 0, 1, False),
    ((2, 2, 10, 7), (3, 2), (2, 1), (1, 0), (2, 1), True),
    ((3, 5, 6), 2, 1, 1, 1, False),              # 3-D input
    ((2, 3, 12, 12), 3, 1, 1, 2, False),        # dilation
    ((1, 2, 5, 5), 4, 3, 2, 1, True),           # ceil with the drop rule
]


def _input(shape, dtype, seed=0, channels_last=False):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randint(-4, 5, shape, generator=g).float() / 2).to(dtype)  # ties
    if channels_last and x.dim() == 4:
        x = x.contiguous(memory_format=torch.channels_last)
    return x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_forward_and_backward_match_pytorch(dtype, case, channels_last):
    shape, k, s, p, d, ceil = case
    x = _input(shape, dtype, channels_last=channels_last)
    ref_out, ref_idx = torch.nn.functional.max_pool2d(x, k, s, p, d, ceil, return_indices=True)
    out, idx = poolgrad.max_pool2d_with_indices(x, k, s, p, d, ceil)
    assert isinstance(out, torch.Tensor) and out.dtype == dtype and idx.dtype == torch.int64
    assert torch.equal(out, ref_out)
    assert torch.equal(idx, ref_idx)
    if channels_last and x.dim() == 4:
        assert out.is_contiguous(memory_format=torch.channels_last)
    # Gradients equal PyTorch autograd (float32 exactly; half types accumulate in float32 here).
    gy = torch.randn(ref_out.shape, generator=torch.Generator().manual_seed(1)).to(dtype)
    xr = x.clone().requires_grad_(True)
    torch.nn.functional.max_pool2d(xr, k, s, p, d, ceil).backward(gy)
    xp = x.clone().requires_grad_(True)
    pgt.max_pool2d(xp, k, s, p, d, ceil).backward(gy)
    if dtype == torch.float32:
        assert torch.equal(xp.grad, xr.grad)
    else:
        torch.testing.assert_close(xp.grad.float(), xr.grad.float(), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("shape,ceil", [((2, 3, 9, 70), False), ((2, 3, 9, 71), True), ((4, 33, 64), False)])
def test_gather_path_matches_pytorch(shape, ceil):
    # 2x2 windows at stride 2 with INT32 indices on planes of >= 16 output columns take the
    # write-only gather in the C library; PyTorch's backward (int64 indices) is the oracle.
    x = torch.randn(shape, generator=torch.Generator().manual_seed(3))
    x.view(-1)[::7] = 0.0  # ties inside windows
    ref_out, ref_idx = torch.nn.functional.max_pool2d(x, 2, 2, 0, 1, ceil, return_indices=True)
    out, idx32 = poolgrad.max_pool2d_with_indices(x, 2, 2, 0, 1, ceil, index_dtype="int32")
    assert torch.equal(idx32.long(), ref_idx)
    gy = torch.randn(ref_out.shape, generator=torch.Generator().manual_seed(4))
    gy.view(-1)[::5] = -0.0
    ref = torch.ops.aten.max_pool2d_with_indices_backward(gy, x, [2, 2], [2, 2], [0, 0], [1, 1], ceil, ref_idx)
    gx = poolgrad.max_pool2d_with_indices_backward(gy, x, idx32, 2, 2, 0, 1, ceil)
    assert torch.equal(gx, ref)
    assert torch.equal(torch.signbit(gx), torch.signbit(ref))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_16bit_forward_large_planes_bit_exact(dtype):
    # 16 MB of outputs: the AVX2 plan scans bfloat16 / float16 planes as int16 keys and streams
    # whole planes out as the dtype's bits. Planes holding -0.0 or NaN take the float32 scan; all
    # must equal PyTorch bit for bit (the sign of a zero included) with the same indices.
    x = torch.randn((8, 64, 112, 112), generator=torch.Generator().manual_seed(5)).to(dtype)
    x[1].view(-1)[::97] = -0.0
    x[2].view(-1)[5::1013] = float("nan")
    x[3].zero_()
    x[3].view(-1)[::3] = -0.0
    for view in (x, x[:, ::2, :, 1:]):  # and rows that are not whole planes
        ref_out, ref_idx = torch.nn.functional.max_pool2d(view, 3, 2, 1, return_indices=True)
        out, idx = pgt.max_pool2d(view, 3, 2, 1, return_indices=True)
        assert torch.equal(idx, ref_idx)
        nan = torch.isnan(ref_out)
        assert torch.equal(torch.isnan(out), nan)
        assert torch.equal(out.view(torch.int16)[~nan], ref_out.view(torch.int16)[~nan])


def test_int32_indices_and_numpy_io():
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    out, idx = poolgrad.max_pool2d_with_indices(x, 2, index_dtype="int32")
    assert isinstance(out, np.ndarray) and idx.dtype == np.int32
    ref_out, ref_idx = torch.nn.functional.max_pool2d(torch.from_numpy(x), 2, return_indices=True)
    np.testing.assert_array_equal(out, ref_out.numpy())
    np.testing.assert_array_equal(idx, ref_idx.numpy())
    gy = np.ones_like(out)
    gx = poolgrad.max_pool2d_with_indices_backward(gy, x, idx, 2)
    assert isinstance(gx, np.ndarray) and gx.shape == x.shape and gx.sum() == gy.sum()


def test_strided_views_are_not_copied_and_are_correct():
    base = torch.randn(2, 6, 10, 14)
    x = base[:, ::2, 1:, ::2]  # non-contiguous view
    out, idx = poolgrad.max_pool2d_with_indices(x, 3, 2, 1)
    ref_out, ref_idx = torch.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True)
    assert torch.equal(out, ref_out) and torch.equal(idx, ref_idx)
    gy = torch.randn(ref_out.shape).t() if False else torch.randn(ref_out.shape)
    gx = poolgrad.max_pool2d_with_indices_backward(gy[..., :], x, idx, 3, 2, 1)
    ref = torch.ops.aten.max_pool2d_with_indices_backward(gy, x, [3, 3], [2, 2], [1, 1], [1, 1], False, ref_idx)
    assert torch.equal(gx, ref)


def test_module_mirrors_torch_module():
    m = pgt.MaxPool2d(3, stride=2, padding=1, return_indices=True, ceil_mode=True)
    ref = torch.nn.MaxPool2d(3, stride=2, padding=1, return_indices=True, ceil_mode=True)
    x = torch.randn(2, 3, 11, 11)
    (a, ai), (b, bi) = m(x), ref(x)
    assert torch.equal(a, b) and torch.equal(ai, bi)


def test_small_cnn_trains_like_torch():
    torch.manual_seed(0)

    def net(pool):
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), pool,
                                   torch.nn.Flatten(), torch.nn.Linear(8 * 8 * 8, 10))

    a = net(pgt.MaxPool2d(2))
    b = net(torch.nn.MaxPool2d(2))
    b.load_state_dict(a.state_dict())
    opt_a = torch.optim.SGD(a.parameters(), lr=0.1)
    opt_b = torch.optim.SGD(b.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(3)
    for _ in range(4):
        x = torch.randn(4, 3, 16, 16, generator=g)
        y = torch.randint(0, 10, (4,), generator=g)
        for model, opt in ((a, opt_a), (b, opt_b)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
        for pa, pb in zip(a.parameters(), b.parameters()):
            assert torch.equal(pa.grad, pb.grad)
        opt_a.step()
        opt_b.step()
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


@pytest.mark.parametrize("call,status,needle", [
    (lambda: poolgrad.max_pool2d_with_indices(torch.randn(4, 4), 2), 161002, "3-D or 4-D"),
    (lambda: poolgrad.max_pool2d_with_indices(torch.randn(1, 1, 4, 4), 2, padding=2), 161002, "padding[0]=2"),
    (lambda: poolgrad.max_pool2d_with_indices(torch.randn(1, 1, 4, 4), 0), 161002, "kernelSize[0]"),
    (lambda: poolgrad.max_pool2d_with_indices(torch.randn(1, 1, 2, 2), 5), 161002, "output size"),
    (lambda: poolgrad.max_pool2d_with_indices(torch.zeros(1, 1, 4, 4, dtype=torch.int32), 2), 161002, "self dtype"),
    (lambda: poolgrad.max_pool2d_with_indices(None, 2), 161001, "x"),
    (lambda: poolgrad.max_pool2d_with_indices([[1.0]], 2), 161002, "DLPack"),
    (lambda: poolgrad.max_pool2d_with_indices(torch.randn(1, 1, 4, 4), 2, index_dtype="int8"), 161002, "index_dtype"),
    (lambda: poolgrad.max_pool2d_with_indices_backward(
        torch.ones(1, 1, 2, 2), torch.ones(1, 1, 4, 4), torch.full((1, 1, 2, 2), 99), 2), 161002, "indices[0,0,0,0]=99"),
    (lambda: poolgrad.max_pool2d_with_indices_backward(
        torch.ones(1, 1, 3, 2), torch.ones(1, 1, 4, 4), torch.zeros(1, 1, 3, 2, dtype=torch.int64), 2), 161002,
     "gradOutput shape"),
])
def test_errors_raise_poolgrad_error(call, status, needle):
    with pytest.raises(poolgrad.PoolgradError) as e:
        call()
    assert e.value.status == status
    assert isinstance(e.value, ValueError)
    assert needle in str(e.value)


def test_threads_setting():
    poolgrad.set_num_threads(3)
    assert poolgrad.get_num_threads() == 3
