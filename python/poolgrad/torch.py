"""PyTorch autograd functions and modules backed by poolgrad's operators (torch imported lazily).

``max_pool2d`` / ``MaxPool2d``, ``max_pool3d`` / ``MaxPool3d``, ``adaptive_max_pool2d`` /
``AdaptiveMaxPool2d`` and ``adaptive_max_pool3d`` / ``AdaptiveMaxPool3d`` mirror torch.nn.functional's
functions and torch.nn's modules of those names (indices returned as int64, as torch returns them).
``roi_pool`` and ``RoIPool`` mirror torchvision.ops.roi_pool / RoIPool, but use CANN's RoI geometry
(no rounding of coordinates, ends at (x2 + 1) * scale, malformed ROIs give 0): see docs/roi-pooling.md.
"""
from __future__ import annotations

import torch

from . import adaptive_max_pool2d as _adaptive2d
from . import adaptive_max_pool3d as _adaptive3d
from . import (ACLNN_ERR_RUNTIME_ERROR, PoolgradError, adaptive_max_pool2d_backward,
               adaptive_max_pool3d_backward, max_pool2d_with_indices, max_pool2d_with_indices_backward, max_pool3d_with_indices,
               max_pool3d_with_indices_backward)
from . import roi_pool_with_argmax, roi_pool_with_argmax_backward


class _MaxPool2dFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, dilation, ceil_mode):
        out, idx = max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode)
        ctx.save_for_backward(x, idx)
        ctx.attrs = (kernel_size, stride, padding, dilation, ceil_mode)
        ctx.mark_non_differentiable(idx)
        return out, idx

    @staticmethod
    def backward(ctx, grad_out, _grad_idx):
        x, idx = ctx.saved_tensors
        k, s, p, d, c = ctx.attrs
        gx = max_pool2d_with_indices_backward(grad_out, x, idx, k, s, p, d, c)
        return gx, None, None, None, None, None


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Like torch.nn.functional.max_pool2d, computed by poolgrad (forward and backward)."""
    if stride is not None and not isinstance(stride, int) and len(stride) == 0:
        stride = None
    out, idx = _MaxPool2dFunction.apply(x, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


class MaxPool2d(torch.nn.Module):
    """Like torch.nn.MaxPool2d, computed by poolgrad."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x):
        return max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


def _volume_index_dtype(x):
    """INT32 indices where the volume fits them (every product profile takes INT32; INT64 is
    Ascend950 only): the layers then work on every profile and return torch's int64."""
    return "int32" if x.shape[-3] * x.shape[-2] * x.shape[-1] <= 2**31 - 1 else "int64"


class _MaxPool3dFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kernel_size, stride, padding, dilation, ceil_mode):
        out, idx = max_pool3d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode,
                                           _volume_index_dtype(x) if x.dim() in (4, 5) else "int64")
        ctx.save_for_backward(x, idx)
        ctx.attrs = (kernel_size, stride, padding, dilation, ceil_mode)
        ctx.mark_non_differentiable(idx)
        return out, idx

    @staticmethod
    def backward(ctx, grad_out, _grad_idx):
        x, idx = ctx.saved_tensors
        k, s, p, d, c = ctx.attrs
        gx = max_pool3d_with_indices_backward(grad_out, x, idx, k, s, p, d, c)
        return gx, None, None, None, None, None


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Like torch.nn.functional.max_pool3d, computed by poolgrad (forward and backward)."""
    if stride is not None and not isinstance(stride, int) and len(stride) == 0:
        stride = None
    out, idx = _MaxPool3dFunction.apply(x, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx.long()) if return_indices else out


class MaxPool3d(torch.nn.Module):
    """Like torch.nn.MaxPool3d, computed by poolgrad."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def forward(self, x):
        return max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                          self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


def _adaptive_size(x, output_size, dims):
    """torch's output_size: one int, or a tuple whose None entries keep the input's size."""
    if isinstance(output_size, int):
        return [output_size] * dims
    size = list(output_size)
    return [x.shape[-dims + i] if v is None else int(v) for i, v in enumerate(size)]


def _adaptive2d_backward(grad_out, x, idx):
    """aclnnAdaptiveMaxPool2dBackward where the profile has it (Atlas A2/A3); on Ascend950, where
    CANN documents it as unavailable, the same scatter by aclnnAdaptiveMaxPool3dBackward on
    depth-1 views (a plane index h*W + w is the volume index of depth 1)."""
    try:
        return adaptive_max_pool2d_backward(grad_out, x, idx)
    except PoolgradError as e:
        if e.status != ACLNN_ERR_RUNTIME_ERROR:
            raise
    d = x.dim() - 2
    return adaptive_max_pool3d_backward(grad_out.unsqueeze(d), x.unsqueeze(d),
                                        idx.unsqueeze(d)).squeeze(d)


class _AdaptiveMaxPoolFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, size, dims):
        if dims == 2:
            out, idx = _adaptive2d(x, size)
        else:
            out, idx = _adaptive3d(x, size,
                                           _volume_index_dtype(x) if x.dim() in (4, 5) else "int64")
        ctx.save_for_backward(x, idx)
        ctx.dims = dims
        ctx.mark_non_differentiable(idx)
        return out, idx

    @staticmethod
    def backward(ctx, grad_out, _grad_idx):
        x, idx = ctx.saved_tensors
        if ctx.dims == 2:
            return _adaptive2d_backward(grad_out, x, idx), None, None
        return adaptive_max_pool3d_backward(grad_out, x, idx), None, None


def adaptive_max_pool2d(x, output_size, return_indices=False):
    """Like torch.nn.functional.adaptive_max_pool2d, computed by poolgrad."""
    out, idx = _AdaptiveMaxPoolFunction.apply(x, _adaptive_size(x, output_size, 2), 2)
    return (out, idx) if return_indices else out


def adaptive_max_pool3d(x, output_size, return_indices=False):
    """Like torch.nn.functional.adaptive_max_pool3d, computed by poolgrad."""
    out, idx = _AdaptiveMaxPoolFunction.apply(x, _adaptive_size(x, output_size, 3), 3)
    return (out, idx.long()) if return_indices else out


class AdaptiveMaxPool2d(torch.nn.Module):
    """Like torch.nn.AdaptiveMaxPool2d, computed by poolgrad."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, x):
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool3d(torch.nn.Module):
    """Like torch.nn.AdaptiveMaxPool3d, computed by poolgrad."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, x):
        return adaptive_max_pool3d(x, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _RoIPoolFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, rois, output_size, spatial_scale):
        y, argmax = roi_pool_with_argmax(x, rois, output_size, spatial_scale)
        ctx.save_for_backward(rois, argmax)
        ctx.input_shape = tuple(x.shape)
        ctx.spatial_scale = spatial_scale
        ctx.mark_non_differentiable(argmax)
        return y, argmax

    @staticmethod
    def backward(ctx, grad_y, _grad_argmax):
        rois, argmax = ctx.saved_tensors
        gx = roi_pool_with_argmax_backward(grad_y, rois, argmax, ctx.input_shape, 1.0)
        return gx, None, None, None


def _rois_tensor(boxes, ref):
    if isinstance(boxes, torch.Tensor):
        return boxes
    # A list of (Ki, 4) boxes per image, as torchvision accepts.
    rows = [torch.cat([torch.full((b.shape[0], 1), float(i), dtype=b.dtype), b], 1)
            for i, b in enumerate(boxes)]
    return torch.cat(rows, 0).to(ref.dtype)


def roi_pool(x, boxes, output_size, spatial_scale=1.0):
    """Like torchvision.ops.roi_pool, with CANN's geometry, computed by poolgrad."""
    y, _ = _RoIPoolFunction.apply(x, _rois_tensor(boxes, x), output_size, spatial_scale)
    return y


class RoIPool(torch.nn.Module):
    """Like torchvision.ops.RoIPool(output_size, spatial_scale), with CANN's geometry."""

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale

    def forward(self, x, rois):
        return roi_pool(x, rois, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return f"output_size={self.output_size}, spatial_scale={self.spatial_scale}"
