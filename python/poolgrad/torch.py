"""PyTorch autograd functions and modules backed by poolgrad's operators (torch imported lazily).

``max_pool2d`` and ``MaxPool2d`` mirror torch.nn.functional.max_pool2d / torch.nn.MaxPool2d.
``roi_pool`` and ``RoIPool`` mirror torchvision.ops.roi_pool / RoIPool, but use CANN's RoI geometry
(no rounding of coordinates, ends at (x2 + 1) * scale, malformed ROIs give 0): see docs/roi-pooling.md.
"""
from __future__ import annotations

import torch

from . import max_pool2d_with_indices, max_pool2d_with_indices_backward
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
