"""poolgrad's operators registered with PyTorch (torch.library, namespace ``poolgrad``).

Each op has the schema of the operator it stands in for, so that it is drop-in:
``poolgrad::max_pool2d_with_indices(_backward)``, ``max_pool3d_with_indices(_backward)``,
``adaptive_max_pool2d(_backward)``, ``adaptive_max_pool3d(_backward)`` have ATen's schemas,
``poolgrad::roi_pool`` / ``_roi_pool_backward`` torchvision's (with CANN's RoI geometry), and the
Mask pair (no ATen twin) ATen's max-pool schema with the mask in place of the indices. Each op has a
fake (meta) implementation (so torch.compile, torch.export and FakeTensor shape propagation see
it), and an autograd formula: a forward's gradient is its backward op; a backward op is linear in
its gradOutput, so its own gradient (double backward) is the gather of the incoming gradient at the
stored indices. They run on CPU tensors; a tensor on another device is refused naming the device.
The ops follow the current product profile (poolgrad.set_product), like the functions they call.
"""
from __future__ import annotations

import torch

from . import _ext
from . import (PoolgradError, ACLNN_ERR_PARAM_INVALID, adaptive_max_pool2d, adaptive_max_pool2d_backward,
               adaptive_max_pool3d, adaptive_max_pool3d_backward, max_pool2d_with_indices,
               max_pool2d_with_indices_backward, max_pool2d_with_mask, max_pool2d_with_mask_backward,
               max_pool3d_with_indices, max_pool3d_with_indices_backward, roi_pool_with_argmax,
               roi_pool_with_argmax_backward)

_lib = torch.library.Library("poolgrad", "DEF")

_SCHEMAS = {
    "max_pool2d_with_indices": "(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                               "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    "max_pool2d_with_indices_backward": "(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
                                        "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    "max_pool3d_with_indices": "(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
                               "int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    "max_pool3d_with_indices_backward": "(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, "
                                        "int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    "max_pool2d_with_mask": "(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                            "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
    "max_pool2d_with_mask_backward": "(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
                                     "int[2] padding, int[2] dilation, bool ceil_mode, Tensor mask) -> Tensor",
    "adaptive_max_pool2d": "(Tensor self, int[2] output_size) -> (Tensor, Tensor)",
    "adaptive_max_pool2d_backward": "(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    "adaptive_max_pool3d": "(Tensor self, int[3] output_size) -> (Tensor, Tensor)",
    "adaptive_max_pool3d_backward": "(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
    "roi_pool": "(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
                "-> (Tensor, Tensor)",
    "_roi_pool_backward": "(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, SymInt pooled_height, "
                          "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) "
                          "-> Tensor",
}
for _name, _schema in _SCHEMAS.items():
    _lib.define(_name + _schema)

ops = torch.ops.poolgrad


def _impl(name):
    """Registers fn as the op's kernel for every backend, refusing tensors off the CPU by name. The
    ops run with torch's thread count (torch.get_num_threads()), as the ATen ops they stand in for;
    poolgrad's own count (poolgrad.set_num_threads, POOLGRAD_NUM_THREADS) is left as it was."""
    def wrap(fn):
        def kernel(*args, **kwargs):
            for a in args:  # the dispatcher passes every argument by position
                if isinstance(a, torch.Tensor) and not a.is_cpu:
                    raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                                        f"poolgrad::{name}: a tensor is on {a.device}; poolgrad runs on the CPU "
                                        "(move it with .cpu())")
            mine, theirs = _ext.get_num_threads(), torch.get_num_threads()
            if mine == theirs:
                return fn(*args, **kwargs)
            _ext.set_num_threads(theirs)
            try:
                return fn(*args, **kwargs)
            finally:
                _ext.set_num_threads(mine)
        _lib.impl(name, kernel, "CompositeExplicitAutograd")
        return fn
    return wrap


# ---- kernels: the package's functions ----------------------------------------------------------------
@_impl("max_pool2d_with_indices")
def _mp2(x, k, s=(), p=(0,), d=(1,), ceil=False):  # schema defaults: trailing ones arrive omitted
    return max_pool2d_with_indices(x, k, list(s) or None, list(p), list(d), ceil)


@_impl("max_pool2d_with_indices_backward")
def _mp2b(gy, x, k, s, p, d, ceil, idx):
    return max_pool2d_with_indices_backward(gy.contiguous(), x, idx, k, s or None, p, d, ceil)


def _volume_index_dtype(x):
    """INT32 indices where the volume fits them (every product takes INT32; INT64 is Ascend950's);
    int64 for a tensor that is not a volume (the library then says what is wrong)."""
    if x.dim() not in (4, 5) or x.shape[-3] * x.shape[-2] * x.shape[-1] > 2**31 - 1:
        return "int64"
    return "int32"


@_impl("max_pool3d_with_indices")
def _mp3(x, k, s=(), p=(0,), d=(1,), ceil=False):
    out, idx = max_pool3d_with_indices(x, k, list(s) or None, list(p), list(d), ceil,
                                       _volume_index_dtype(x))
    return out, idx.long()


@_impl("max_pool3d_with_indices_backward")
def _mp3b(gy, x, k, s, p, d, ceil, idx):
    if _volume_index_dtype(x) == "int32":
        idx = idx.int()
    return max_pool3d_with_indices_backward(gy.contiguous(), x, idx, k, s or None, p, d, ceil)


@_impl("max_pool2d_with_mask")
def _mm(x, k, s=(), p=(0,), d=(1,), ceil=False):
    return max_pool2d_with_mask(x, k, list(s) or None, list(p), list(d), ceil)


@_impl("max_pool2d_with_mask_backward")
def _mmb(gy, x, k, s, p, d, ceil, mask):
    return max_pool2d_with_mask_backward(gy.contiguous(), x, mask, k, s or None, p, d, ceil)


@_impl("adaptive_max_pool2d")
def _am2(x, size):
    return adaptive_max_pool2d(x, size)


@_impl("adaptive_max_pool2d_backward")
def _am2b(gy, x, idx):
    """aclnnAdaptiveMaxPool2dBackward where the profile has it (A2/A3); on Ascend950, where CANN
    documents it as unavailable, the same scatter by aclnnAdaptiveMaxPool3dBackward on depth-1
    views (a plane index h*W + w is the volume index of depth 1)."""
    gy = gy.contiguous()
    try:
        return adaptive_max_pool2d_backward(gy, x, idx)
    except PoolgradError as e:
        if e.status != 361001:
            raise
    d = x.dim() - 2
    return adaptive_max_pool3d_backward(gy.unsqueeze(d), x.unsqueeze(d), idx.unsqueeze(d)).squeeze(d)


@_impl("adaptive_max_pool3d")
def _am3(x, size):
    out, idx = adaptive_max_pool3d(x, size, _volume_index_dtype(x))
    return out, idx.long()


@_impl("adaptive_max_pool3d_backward")
def _am3b(gy, x, idx):
    if _volume_index_dtype(x) == "int32":
        idx = idx.int()
    return adaptive_max_pool3d_backward(gy.contiguous(), x, idx)


@_impl("roi_pool")
def _roi(x, rois, scale, ph, pw):
    return roi_pool_with_argmax(x, rois, (ph, pw), scale)


@_impl("_roi_pool_backward")
def _roib(gy, rois, argmax, scale, ph, pw, n, c, h, w):
    return roi_pool_with_argmax_backward(gy.contiguous(), rois, argmax, (n, c, h, w), scale)


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


def _grad_input_fake(gy, x, *rest):
    return x.new_empty(x.shape, dtype=gy.dtype)


for _name in ("max_pool2d_with_indices_backward", "max_pool3d_with_indices_backward",
              "max_pool2d_with_mask_backward", "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward"):
    torch.library.register_fake("poolgrad::" + _name, _grad_input_fake)


@torch.library.register_fake("poolgrad::_roi_pool_backward")
def _roib_fake(gy, rois, argmax, scale, ph, pw, n, c, h, w):
    return gy.new_empty([n, c, h, w])


# ---- autograd ----------------------------------------------------------------------------------------
def _gather(g, idx, dims):
    """The adjoint of the scatter gx[idx[o]] += gy[o] over the last `dims` dims: g read at idx
    (0 where idx is -1)."""
    flat = g.reshape(g.shape[:-dims] + (-1,))
    i = idx.reshape(idx.shape[:-dims] + (-1,)).long()
    out = flat.gather(-1, i.clamp_min(0)).masked_fill(i < 0, 0)
    return out.reshape(idx.shape)


def _mask_indices(mask, out_shape, k, s):
    """The int32 indices a mask holds (docs/mask.md); 1x1 windows: the window's one input."""
    kh, kw = k[0], k[-1]
    if kh * kw == 1:
        return None
    n = 1
    for v in out_shape:
        n *= v
    return mask.contiguous().view(-1).view(torch.int32)[:n].reshape(out_shape)


def _setup_pool(ctx, inputs, output):
    # The indices output has no gradient: do not let autograd build a zero one (a full-size
    # fill: 19 ms on the ResNet stem's 51 MB of indices).
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(inputs[0], output[1])
    ctx.attrs = inputs[1:]


def _pool_backward(op):
    def backward(ctx, grad_out, _grad_idx):
        if grad_out is None:
            return None, None, None, None, None, None
        x, idx = ctx.saved_tensors
        k, s, p, d, ceil = ctx.attrs
        return op(grad_out, x, k, s, p, d, ceil, idx), None, None, None, None, None
    return backward


torch.library.register_autograd("poolgrad::max_pool2d_with_indices",
                                _pool_backward(ops.max_pool2d_with_indices_backward), setup_context=_setup_pool)
torch.library.register_autograd("poolgrad::max_pool3d_with_indices",
                                _pool_backward(ops.max_pool3d_with_indices_backward), setup_context=_setup_pool)
torch.library.register_autograd("poolgrad::max_pool2d_with_mask",
                                _pool_backward(ops.max_pool2d_with_mask_backward), setup_context=_setup_pool)


def _setup_pool_backward(ctx, inputs, output):
    ctx.save_for_backward(inputs[7])
    ctx.x_shape = inputs[1].shape
    ctx.gy_shape = inputs[0].shape
    ctx.k, ctx.s = inputs[2], inputs[3]


def _pool_double_backward(dims, mask=False):
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        if mask:
            ind = _mask_indices(idx, ctx.gy_shape, ctx.k, ctx.s)
            if ind is None:  # 1x1 windows: output (oh, ow) read input (oh*sH, ow*sW)
                sh, sw = (ctx.s[0], ctx.s[-1]) if len(ctx.s) else (1, 1)
                ho, wo = ctx.gy_shape[-2], ctx.gy_shape[-1]
                ggy = gg[..., : (ho - 1) * sh + 1: sh, : (wo - 1) * sw + 1: sw]
                return ggy.contiguous(), None, None, None, None, None, None, None
            idx = ind
        return _gather(gg, idx, dims), None, None, None, None, None, None, None
    return backward


torch.library.register_autograd("poolgrad::max_pool2d_with_indices_backward", _pool_double_backward(2),
                                setup_context=_setup_pool_backward)
torch.library.register_autograd("poolgrad::max_pool3d_with_indices_backward", _pool_double_backward(3),
                                setup_context=_setup_pool_backward)
torch.library.register_autograd("poolgrad::max_pool2d_with_mask_backward", _pool_double_backward(2, mask=True),
                                setup_context=_setup_pool_backward)


def _setup_adaptive(ctx, inputs, output):
    ctx.set_materialize_grads(False)  # no zero gradient for the indices (see _setup_pool)
    ctx.save_for_backward(inputs[0], output[1])


def _adaptive_backward(op):
    def backward(ctx, grad_out, _grad_idx):
        if grad_out is None:
            return None, None
        x, idx = ctx.saved_tensors
        return op(grad_out, x, idx), None
    return backward


torch.library.register_autograd("poolgrad::adaptive_max_pool2d", _adaptive_backward(ops.adaptive_max_pool2d_backward),
                                setup_context=_setup_adaptive)
torch.library.register_autograd("poolgrad::adaptive_max_pool3d", _adaptive_backward(ops.adaptive_max_pool3d_backward),
                                setup_context=_setup_adaptive)


def _setup_adaptive_backward(ctx, inputs, output):
    ctx.save_for_backward(inputs[2])


def _adaptive_double_backward(dims):
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        return _gather(gg, idx, dims), None, None
    return backward


torch.library.register_autograd("poolgrad::adaptive_max_pool2d_backward", _adaptive_double_backward(2),
                                setup_context=_setup_adaptive_backward)
torch.library.register_autograd("poolgrad::adaptive_max_pool3d_backward", _adaptive_double_backward(3),
                                setup_context=_setup_adaptive_backward)


def _setup_roi(ctx, inputs, output):
    ctx.set_materialize_grads(False)  # no zero gradient for the argmax (see _setup_pool)
    x, rois, scale, ph, pw = inputs
    ctx.save_for_backward(rois, output[1])
    ctx.attrs = (scale, ph, pw) + tuple(x.shape)


def _roi_backward(ctx, grad_y, _grad_argmax):
    if grad_y is None:
        return None, None, None, None, None
    rois, argmax = ctx.saved_tensors
    return ops._roi_pool_backward(grad_y, rois, argmax, *ctx.attrs), None, None, None, None


torch.library.register_autograd("poolgrad::roi_pool", _roi_backward, setup_context=_setup_roi)


def _setup_roi_backward(ctx, inputs, output):
    ctx.save_for_backward(inputs[1], inputs[2])


def _roi_double_backward(ctx, gg):
    rois, argmax = ctx.saved_tensors
    planes = gg[rois[:, 0].long()]  # each ROI's feature map: (R, C, H, W)
    return _gather(planes, argmax, 2), None, None, None, None, None, None, None, None, None


torch.library.register_autograd("poolgrad::_roi_pool_backward", _roi_double_backward,
                                setup_context=_setup_roi_backward)
