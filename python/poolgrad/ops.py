# SPDX-License-Identifier: Apache-2.0
"""poolgrad's operators in PyTorch (namespace ``poolgrad``): ``torch.ops.poolgrad.*``.

Each op has the schema of the operator it stands in for, so that it is drop-in:
``poolgrad::max_pool2d_with_indices(_backward)``, ``max_pool3d_with_indices(_backward)``,
``adaptive_max_pool2d(_backward)``, ``adaptive_max_pool3d(_backward)`` have ATen's schemas,
``poolgrad::roi_pool`` / ``_roi_pool_backward`` torchvision's (with CANN's RoI geometry),
``poolgrad::roi_align`` / ``_roi_align_backward`` torchvision's roi_align ones, ``roi_align_onnx``
poolgrad's own (ONNX's RoiAlign, no backward), and the Mask pair (no ATen twin) ATen's max-pool
schema with the mask in place of the indices.

The schemas, CPU kernels and autograd formulas (double backward included) are registered from C++
(python/src/torch_library.cpp and a file per family, torch_<family>.cpp: a Python kernel costs tens
of microseconds a call); this module loads that library and registers the fake (meta)
implementations, so that
torch.compile, torch.export and FakeTensor shape propagation see the ops. The library is built
against one torch version, as torchvision's ops are, and is refused under another. Errors raise
ValueError reading "[status] message" (PoolgradError, a ValueError, from poolgrad's functions);
tensors on another device are refused naming it. The ops follow the current product profile
(poolgrad.set_product) and torch's thread count.
"""
from __future__ import annotations

import os

import torch

from . import _torch_build


def _load():
    built = _torch_build.TORCH_VERSION
    if not built:
        raise ImportError("poolgrad was built without PyTorch, so it has no torch ops: install torch, then "
                          "reinstall poolgrad (`pip install .` in the environment that has torch; docs/pytorch.md)")
    if built != torch.__version__:
        raise ImportError(f"poolgrad's torch ops were built against torch {built}, but torch {torch.__version__} "
                          "is installed: reinstall poolgrad with `pip install .` "
                          "(a C++ extension is tied to the torch it was built with)")
    torch.ops.load_library(os.path.join(os.path.dirname(__file__), "_torch_ops.so"))


_load()
ops = torch.ops.poolgrad
# The same library as a Python module: the eager fast path of poolgrad.torch's pooling functions
# (python/src/torch_fast.cpp), the dispatcher call without the op's boxed argument parsing.
from . import _torch_ops as fast  # noqa: E402


# ---- fake (meta) implementations: shapes and dtypes ----------------------------------------------------
# The output shapes are PyTorch's (ATen's meta functions compute them, symbolic sizes included):
# CANN's output-size rules for these operators are the same as PyTorch's.
@torch.library.register_fake("poolgrad::max_pool2d_with_indices")
def _mp2_fake(x, k, s=(), p=(0,), d=(1,), ceil=False):
    return torch.ops.aten.max_pool2d_with_indices(x, k, list(s), list(p), list(d), ceil)


@torch.library.register_fake("poolgrad::max_pool3d_with_indices")
def _mp3_fake(x, k, s=(), p=(0,), d=(1,), ceil=False):
    return torch.ops.aten.max_pool3d_with_indices(x, k, list(s), list(p), list(d), ceil)


@torch.library.register_fake("poolgrad::max_pool2d_with_mask")
def _mm_fake(x, k, s=(), p=(0,), d=(1,), ceil=False):
    out, _ = torch.ops.aten.max_pool2d_with_indices(x, k, list(s), list(p), list(d), ceil)
    ho, wo = out.shape[-2], out.shape[-1]
    kk = k[0] * k[-1]
    mask = x.new_empty(list(x.shape[:-2]) + [kk, ((ho * wo + 15) // 16 + 1) * 32], dtype=torch.int8)
    return out, mask


@torch.library.register_fake("poolgrad::adaptive_max_pool2d")
def _am2_fake(x, size):
    return torch.ops.aten.adaptive_max_pool2d(x, size)


@torch.library.register_fake("poolgrad::adaptive_max_pool3d")
def _am3_fake(x, size):
    return torch.ops.aten.adaptive_max_pool3d(x, size)


@torch.library.register_fake("poolgrad::roi_pool")
def _roi_fake(x, rois, scale, ph, pw):
    shape = [rois.shape[0], x.shape[1], ph, pw]
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int32)


def _layout(x):
    """The kernels' layout (torch's too): a channels-last input keeps channels-last outputs."""
    if x.is_contiguous():
        return torch.contiguous_format
    if x.dim() == 4 and x.is_contiguous(memory_format=torch.channels_last):
        return torch.channels_last
    if x.dim() == 5 and x.is_contiguous(memory_format=torch.channels_last_3d):
        return torch.channels_last_3d
    return torch.contiguous_format


def _grad_input_fake(gy, x, *rest):
    return torch.empty_like(x, dtype=gy.dtype, memory_format=_layout(x))


def _grad_input_nchw_fake(gy, x, *rest):
    return x.new_empty(x.shape, dtype=gy.dtype)


for _name in ("max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
              "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward"):
    torch.library.register_fake("poolgrad::" + _name, _grad_input_fake)
torch.library.register_fake("poolgrad::max_pool2d_with_mask_backward", _grad_input_nchw_fake)


# MaxUnpool: outputs of x's dtype, contiguous; the gradient of self's shape and dtype.
@torch.library.register_fake("poolgrad::max_unpool2d")
def _unpool2d_fake(x, indices, size):
    return x.new_empty(list(x.shape[:-2]) + list(size))


@torch.library.register_fake("poolgrad::max_unpool3d")
def _unpool3d_fake(x, indices, size, stride, padding):
    return x.new_empty(list(x.shape[:-3]) + list(size))


for _name in ("max_unpool2d_backward", "max_unpool3d_backward"):
    torch.library.register_fake("poolgrad::" + _name, lambda gy, x, *rest: x.new_empty(x.shape))


@torch.library.register_fake("poolgrad::_roi_pool_backward")
def _roib_fake(gy, rois, argmax, scale, ph, pw, n, c, h, w):
    return gy.new_empty([n, c, h, w])


# RoIAlign: outputs of the input's dtype, contiguous.
@torch.library.register_fake("poolgrad::roi_align")
def _roi_align_fake(x, rois, scale, ph, pw, sampling_ratio, aligned):
    return x.new_empty([rois.shape[0], x.shape[1], ph, pw])


@torch.library.register_fake("poolgrad::_roi_align_backward")
def _roi_alignb_fake(gy, rois, scale, ph, pw, n, c, h, w, sampling_ratio, aligned):
    return gy.new_empty([n, c, h, w])


@torch.library.register_fake("poolgrad::roi_align_onnx")
def _roi_align_onnx_fake(x, rois, batch_indices, mode, oh, ow, sampling_ratio, scale):
    return x.new_empty([rois.shape[0], x.shape[1], oh, ow])
