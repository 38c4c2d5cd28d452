# SPDX-License-Identifier: Apache-2.0
"""PyTorch modules and functions backed by poolgrad's registered ops (poolgrad/ops.py).

``max_pool2d`` / ``MaxPool2d``, ``max_pool3d`` / ``MaxPool3d``, ``adaptive_max_pool2d`` /
``AdaptiveMaxPool2d``, ``adaptive_max_pool3d`` / ``AdaptiveMaxPool3d``, ``max_unpool2d`` /
``MaxUnpool2d`` and ``max_unpool3d`` / ``MaxUnpool3d`` mirror
torch.nn.functional's functions and torch.nn's modules of those names (indices returned as int64, as
torch returns them). ``roi_pool`` and ``RoIPool`` mirror torchvision.ops.roi_pool / RoIPool, but use
CANN's RoI geometry (no rounding of coordinates, ends at (x2 + 1) * scale, malformed ROIs give 0):
see docs/roi-pooling.md. ``roi_align`` and ``RoIAlign`` mirror torchvision.ops.roi_align / RoIAlign with
its numbers (docs/roi-align.md), and ``use_for_torchvision()`` makes torchvision's own roi_align (and
so MultiScaleRoIAlign) run on poolgrad's kernels. They call ``torch.ops.poolgrad.*``, so
torch.compile(fullgraph=True), torch.export and double backward work through them.
"""
from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import torch

Size = Union[int, Sequence[int]]
Pooled = Union[torch.Tensor, Tuple[torch.Tensor, torch.Tensor]]

from . import PoolgradError
from .ops import fast, ops

_is_compiling = torch.compiler.is_compiling
_function_mode = torch._C._is_torch_function_mode_enabled


def _plain(x) -> bool:
    """Whether a call on x may take the fast path (ops.fast): a plain tensor (a subclass may
    override torch functions), no torch function mode, not under torch.compile's tracer (which
    knows the ops, not the fast path)."""
    return type(x) is torch.Tensor and not _function_mode() and not _is_compiling()


_mp2, _mp3 = ops.max_pool2d_with_indices, ops.max_pool3d_with_indices


def _poolgrad_error(e: ValueError):
    """A registered op's refusal (a ValueError reading "[status] message": C++ cannot raise the
    package's class) as the PoolgradError the package's functions raise."""
    text = str(e)
    status, sep, message = text[1:].partition("] ")
    if text.startswith("[") and sep and status.isdigit():
        return PoolgradError(int(status), message)
    return e


def _run(op, *args):
    """op(*args), its refusals raised as PoolgradError."""
    try:
        return op(*args)
    except ValueError as e:
        raise _poolgrad_error(e) from None


def _pool(op, fast_op, x, kernel_size, stride, padding, dilation, ceil_mode):
    try:  # _run's job, inline: going through it costs a third of a microsecond on this hot path
        # _plain(x), inline (a Python call is a tenth of a microsecond here); the fast path parses
        # the attributes itself (an int, a list or a tuple; stride None for the kernel size).
        if type(x) is torch.Tensor and not _function_mode() and not _is_compiling():
            return fast_op(x, kernel_size, stride, padding, dilation, ceil_mode)
        if stride is None and padding == 0 and dilation == 1 and not ceil_mode:
            return op(x, _attr(kernel_size))  # the schema's defaults: each argument passed costs 0.2 us
        return op(x, _attr(kernel_size), _attr(stride), _attr(padding), _attr(dilation), ceil_mode)
    except ValueError as e:
        raise _poolgrad_error(e) from None


def _attr(v):
    """An attribute as the ops' int[] takes it: an int (broadcast by the op), a sequence, or []
    for None (the kernel size). The common types are looked at first: this is per-call cost."""
    t = type(v)
    if t is int or t is tuple or t is list:
        return v
    if v is None:
        return []
    if isinstance(v, bool) or not isinstance(v, (int, tuple, list, torch.SymInt)):
        raise TypeError(f"expected an int or a sequence of ints, but got {v!r}")
    return [v] if isinstance(v, (int, torch.SymInt)) else list(v)


def max_pool2d(x: torch.Tensor, kernel_size: Size, stride: Optional[Size] = None, padding: Size = 0,
               dilation: Size = 1, ceil_mode: bool = False, return_indices: bool = False) -> Pooled:
    """Like torch.nn.functional.max_pool2d, computed by poolgrad (forward and backward).

    One deliberate difference: a window whose taps all fall in the padding (possible only with
    dilation > 1) gives -inf with index -1 here, where torch gives -inf with an index outside the
    window (often outside the plane). -1 is poolgrad's documented "no input element"; the backward
    skips it, so such a window contributes no gradient, as in torch (docs/pytorch.md).

    x: (N, C, H, W) or (C, H, W), float32, float16 or bfloat16, CPU; the output (and int64 indices
    with return_indices) keep x's memory format. Raises PoolgradError for what the operator refuses.
    Example: ``poolgrad.torch.max_pool2d(torch.randn(1, 64, 112, 112), 3, 2, 1)``."""
    out, idx = _pool(_mp2, fast.max_pool2d_with_indices, x, kernel_size, stride, padding, dilation,
                     ceil_mode)
    return (out, idx) if return_indices else out


def max_pool3d(x: torch.Tensor, kernel_size: Size, stride: Optional[Size] = None, padding: Size = 0,
               dilation: Size = 1, ceil_mode: bool = False, return_indices: bool = False) -> Pooled:
    """Like torch.nn.functional.max_pool3d, computed by poolgrad (forward and backward).

    One deliberate difference: a window whose taps all fall in the padding (possible only with
    dilation > 1) gives -inf with index -1 here, where torch gives -inf with an index outside the
    window (often outside the plane). -1 is poolgrad's documented "no input element"; the backward
    skips it, so such a window contributes no gradient, as in torch (docs/pytorch.md).

    x: (N, C, D, H, W) or (C, D, H, W), float32, float16 or bfloat16, CPU. Raises PoolgradError for
    what the operator refuses. Example: ``poolgrad.torch.max_pool3d(torch.randn(1, 8, 4, 16, 16), 2)``."""
    out, idx = _pool(_mp3, fast.max_pool3d_with_indices, x, kernel_size, stride, padding, dilation,
                     ceil_mode)
    return (out, idx) if return_indices else out


class _Named:
    """The repr says poolgrad (the class names match torch's)."""

    def _get_name(self):
        return "poolgrad." + type(self).__name__


def _stride_arg(m):
    """The stride to call with: None (the op's default) where it is the kernel size."""
    return None if m.stride == m.kernel_size else m.stride


class MaxPool2d(_Named, torch.nn.MaxPool2d):
    """torch.nn.MaxPool2d computed by poolgrad: a subclass, so isinstance, state_dict, hooks and
    print(model) behave as for torch's (an all-padding window's index is -1: see max_pool2d).

    Example: ``poolgrad.torch.MaxPool2d(3, 2, 1)(torch.randn(1, 64, 112, 112))``."""

    def forward(self, x):  # max_pool2d's body: a Python call less a call
        stride = None if self.stride == self.kernel_size else self.stride  # _stride_arg, inline
        out, idx = _pool(_mp2, fast.max_pool2d_with_indices, x, self.kernel_size, stride,
                         self.padding, self.dilation, self.ceil_mode)
        return (out, idx) if self.return_indices else out


class MaxPool3d(_Named, torch.nn.MaxPool3d):
    """torch.nn.MaxPool3d computed by poolgrad (an all-padding window's index is -1: see
    max_pool3d)."""

    def forward(self, x):  # max_pool3d's body: a Python call less a call
        out, idx = _pool(_mp3, fast.max_pool3d_with_indices, x, self.kernel_size, _stride_arg(self),
                         self.padding, self.dilation, self.ceil_mode)
        return (out, idx) if self.return_indices else out


def _adaptive_size(x, output_size, dims):
    """torch's output_size: one int, or a tuple whose None entries keep the input's size."""
    if isinstance(output_size, int):
        return [output_size] * dims
    return [x.shape[-dims + i] if v is None else v for i, v in enumerate(output_size)]


def adaptive_max_pool2d(x: torch.Tensor, output_size: Union[int, Sequence[Optional[int]]],
                        return_indices: bool = False) -> Pooled:
    """Like torch.nn.functional.adaptive_max_pool2d, computed by poolgrad.

    x: (N, C, H, W) or (C, H, W), float32, float16 or bfloat16, CPU; output_size an int or (Hout,
    Wout), None keeping x's size. Raises PoolgradError for what the operator refuses. Example:
    ``poolgrad.torch.adaptive_max_pool2d(torch.randn(2, 256, 40, 40), 1)``."""
    op = fast.adaptive_max_pool2d if _plain(x) else ops.adaptive_max_pool2d
    out, idx = _run(op, x, _adaptive_size(x, output_size, 2))
    return (out, idx) if return_indices else out


def adaptive_max_pool3d(x: torch.Tensor, output_size: Union[int, Sequence[Optional[int]]],
                        return_indices: bool = False) -> Pooled:
    """Like torch.nn.functional.adaptive_max_pool3d, computed by poolgrad.

    x: (N, C, D, H, W) or (C, D, H, W), float32, float16 or bfloat16, CPU; output_size an int or
    (Dout, Hout, Wout). Raises PoolgradError for what the operator refuses. Example:
    ``poolgrad.torch.adaptive_max_pool3d(torch.randn(1, 8, 4, 16, 16), (2, 4, 4))``."""
    op = fast.adaptive_max_pool3d if _plain(x) else ops.adaptive_max_pool3d
    out, idx = _run(op, x, _adaptive_size(x, output_size, 3))
    return (out, idx) if return_indices else out


class AdaptiveMaxPool2d(_Named, torch.nn.AdaptiveMaxPool2d):
    """torch.nn.AdaptiveMaxPool2d computed by poolgrad (a subclass of it)."""

    def forward(self, x):
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_Named, torch.nn.AdaptiveMaxPool3d):
    """torch.nn.AdaptiveMaxPool3d computed by poolgrad (a subclass of it)."""

    def forward(self, x):
        return adaptive_max_pool3d(x, self.output_size, self.return_indices)


def _unpool(spatial: int, x, indices, kernel_size, stride, padding, output_size):
    """torch.nn.functional.max_unpool{2,3}d's arguments made the op's (torch's own rule for the
    default output size, and its checks of a given one)."""
    from torch.nn.functional import _unpool_output_size
    from torch.nn.modules.utils import _pair, _triple
    tup = _pair if spatial == 2 else _triple
    kernel_size = tup(kernel_size)
    stride = tup(stride) if stride is not None else kernel_size
    padding = tup(padding)
    size = _unpool_output_size(x, kernel_size, stride, padding, output_size)
    if spatial == 2:
        return _run(ops.max_unpool2d, x, indices, list(size))
    return _run(ops.max_unpool3d, x, indices, list(size), list(stride), list(padding))


def max_unpool2d(x: torch.Tensor, indices: torch.Tensor, kernel_size: Size, stride: Optional[Size] = None,
                 padding: Size = 0, output_size: Optional[Sequence[int]] = None) -> torch.Tensor:
    """Like torch.nn.functional.max_unpool2d, computed by poolgrad (aclnnMaxUnpool2d; the gradient
    is aclnnMaxUnpool2dBackward's gather).

    x: (N, C, H, W) or (C, H, W), float32, float16, float64 or an integer dtype (CANN's list),
    CPU; indices int64 (or int32) of x's shape, as max_pool2d returns them. Where two indices are
    equal the later input element wins, for any thread count; an index outside the output plane
    raises PoolgradError naming it. Example:
    ``y, i = poolgrad.torch.max_pool2d(x, 2, return_indices=True); poolgrad.torch.max_unpool2d(y, i, 2)``."""
    return _unpool(2, x, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(x: torch.Tensor, indices: torch.Tensor, kernel_size: Size, stride: Optional[Size] = None,
                 padding: Size = 0, output_size: Optional[Sequence[int]] = None) -> torch.Tensor:
    """Like torch.nn.functional.max_unpool3d, computed by poolgrad (aclnnMaxUnpool3d).

    x: (N, C, D, H, W) or (C, D, H, W); indices int64 of x's shape. Example:
    ``poolgrad.torch.max_unpool3d(y, i, 2)``."""
    return _unpool(3, x, indices, kernel_size, stride, padding, output_size)


class MaxUnpool2d(_Named, torch.nn.MaxUnpool2d):
    """torch.nn.MaxUnpool2d computed by poolgrad: ``forward(input, indices, output_size=None)``.

    Example: ``poolgrad.torch.MaxUnpool2d(2)(y, i)``."""

    def forward(self, x, indices, output_size=None):
        return max_unpool2d(x, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_Named, torch.nn.MaxUnpool3d):
    """torch.nn.MaxUnpool3d computed by poolgrad: ``forward(input, indices, output_size=None)``."""

    def forward(self, x, indices, output_size=None):
        return max_unpool3d(x, indices, self.kernel_size, self.stride, self.padding, output_size)


_SWAPS = {torch.nn.MaxPool2d: MaxPool2d, torch.nn.MaxPool3d: MaxPool3d,
          torch.nn.AdaptiveMaxPool2d: AdaptiveMaxPool2d, torch.nn.AdaptiveMaxPool3d: AdaptiveMaxPool3d,
          torch.nn.MaxUnpool2d: MaxUnpool2d, torch.nn.MaxUnpool3d: MaxUnpool3d}


def convert(module: torch.nn.Module) -> torch.nn.Module:
    """Swaps every torch max-pooling layer of `module` (torch.nn.MaxPool2d/3d,
    AdaptiveMaxPool2d/3d, MaxUnpool2d/3d; subclasses of them are left alone) for poolgrad's, in the style of
    torch.nn.SyncBatchNorm.convert_sync_batchnorm: the children are replaced in place and the
    converted module is returned (a new one where `module` itself is such a layer). Each new layer
    keeps the old one's attributes, training flag and hooks.

    Example: ``model = poolgrad.torch.convert(torchvision.models.resnet18())``."""
    swap = _SWAPS.get(type(module))
    if swap is not None:
        new = swap.__new__(swap)
        new.__dict__.update(module.__dict__)
        return new
    for name, child in module.named_children():
        converted = convert(child)
        if converted is not child:
            setattr(module, name, converted)
    return module


def _rois_tensor(boxes, ref):
    if isinstance(boxes, torch.Tensor):
        return boxes
    # A list of (Ki, 4) boxes per image, as torchvision accepts.
    rows = [torch.cat([torch.full((b.shape[0], 1), float(i), dtype=b.dtype), b], 1)
            for i, b in enumerate(boxes)]
    return torch.cat(rows, 0).to(ref.dtype)


def roi_pool(x: torch.Tensor, boxes: Union[torch.Tensor, Sequence[torch.Tensor]], output_size: Size,
             spatial_scale: float = 1.0) -> torch.Tensor:
    """Like torchvision.ops.roi_pool, with CANN's geometry, computed by poolgrad.

    x: (N, C, H, W) float32 or float16, CPU; boxes: (R, 5) rows (batch_index, x1, y1, x2, y2), or a
    list of (Ki, 4) boxes per image; returns (R, C, pooled_h, pooled_w). Raises PoolgradError for
    what the operator refuses. Example:
    ``poolgrad.torch.roi_pool(x, torch.tensor([[0., 0, 0, 15, 15]]), 7, 0.5)``."""
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    y, _ = _run(ops.roi_pool, x, _rois_tensor(boxes, x), float(spatial_scale), ph, pw)
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


def roi_align(input: torch.Tensor, boxes: Union[torch.Tensor, Sequence[torch.Tensor]], output_size: Size,
              spatial_scale: float = 1.0, sampling_ratio: int = -1, aligned: bool = False) -> torch.Tensor:
    """torchvision.ops.roi_align's signature and numbers (float32 bit for bit), computed by poolgrad;
    the backward is deterministic (the same bits for any thread count) and differentiable again.

    input: (N, C, H, W) float32 or float16 (the backward takes float32: CANN's), CPU; boxes: (K, 5)
    rows (batch_index, x1, y1, x2, y2) or a list of (Ki, 4) boxes per image; sampling_ratio <= 0:
    adaptive. Raises PoolgradError for what the operator refuses. Example:
    ``poolgrad.torch.roi_align(x, torch.tensor([[0., 1, 1, 9, 9]]), 7, 0.5, 2, aligned=True)``."""
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    return _run(ops.roi_align, input, _rois_tensor(boxes, input), float(spatial_scale), ph, pw, int(sampling_ratio),
                bool(aligned))


class RoIAlign(torch.nn.Module):
    """torchvision.ops.RoIAlign(output_size, spatial_scale, sampling_ratio, aligned), computed by
    poolgrad (see roi_align)."""

    def __init__(self, output_size, spatial_scale: float, sampling_ratio: int, aligned: bool = False):
        super().__init__()
        self.output_size, self.spatial_scale = output_size, spatial_scale
        self.sampling_ratio, self.aligned = sampling_ratio, aligned

    def forward(self, input, rois):
        return roi_align(input, rois, self.output_size, self.spatial_scale, self.sampling_ratio, self.aligned)

    def extra_repr(self):
        return (f"output_size={self.output_size}, spatial_scale={self.spatial_scale}, "
                f"sampling_ratio={self.sampling_ratio}, aligned={self.aligned}")


_TORCHVISION_LIBS = []


def use_for_torchvision() -> None:
    """Registers poolgrad's RoIAlign kernels as the CPU kernels of torchvision::roi_align and
    torchvision::_roi_align_backward (the same schemas), so that torchvision.ops.roi_align, RoIAlign
    and MultiScaleRoIAlign, and the detection models built on them, compute on poolgrad: the same
    forward bits, a backward that is the same for any thread count. For the rest of the process
    (torch warns once that the kernels are overridden); CANN's dtypes apply from then on: float32
    and float16 forwards, float32 backwards (float64 is refused with PoolgradError's message).
    Example:
    ``poolgrad.torch.use_for_torchvision(); torchvision.ops.MultiScaleRoIAlign(["0"], 7, 2)(...)``."""
    import torchvision  # noqa: F401 - defines the torchvision namespace and its schemas
    if _TORCHVISION_LIBS:
        return
    lib = torch.library.Library("torchvision", "IMPL")
    lib.impl("roi_align", lambda *a: ops.roi_align(*a), "CPU")
    lib.impl("_roi_align_backward", lambda *a: ops._roi_align_backward(*a), "CPU")
    _TORCHVISION_LIBS.append(lib)
