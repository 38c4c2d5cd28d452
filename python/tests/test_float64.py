# SPDX-License-Identifier: Apache-2.0
"""float64 through poolgrad.torch (the library's DOUBLE extension, computed in double): torch's
own numbers bit for bit, and torch.autograd.gradcheck / gradgradcheck on every layer."""
import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

import poolgrad.torch as pgt


def _x(*shape, seed=0, channels_last=False):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, dtype=torch.float64, generator=g)
    if channels_last:
        x = x.to(memory_format=torch.channels_last if x.dim() == 4 else torch.channels_last_3d)
    return x.requires_grad_()


LAYERS = {
    "MaxPool2d": (lambda: pgt.MaxPool2d(3, 2, 1, ceil_mode=True), torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True),
                  (2, 3, 9, 8)),
    "MaxPool2d-dilated": (lambda: pgt.MaxPool2d((2, 3), 1, (1, 0), dilation=2),
                          torch.nn.MaxPool2d((2, 3), 1, (1, 0), dilation=2), (1, 2, 7, 9)),
    "MaxPool3d": (lambda: pgt.MaxPool3d(2, (1, 2, 2), 1), torch.nn.MaxPool3d(2, (1, 2, 2), 1), (1, 2, 4, 5, 5)),
    "AdaptiveMaxPool2d": (lambda: pgt.AdaptiveMaxPool2d((3, 4)), torch.nn.AdaptiveMaxPool2d((3, 4)), (2, 2, 7, 9)),
    "AdaptiveMaxPool3d": (lambda: pgt.AdaptiveMaxPool3d((2, 3, 2)), torch.nn.AdaptiveMaxPool3d((2, 3, 2)),
                          (1, 2, 5, 6, 4)),
}


@pytest.mark.parametrize("name", LAYERS)
@pytest.mark.parametrize("channels_last", [False, True])
def test_float64_layers_equal_torch_and_pass_gradcheck(name, channels_last):
    make, twin, shape = LAYERS[name]
    layer = make()
    x = _x(*shape, channels_last=channels_last)
    y = layer(x)
    ref = twin(x)
    assert y.dtype == torch.float64 and torch.equal(y, ref)
    mf = torch.channels_last if x.dim() == 4 else torch.channels_last_3d
    assert y.is_contiguous(memory_format=mf) == ref.is_contiguous(memory_format=mf)  # torch's layout
    g = torch.randn_like(y)
    (gx,) = torch.autograd.grad(y, x, g)
    (rgx,) = torch.autograd.grad(ref, x, g)
    assert gx.dtype == torch.float64 and torch.equal(gx, rgx)
    assert gradcheck(layer, (x,)) and gradgradcheck(layer, (x,))


def test_float64_max_unpool_passes_gradcheck():
    _, i2 = pgt.max_pool2d(torch.randn(2, 3, 6, 6, dtype=torch.float64), 2, return_indices=True)
    _, i3 = pgt.max_pool3d(torch.randn(1, 2, 4, 4, 4, dtype=torch.float64), 2, return_indices=True)
    x2, x3 = _x(2, 3, 3, 3), _x(1, 2, 2, 2, 2, seed=1)
    f2 = lambda t: pgt.max_unpool2d(t, i2, 2)  # noqa: E731
    f3 = lambda t: pgt.max_unpool3d(t, i3, 2)  # noqa: E731
    assert torch.equal(f2(x2), torch.nn.functional.max_unpool2d(x2, i2, 2))
    assert gradcheck(f2, (x2,)) and gradgradcheck(f2, (x2,))
    assert gradcheck(f3, (x3,)) and gradgradcheck(f3, (x3,))


def test_float64_differences_below_float32_precision_are_kept():
    # Values 1 + k * 2^-40 are all 1.0 in float32: a kernel that narrowed would pick the first.
    x = (1 + torch.arange(16, dtype=torch.float64).flip(0) * 2.0**-40).reshape(1, 1, 4, 4)
    y, idx = pgt.max_pool2d(x, 2, return_indices=True)
    assert idx.flatten().tolist() == [0, 2, 8, 10]
    assert torch.equal(y, torch.nn.functional.max_pool2d(x, 2))


def test_float64_roi_pool_passes_gradcheck_and_equals_float32_bins():
    # CANN's geometry is float32's (the ROIs read as float32), so float64 pools the same bins;
    # the values compare in double.
    x = _x(2, 3, 8, 9, seed=2)
    rois = torch.tensor([[0., 0, 0, 5, 5], [1, 2, 1, 8, 7], [0, 3, 3, 3, 3], [1, -2, -2, 20, 20]],
                        dtype=torch.float64)
    layer = pgt.RoIPool((3, 2), 0.9)
    f = lambda t: layer(t, rois)  # noqa: E731
    y = f(x)
    assert y.dtype == torch.float64
    assert torch.equal(y.float(), layer(x.detach().float(), rois.float()))
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("sampling_ratio", [0, 2])
def test_float64_roi_align_equals_torchvision_and_passes_gradcheck(aligned, sampling_ratio):
    import torchvision
    x = _x(2, 3, 8, 9, seed=3)
    rois = torch.tensor([[0., 0.3, 0.1, 5.2, 5.9], [1, 2, 1, 8, 7], [0, 3.5, 3.1, 3.7, 3.9],
                         [1, -2, -2, 20, 20]], dtype=torch.float64)
    layer = pgt.RoIAlign((3, 2), 0.5, sampling_ratio, aligned)
    f = lambda t: layer(t, rois)  # noqa: E731
    y = f(x)
    ref = torchvision.ops.roi_align(x, rois, (3, 2), 0.5, sampling_ratio, aligned)
    assert y.dtype == torch.float64 and torch.equal(y, ref)  # torchvision's float64 kernel, bit for bit
    g = torch.randn_like(y)
    assert torch.equal(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(ref, x, g)[0])
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))
