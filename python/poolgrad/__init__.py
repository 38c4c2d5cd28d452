# SPDX-License-Identifier: Apache-2.0
"""poolgrad: CANN's max-pool and RoI-pool operators (forward and backward) on the CPU.

Works with any CPU array that speaks DLPack (NumPy, PyTorch); outputs are of the same library as
the first input, or the caller's own arrays given as ``out=`` (a pair for a forward: its outputs and
indices; one array for a backward). Errors raise PoolgradError (a ValueError) with the library's status and message.

Why one module of about 730 lines: it is the package's NumPy API, one function for each of the
19 aclnn APIs (its output shapes, its docstring and its `_run` call) after the few helpers every
function uses (argument sizes, outputs of the input's library, the call); split by family, each
part would import the same helpers and the public names would live in several places.
"""
from __future__ import annotations

import numbers
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ext

__all__ = [
    "PoolgradError", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "max_pool2d_with_mask", "max_pool2d_with_mask_backward", "set_product", "get_product",
    "adaptive_max_pool2d", "adaptive_max_pool2d_backward", "max_pool3d_with_indices",
    "max_pool3d_with_indices_backward", "adaptive_max_pool3d", "adaptive_max_pool3d_backward",
    "roi_pool_with_argmax", "roi_pool_with_argmax_backward", "max_unpool2d",
    "max_unpool2d_backward", "max_unpool3d", "max_unpool3d_backward", "roi_align", "roi_align_backward",
    "roi_align_onnx", "set_num_threads",
    "get_num_threads", "__version__",
]

__version__ = _ext.version()

ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001


# The public functions' types. An array is a NumPy array or a torch CPU tensor (any CPU array that
# speaks DLPack); the outputs are of the first input's library.
Array = Any
Size = Union[int, Sequence[int]]
Out = Optional[Union[Array, Tuple[Array, Array]]]

_RAISES = """
    Raises PoolgradError (a ValueError; ``.status`` 161001 or 161002, ``.message`` naming the
    parameter and its values) for what the operator refuses."""


class PoolgradError(ValueError):
    """A call poolgrad refused. ``status`` is CANN's code (161001 null, 161002 invalid)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"[{status}] {message}")
        self.status = status
        self.message = message


def set_num_threads(n: int) -> None:
    """Threads the kernels use (results are bitwise identical for any count); n <= 0: default."""
    _ext.set_num_threads(int(n))


def get_num_threads() -> int:
    """The kernels' thread count (set_num_threads, or POOLGRAD_NUM_THREADS, or the cores and CPU
    quota the process has)."""
    return _ext.get_num_threads()


_product = "Ascend950"


def set_product(name: str) -> None:
    """The product profile phase 1 behaves as: "Ascend950" (the default), "Ascend910B" or
    "Ascend910_93" (what POOLGRAD_SOC selects for C programs at aclInit). The Mask pair needs
    Ascend910B or Ascend910_93."""
    global _product
    status, message = _ext.set_product(str(name))
    if status != 0:
        raise PoolgradError(status, message)
    _product = str(name)


def get_product() -> str:
    """The product profile set by set_product (Ascend950 until then)."""
    return _product


# ---- arrays --------------------------------------------------------------------------------------
# Per-call overhead matters (a 1x1x4x4 call is mostly this file), so the checks below look types and
# dtypes up in caches instead of formatting names: str(numpy dtype) alone costs a microsecond.
_TORCH_TYPES: dict = {}
_DTYPE_NAMES: dict = {}
# (type, dtype) of NumPy arrays that pass every check and go to the extension as they are (native
# byte order, not bfloat16, not uint16): a set lookup instead of the checks on every call.
_PLAIN_ARRAYS: set = set()


def _is_torch(a) -> bool:
    t = type(a)
    v = _TORCH_TYPES.get(t)
    if v is None:
        v = _TORCH_TYPES[t] = t.__module__.split(".")[0] == "torch"
    return v


def _name(dt) -> str:
    """'float32', 'bfloat16', ... of a NumPy or torch dtype."""
    n = _DTYPE_NAMES.get(dt)
    if n is None:
        n = _DTYPE_NAMES[dt] = str(dt).replace("torch.", "")
    return n


def _check_array(a, name: str):
    if (type(a), getattr(a, "dtype", None)) in _PLAIN_ARRAYS:
        return a
    if a is None:
        raise PoolgradError(ACLNN_ERR_PARAM_NULLPTR, f"{name} must not be None")
    dt = getattr(a, "dtype", None)
    if dt is None or not hasattr(a, "__dlpack__"):
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"{name} must be a CPU array supporting DLPack (NumPy or PyTorch), "
                            f"but got {type(a).__name__}")
    if _name(dt) == "uint16":  # uint16 carries bfloat16 bits to the extension
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"{name} dtype uint16 is not supported: poolgrad takes float32, float16 or bfloat16 "
                            "(torch.bfloat16 or ml_dtypes.bfloat16) data and int32 / int64 indices")
    if _is_torch(a):
        if not a.is_cpu:
            raise PoolgradError(ACLNN_ERR_PARAM_INVALID, f"{name} must be on the CPU, but is on {a.device}")
        if a.requires_grad:
            a = a.detach()
        if a.is_conj() or a.is_neg():
            a = a.resolve_conj().resolve_neg()
    elif getattr(dt, "byteorder", "=") == ">":  # NumPy: DLPack has no byte order; say what is wrong
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"{name} is big-endian ({dt}); poolgrad takes native (little-endian) arrays: "
                            f"use {name}.astype({name}.dtype.newbyteorder('='))")
    elif _name(dt) != "bfloat16" and type(a).__module__ == "numpy":
        _PLAIN_ARRAYS.add((type(a), dt))
    return a


def _empty_like_lib(ref, shape, dtype_name: str, channels_last: bool = False):
    """A new array of the same library as ref (torch in, torch out; NumPy otherwise), never
    zero-filled (the kernels write every element). Large ones ask for huge pages: their first
    write is most of a call's time otherwise."""
    if _is_torch(ref):
        torch, dt = _torch_dtype(dtype_name)
        if channels_last and len(shape) == 4:
            a = torch.empty(shape, dtype=dt, memory_format=torch.channels_last)
        else:
            a = torch.empty(shape, dtype=dt)
    else:
        dt = _NP_DTYPES.get(dtype_name)
        if dt is None:
            dt = _NP_DTYPES[dtype_name] = np.dtype(_bfloat16() if dtype_name == "bfloat16" else dtype_name)
        a = np.empty(shape, dtype=dt)
    if a.nbytes >= _HUGE_BYTES:
        _ext.advise_huge(a)
    return a


_HUGE_BYTES = _ext.huge_bytes()
_NP_DTYPES: dict = {}
_TORCH_DTYPES: dict = {}


def _torch_dtype(name: str):
    """(torch, torch's dtype of that name), looked up once."""
    if not _TORCH_DTYPES:
        import torch
        _TORCH_DTYPES.update({n: (torch, getattr(torch, n)) for n in
                              ("float32", "float16", "bfloat16", "float64", "int32", "int64",
                               "int16", "int8", "uint8", "bool")})
    return _TORCH_DTYPES[name]


def _bfloat16():
    """NumPy's bfloat16 (ml_dtypes, an optional dependency: pip install ml_dtypes)."""
    try:
        import ml_dtypes
    except ImportError:
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            "bfloat16 NumPy arrays need the ml_dtypes package (pip install ml_dtypes)")
    return ml_dtypes.bfloat16


def _ext_arg(a):
    """What the extension receives. Checked torch tensors go as NumPy views of the same memory
    (torch's DLPack export costs microseconds a tensor, .numpy() a fraction of one); bfloat16 data,
    which DLPack and NumPy cannot carry, as uint16 views, which the extension reads as BF16 (uint16
    arrays of the caller's own are refused before they get here)."""
    if not hasattr(a, "dtype"):
        return a  # not an array: the binding names the parameter it was passed for
    bf16 = _name(a.dtype) == "bfloat16"
    if _is_torch(a):
        if bf16:
            import torch
            return a.view(torch.int16).numpy().view(np.uint16)
        return a.numpy()
    if bf16 and hasattr(a, "view"):
        return a.view(np.uint16)
    return a


def _dtype_name(a) -> str:
    return _name(a.dtype)


def _float_dtype(a, allowed=("float32", "float16", "bfloat16")) -> str:
    """The dtype of a float result computed from `a`: a's own where the operator takes it, else
    float32 (the library itself then refuses an unsupported dtype of `a`, naming the parameter)."""
    dt = _dtype_name(a)
    return dt if dt in allowed else "float32"


def _is_channels_last(a) -> bool:
    if not _is_torch(a) or a.dim() != 4 or a.is_contiguous():
        return False
    import torch
    return a.is_contiguous(memory_format=torch.channels_last)


def _pair(v, name: str, allow_none: bool = False):
    if v is None and allow_none:
        return []
    if type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool)):
        return [int(v)]
    if isinstance(v, (str, bytes, bool)):  # "2" is not 2: say so rather than read its characters
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID, f"{name} must be an int or a sequence of ints, but got {v!r}")
    try:
        vals = [int(x) for x in v]
    except TypeError:
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID, f"{name} must be an int or a sequence of ints, but got {v!r}")
    return vals


def _pool_attrs(kernel_size, stride, padding, dilation):
    """The max-pool attributes as the lists the library takes (stride None: the kernel size)."""
    return (_pair(kernel_size, "kernel_size"), _pair(stride, "stride", allow_none=True),
            _pair(padding, "padding"), _pair(dilation, "dilation"))


def _outs(out, names, make):
    """The call's outputs: the caller's ``out=`` arrays, checked as inputs are (one array for a
    backward, a pair for a forward: its outputs and indices; the library checks their shapes and
    dtypes and says which is wrong), or, without ``out=``, new ones from make()."""
    if out is None:
        return make()
    if len(names) == 1:
        return _check_array(out, names[0])
    arrays = tuple(out) if isinstance(out, (tuple, list)) else ()
    if len(arrays) != len(names):
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"out must be a pair ({', '.join(names)}), but got {type(out).__name__}")
    return tuple(_check_array(a, n) for a, n in zip(arrays, names))


# ---- the aclnn APIs ---------------------------------------------------------------------------------
# Every API goes through one generic binding (_ext.Api), set up from its descriptor
# (poolgrad/operators.json) the first time it is called: the header's parameter names, each
# array's name for messages and each tensor's format. The functions below pass their arguments by
# the header's parameter names; the binding takes each by its C type, plain NumPy arrays as they
# are and other arrays through _ext_arg.
_APIS: dict = {}


def _api(aclnn: str):
    """The API's binding."""
    api = _APIS.get(aclnn)
    if api is None:
        from .operators import BY_API
        spec = BY_API[aclnn]
        names = {c: n for n, c in spec.inputs + spec.outputs}
        api = _APIS[aclnn] = _ext.Api(aclnn, list(spec.params), [names.get(p, p) for p in spec.params],
                                      [spec.formats.get(p, "ND") for p in spec.params], _ext_arg)
    return api


def _run(aclnn: str, **args) -> None:
    """Phases 1 and 2 of an aclnn API on arguments given by the header's parameter names."""
    status, message = (_APIS.get(aclnn) or _api(aclnn)).call(args)
    if status != 0:
        raise PoolgradError(status, message)


def _prepare(aclnn: str, **args):
    """Phase 1 of an aclnn API with a repeatable executor (the benchmark's): .run() is phase 2."""
    return _api(aclnn).prepare(args)


# ---- max pooling -----------------------------------------------------------------------------------
def _pool_out_shape(x, k, s, p, d, ceil_mode):
    """The output shape the operator expects; placeholder sizes when the input is not poolable,
    so that the library itself reports what is wrong."""
    shape = list(x.shape)
    if len(shape) not in (3, 4) or not k:
        return shape
    kh, kw = (k[0], k[-1]) if len(k) in (1, 2) else (1, 1)
    sh, sw = (s[0], s[-1]) if len(s) in (1, 2) else (kh, kw)
    ph, pw = (p[0], p[-1]) if len(p) in (1, 2) else (0, 0)
    dh, dw = (d[0], d[-1]) if len(d) in (1, 2) else (1, 1)
    ho = _ext.out_size(shape[-2], kh, sh, ph, dh, ceil_mode)
    wo = _ext.out_size(shape[-1], kw, sw, pw, dw, ceil_mode)
    shape[-2], shape[-1] = max(ho, 1), max(wo, 1)
    return shape


def max_pool2d_with_indices(x: Array, kernel_size: Size, stride: Optional[Size] = None, padding: Size = 0,
                            dilation: Size = 1, ceil_mode: bool = False, index_dtype: Any = "int64", *,
                            out: Out = None) -> Tuple[Array, Array]:
    """aclnnMaxPool2dWithIndices: max pooling with argmax indices (flat h*W + w in each plane), like
    torch.nn.functional.max_pool2d(..., return_indices=True).

    x: (N, C, H, W) or (C, H, W), float32, float16 or bfloat16 (channels-last views stay so);
    returns (out, indices), indices int64 or int32 (``index_dtype``). Example:
    ``out, idx = poolgrad.max_pool2d_with_indices(np.ones((1, 3, 8, 8), np.float32), 2)``."""
    x = _check_array(x, "x")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    index_dtype = _index_dtype(index_dtype)
    shape = _pool_out_shape(x, k, s, p, d, bool(ceil_mode))
    cl = _is_channels_last(x)
    out, idx = _outs(out, ('out', 'indices'), lambda: (_empty_like_lib(x, shape, _float_dtype(x), cl),
                           _empty_like_lib(x, shape, index_dtype, cl)))
    _run("aclnnMaxPool2dWithIndices", self=x, kernelSize=k, stride=s, padding=p, dilation=d, ceilMode=bool(ceil_mode),
         out=out, indices=idx)
    return out, idx


def max_pool2d_with_indices_backward(grad_output: Array, x: Array, indices: Array, kernel_size: Size,
                                     stride: Optional[Size] = None, padding: Size = 0, dilation: Size = 1,
                                     ceil_mode: bool = False, *, out: Out = None) -> Array:
    """aclnnMaxPool2dWithIndicesBackward: grad_output scattered to indices, summed where they repeat.

    grad_output and indices: the forward's output shape; x: the forward's input (its shape and
    dtype); returns grad_input of x's shape. An index outside the plane is refused (161002 naming
    it). Example: ``gx = poolgrad.max_pool2d_with_indices_backward(np.ones_like(out), x, idx, 2)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    gx = _outs(out, ("out",),
               lambda: _empty_like_lib(grad_output, list(x.shape), _float_dtype(x), _is_channels_last(x)))
    _run("aclnnMaxPool2dWithIndicesBackward", gradOutput=grad_output, self=x, indices=indices, kernelSize=k, stride=s,
         padding=p, dilation=d, ceilMode=bool(ceil_mode), gradInput=gx)
    return gx


def _mask_shape(x, k, s, p, d, ceil_mode):
    """CANN's mask shape: [N, C, kH*kW, (ceil(Hout*Wout/16) + 1) * 32] (rank 3: without N)."""
    shape = _pool_out_shape(x, k, s, p, d, ceil_mode)
    if len(shape) not in (3, 4) or not k:
        return shape
    kh, kw = (k[0], k[-1]) if len(k) in (1, 2) else (1, 1)
    row = ((shape[-2] * shape[-1] + 15) // 16 + 1) * 32
    return shape[:-2] + [kh * kw, row]


def max_pool2d_with_mask(x: Array, kernel_size: Size, stride: Optional[Size] = None, padding: Size = 0,
                         dilation: Size = 1, ceil_mode: bool = False, *, out: Out = None) -> Tuple[Array, Array]:
    """aclnnMaxPool2dWithMask (Ascend910B / Ascend910_93 profiles, see set_product): (out, mask),
    the mask an int8 array of CANN's shape holding the int32 flat indices (docs/mask.md).

    x: (N, C, H, W) or (C, H, W), NCHW, float32, float16 or bfloat16. Example:
    ``poolgrad.set_product("Ascend910B"); out, mask = poolgrad.max_pool2d_with_mask(x, 3, 2, 1)``."""
    x = _check_array(x, "x")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    out, mask = _outs(out, ('out', 'mask'),
                      lambda: (_empty_like_lib(x, _pool_out_shape(x, k, s, p, d, bool(ceil_mode)), _float_dtype(x)),
                               _empty_like_lib(x, _mask_shape(x, k, s, p, d, bool(ceil_mode)), "int8")))
    _run("aclnnMaxPool2dWithMask", self=x, kernelSize=k, stride=s, padding=p, dilation=d, ceilMode=bool(ceil_mode),
         out=out, indices=mask)
    return out, mask


def max_pool2d_with_mask_backward(grad_output: Array, x: Array, mask: Array, kernel_size: Size,
                                  stride: Optional[Size] = None, padding: Size = 0, dilation: Size = 1,
                                  ceil_mode: bool = False, *, out: Out = None) -> Array:
    """aclnnMaxPool2dWithMaskBackward: grad_output scattered to the mask's indices; returns
    grad_input of x's shape. Example:
    ``gx = poolgrad.max_pool2d_with_mask_backward(np.ones_like(out), x, mask, 3, 2, 1)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    mask = _check_array(mask, "mask")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _float_dtype(x)))
    _run("aclnnMaxPool2dWithMaskBackward", gradOutput=grad_output, self=x, indices=mask, kernelSize=k, stride=s,
         padding=p, dilation=d, ceilMode=bool(ceil_mode), gradInput=gx)
    return gx


def adaptive_max_pool2d(x: Array, output_size: Size, *, out: Out = None) -> Tuple[Array, Array]:
    """aclnnAdaptiveMaxPool2d: (out, int64 indices), like
    torch.nn.functional.adaptive_max_pool2d(x, output_size, return_indices=True) (channels-last
    inputs are read as the NCHW views they are). x: (N, C, H, W) or (C, H, W), float32, float16 or
    bfloat16 (the C API also takes DOUBLE); output_size: one size or (Hout, Wout). Example:
    ``out, idx = poolgrad.adaptive_max_pool2d(x, (7, 7))``."""
    x = _check_array(x, "x")
    size = _pair(output_size, "output_size")
    if len(size) == 1:
        size = [size[0], size[0]]
    shape = list(x.shape)
    if len(shape) in (3, 4) and len(size) == 2:
        shape[-2], shape[-1] = max(size[0], 1), max(size[1], 1)
    out, idx = _outs(out, ('out', 'indices'), lambda: (_empty_like_lib(x, shape, _float_dtype(x)),
                           _empty_like_lib(x, shape, "int64")))
    _run("aclnnAdaptiveMaxPool2d", self=x, outputSize=size, outputOut=out, indicesOut=idx)
    return out, idx


def adaptive_max_pool2d_backward(grad_output: Array, x: Array, indices: Array, *, out: Out = None) -> Array:
    """aclnnAdaptiveMaxPool2dBackward (every product profile): grad_output scattered to indices
    (int32 or int64), summed where bins overlap; returns grad_input of x's shape. Example:
    ``gx = poolgrad.adaptive_max_pool2d_backward(np.ones_like(out), x, idx)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _float_dtype(x)))
    _run("aclnnAdaptiveMaxPool2dBackward", gradOutput=grad_output, self=x, indices=indices, gradInput=gx)
    return gx


# ---- 3-D max pooling and adaptive 3-D max pooling --------------------------------------------------
def _index_dtype(index_dtype) -> str:
    """'int32' or 'int64' from a name, a NumPy dtype or a torch dtype."""
    if isinstance(index_dtype, str) or type(index_dtype).__module__.startswith("torch"):
        name = str(index_dtype).replace("torch.", "")
    else:
        try:
            name = np.dtype(index_dtype).name
        except TypeError:
            name = None
    if name not in ("int32", "int64"):
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"index_dtype must be int32 or int64 (a name, NumPy or torch dtype), but got {index_dtype!r}")
    return name


def _triple(v, i, default):
    """Axis i of a length-1 or length-3 attribute list (default when the list has another length,
    so that the library itself reports it)."""
    return v[0] if len(v) == 1 else v[i] if len(v) == 3 else default


def _pool3d_out_shape(x, k, s, p, d, ceil_mode):
    """The output shape the operator expects; placeholder sizes when the input is not poolable,
    so that the library itself reports what is wrong."""
    shape = list(x.shape)
    if len(shape) not in (4, 5) or not k:
        return shape
    for i in range(3):
        ki = _triple(k, i, 1)
        si = _triple(s, i, ki) if s else ki
        o = _ext.out_size(shape[-3 + i], ki, si, _triple(p, i, 0), _triple(d, i, 1), ceil_mode)
        shape[-3 + i] = max(o, 1)
    return shape


def max_pool3d_with_indices(x: Array, kernel_size: Size, stride: Optional[Size] = None, padding: Size = 0,
                            dilation: Size = 1, ceil_mode: bool = False, index_dtype: Any = "int64", *,
                            out: Out = None) -> Tuple[Array, Array]:
    """aclnnMaxPool3dWithArgmax: (out, indices), the indices flat d*H*W + h*W + w in each volume, like
    torch.nn.functional.max_pool3d(..., return_indices=True). x: (N, C, D, H, W) or (C, D, H, W).
    INT64 indices need the Ascend950 profile (the default); int32 works on every profile. Example:
    ``out, idx = poolgrad.max_pool3d_with_indices(np.ones((1, 2, 4, 8, 8), np.float32), 2)``."""
    x = _check_array(x, "x")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    index_dtype = _index_dtype(index_dtype)
    shape = _pool3d_out_shape(x, k, s, p, d, bool(ceil_mode))
    out, idx = _outs(out, ('out', 'indices'), lambda: (_empty_like_lib(x, shape, _float_dtype(x)),
                           _empty_like_lib(x, shape, index_dtype)))
    _run("aclnnMaxPool3dWithArgmax", self=x, kernelSize=k, stride=s, padding=p, dilation=d, ceilMode=bool(ceil_mode),
         out=out, indices=idx)
    return out, idx


def max_pool3d_with_indices_backward(grad_output: Array, x: Array, indices: Array, kernel_size: Size,
                                     stride: Optional[Size] = None, padding: Size = 0, dilation: Size = 1,
                                     ceil_mode: bool = False, *, out: Out = None) -> Array:
    """aclnnMaxPool3dWithArgmaxBackward: grad_output scattered to indices, summed where they repeat;
    returns grad_input of x's shape. Example:
    ``gx = poolgrad.max_pool3d_with_indices_backward(np.ones_like(out), x, idx, 2)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    k, s, p, d = _pool_attrs(kernel_size, stride, padding, dilation)
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _float_dtype(x)))
    _run("aclnnMaxPool3dWithArgmaxBackward", gradOutput=grad_output, self=x, indices=indices, kernelSize=k, stride=s,
         padding=p, dilation=d, ceilMode=bool(ceil_mode), gradInput=gx)
    return gx


def adaptive_max_pool3d(x: Array, output_size: Size, index_dtype: Any = "int64", *,
                        out: Out = None) -> Tuple[Array, Array]:
    """aclnnAdaptiveMaxPool3d: (out, indices), like
    torch.nn.functional.adaptive_max_pool3d(x, output_size, return_indices=True).
    x: (N, C, D, H, W) or (C, D, H, W); output_size: one size or (Dout, Hout, Wout). Example:
    ``out, idx = poolgrad.adaptive_max_pool3d(np.ones((1, 2, 4, 8, 8), np.float32), (2, 4, 4))``."""
    x = _check_array(x, "x")
    size = _pair(output_size, "output_size")
    if len(size) == 1:
        size = size * 3
    index_dtype = _index_dtype(index_dtype)
    shape = list(x.shape)
    if len(shape) in (4, 5) and len(size) == 3:
        shape[-3:] = [max(v, 1) for v in size]
    out, idx = _outs(out, ('out', 'indices'), lambda: (_empty_like_lib(x, shape, _float_dtype(x)),
                           _empty_like_lib(x, shape, index_dtype)))
    _run("aclnnAdaptiveMaxPool3d", self=x, outputSize=size, outputOut=out, indicesOut=idx)
    return out, idx


def adaptive_max_pool3d_backward(grad_output: Array, x: Array, indices: Array, *, out: Out = None) -> Array:
    """aclnnAdaptiveMaxPool3dBackward: grad_output scattered to indices, summed where bins overlap;
    returns grad_input of x's shape. Example:
    ``gx = poolgrad.adaptive_max_pool3d_backward(np.ones_like(out), x, idx)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _float_dtype(x)))
    _run("aclnnAdaptiveMaxPool3dBackward", gradOutput=grad_output, self=x, indices=indices, gradInput=gx)
    return gx


# ---- max unpooling ----------------------------------------------------------------------------------
def _unpool_size(output_size, spatial: int, name: str = "output_size", default=None) -> list:
    size = _pair(default if output_size is None and default is not None else output_size, name)
    return size * spatial if len(size) == 1 else size


def _unpool_shape(a, size: list) -> list:
    """a's shape with its plane replaced by size (placeholders where a is not of the rank, so that
    the library itself says what is wrong)."""
    shape = list(a.shape)
    if len(shape) >= len(size):
        shape[len(shape) - len(size):] = [max(v, 0) for v in size]
    return shape


def max_unpool2d(x: Array, indices: Array, output_size: Size, *, out: Out = None) -> Array:
    """aclnnMaxUnpool2d: each element of x written at its index in a zero-filled (Hout, Wout)
    plane, like torch.nn.functional.max_unpool2d(x, indices, ..., output_size=output_size).

    x: (N, C, H, W) or (C, H, W), float32, float16, float64, int8, uint8, int16, int32 or int64;
    indices: int32 or int64 of x's shape, each in [0, Hout*Wout) (the later input element wins
    where two are equal); output_size: (Hout, Wout) with Hout*Wout >= H*W. Returns x's dtype.
    Raises PoolgradError (161002 naming the position and value of an index outside the plane).
    Example: ``y, idx = poolgrad.max_pool2d_with_indices(x, 2); poolgrad.max_unpool2d(y, idx, x.shape[-2:])``."""
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    size = _unpool_size(output_size, 2)
    o = _outs(out, ("out",), lambda: _empty_like_lib(x, _unpool_shape(x, size), _dtype_name(x)))
    _run("aclnnMaxUnpool2d", self=x, indices=indices, outputSize=size, out=o)
    return o


def max_unpool2d_backward(grad_output: Array, x: Array, indices: Array, output_size: Optional[Size] = None,
                          *, out: Out = None) -> Array:
    """aclnnMaxUnpool2dBackward: grad_output gathered at indices; returns grad_input of x's shape
    and dtype (with ``out=`` of another dtype, the values are cast as torch casts them).

    grad_output: (N, C, Hout, Wout) or (C, Hout, Wout) of x's dtype (float32, float16, int8, uint8,
    int16, int32, int64 or bool); output_size defaults to grad_output's plane.
    Raises PoolgradError (161002 naming an index outside the plane). Example:
    ``gx = poolgrad.max_unpool2d_backward(np.ones((1, 1, 4, 4), np.float32), y, idx)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    size = list(grad_output.shape[-2:]) if output_size is None else _unpool_size(output_size, 2)
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _dtype_name(x)))
    _run("aclnnMaxUnpool2dBackward", gradOutput=grad_output, self=x, indices=indices, outputSize=size, out=gx)
    return gx


def max_unpool3d(x: Array, indices: Array, output_size: Size, stride: Optional[Size] = 1,
                 padding: Optional[Size] = 0, *, out: Out = None) -> Array:
    """aclnnMaxUnpool3d: each element of x written at its index in a zero-filled (Dout, Hout,
    Wout) plane, like torch.nn.functional.max_unpool3d(x, indices, ..., output_size=output_size).

    x: (N, C, D, H, W) or (C, D, H, W), dtypes as max_unpool2d's; indices int32 or int64 of x's
    shape, each in [0, Dout*Hout*Wout); stride (> 0) and padding: CANN's reserved arguments,
    checked, not used (None: 1 and 0).
    Raises PoolgradError (161002 naming an index outside the plane). Example:
    ``poolgrad.max_unpool3d(y, idx, (4, 8, 8))``."""
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    size = _unpool_size(output_size, 3)
    o = _outs(out, ("out",), lambda: _empty_like_lib(x, _unpool_shape(x, size), _dtype_name(x)))
    _run("aclnnMaxUnpool3d", self=x, indices=indices, outputSize=size, stride=_unpool_size(stride, 3, "stride", 1),
         padding=_unpool_size(padding, 3, "padding", 0), outRef=o)
    return o


def max_unpool3d_backward(grad_output: Array, x: Array, indices: Array, output_size: Optional[Size] = None,
                          stride: Optional[Size] = 1, padding: Optional[Size] = 0, *, out: Out = None) -> Array:
    """aclnnMaxUnpool3dBackward: grad_output gathered at indices (int64); returns grad_input of x's
    shape and dtype (float32, float16, float64, int8, uint8, int16, int32 or int64).
    Raises PoolgradError as max_unpool3d. Example:
    ``gx = poolgrad.max_unpool3d_backward(np.ones((1, 1, 4, 8, 8), np.float32), y, idx)``."""
    grad_output = _check_array(grad_output, "grad_output")
    x = _check_array(x, "x")
    indices = _check_array(indices, "indices")
    size = list(grad_output.shape[-3:]) if output_size is None else _unpool_size(output_size, 3)
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, list(x.shape), _dtype_name(x)))
    _run("aclnnMaxUnpool3dBackward", gradOutput=grad_output, self=x, indices=indices, outputSize=size,
         stride=_unpool_size(stride, 3, "stride", 1), padding=_unpool_size(padding, 3, "padding", 0), out=gx)
    return gx


# ---- RoI pooling -------------------------------------------------------------------------------------
def _scales(spatial_scale):
    if isinstance(spatial_scale, numbers.Real):
        return float(spatial_scale), float(spatial_scale)
    try:
        h, w = spatial_scale
        return float(h), float(w)
    except (TypeError, ValueError):
        raise PoolgradError(ACLNN_ERR_PARAM_INVALID,
                            f"spatial_scale must be a float or a pair (h, w), but got {spatial_scale!r}")


def roi_pool_with_argmax(x: Array, rois: Array, output_size: Size, spatial_scale: Union[float, Sequence[float]],
                         *, out: Out = None) -> Tuple[Array, Array]:
    """aclnnRoiPoolingWithArgMax: Fast R-CNN RoI max pooling with CANN's geometry; returns
    (y, argmax int32). x: (N, C, H, W) float32 or float16; rois: (R, 5) rows (batch_index, x1, y1,
    x2, y2) of x's dtype; y: (R, C, pooled_h, pooled_w). Example:
    ``y, am = poolgrad.roi_pool_with_argmax(x, np.array([[0, 0, 0, 15, 15]], np.float32), 7, 0.5)``."""
    x = _check_array(x, "x")
    rois = _check_array(rois, "rois")
    o = _pair(output_size, "output_size")
    ph, pw = (o[0], o[-1]) if len(o) in (1, 2) else (0, 0)
    sh, sw = _scales(spatial_scale)
    r = rois.shape[0] if len(rois.shape) >= 1 else 0
    c = x.shape[1] if len(x.shape) >= 2 else 0
    shape = [r, c, max(ph, 0), max(pw, 0)]
    y, argmax = _outs(out, ('y', 'argmax'),
                      lambda: (_empty_like_lib(x, shape, _float_dtype(x, ("float32", "float16"))),
                               _empty_like_lib(x, shape, "int32")))
    _run("aclnnRoiPoolingWithArgMax", x=x, rois=rois, pooled_h=ph, pooled_w=pw, spatial_scale_h=sh, spatial_scale_w=sw,
         y=y, argmax=argmax)
    return y, argmax


def roi_pool_with_argmax_backward(grad_output: Array, rois: Array, argmax: Array, input_shape: Sequence[int],
                                  spatial_scale: float = 1.0, *, out: Out = None) -> Array:
    """aclnnRoiPoolingGradWithArgMax: grad_output scattered to (batch, c, argmax); -1 skipped.
    input_shape: (N, C, H, W) of the feature map; returns grad_input of that shape. Example:
    ``gx = poolgrad.roi_pool_with_argmax_backward(np.ones_like(y), rois, am, x.shape, 0.5)``."""
    grad_output = _check_array(grad_output, "grad_output")
    rois = _check_array(rois, "rois")
    argmax = _check_array(argmax, "argmax")
    shape = [int(v) for v in input_shape]
    _scales(spatial_scale)
    gx = _outs(out, ("out",),
               lambda: _empty_like_lib(grad_output, shape, _float_dtype(grad_output, ("float32", "float16"))))
    gs = list(grad_output.shape)
    ph, pw = (gs[2], gs[3]) if len(gs) == 4 else (0, 0)
    _run("aclnnRoiPoolingGradWithArgMax", gradOutput=grad_output, gradInputRef=gx, rois=rois, argmax=argmax, pooledH=ph,
         pooledW=pw, spatialScale=float(_scales(spatial_scale)[0]))
    return gx


# ---- RoIAlign ---------------------------------------------------------------------------------------
def _roi_align_out(x, boxes, output_size, out):
    """The pooled size and the (K, C, out_h, out_w) output of x's dtype (placeholder sizes for
    arrays of the wrong rank: the library then says what is wrong)."""
    o = _pair(output_size, "output_size")
    ph, pw = (o[0], o[-1]) if len(o) in (1, 2) else (0, 0)
    k = boxes.shape[0] if len(boxes.shape) >= 1 else 0
    c = x.shape[1] if len(x.shape) >= 2 else 0
    y = _outs(out, ("out",), lambda: _empty_like_lib(x, [k, c, max(ph, 0), max(pw, 0)],
                                                      _float_dtype(x, ("float32", "float16"))))
    return ph, pw, y


def roi_align(x: Array, boxes: Array, output_size: Size, spatial_scale: float = 1.0, sampling_ratio: int = -1,
              aligned: bool = False, *, out: Out = None) -> Array:
    """aclnnRoiAlignV2: torchvision.ops.roi_align on (K, 5) boxes (batch_index, x1, y1, x2, y2);
    float32 results are bitwise torchvision's. x: (B, C, H, W) float32 or float16; boxes of x's
    dtype; sampling_ratio <= 0: ceil(box side / output side) samples per bin side (CANN's API takes
    0 for that, torchvision's -1: both work here); returns (K, C, out_h, out_w). Example:
    ``y = poolgrad.roi_align(x, np.array([[0, 1, 1, 9, 9]], np.float32), 7, 0.5, 2, aligned=True)``."""
    x = _check_array(x, "x")
    boxes = _check_array(boxes, "boxes")
    ph, pw, y = _roi_align_out(x, boxes, output_size, out)
    _run("aclnnRoiAlignV2", self=x, boxes=boxes, pooledHeight=ph, pooledWidth=pw, spatialScale=float(spatial_scale),
         samplingRatio=max(int(sampling_ratio), 0), aligned=bool(aligned), out=y)
    return y


def roi_align_backward(grad_output: Array, boxes: Array, input_shape: Sequence[int], spatial_scale: float = 1.0,
                       sampling_ratio: int = -1, aligned: bool = False, *, out: Out = None) -> Array:
    """aclnnRoiAlignV2Backward: the gradient of roi_align, each sample's bilinear weights scattered
    back; the same bits for any thread count (each element summed in box, bin, sample order, as
    torchvision's CPU kernel adds). grad_output: (K, C, out_h, out_w) float32; input_shape: the
    forward's (B, C, H, W). Example:
    ``gx = poolgrad.roi_align_backward(np.ones((1, 3, 7, 7), np.float32), boxes, (1, 3, 32, 32), 0.5, 2)``."""
    grad_output = _check_array(grad_output, "grad_output")
    boxes = _check_array(boxes, "boxes")
    shape = [int(v) for v in input_shape]
    gs = list(grad_output.shape)
    ph, pw = (gs[2], gs[3]) if len(gs) == 4 else (0, 0)
    gx = _outs(out, ("out",), lambda: _empty_like_lib(grad_output, shape, _float_dtype(grad_output, ("float32",))))
    _run("aclnnRoiAlignV2Backward", gradOutput=grad_output, boxes=boxes, inputShape=list(gx.shape), pooledHeight=ph,
         pooledWidth=pw, spatialScale=float(spatial_scale), samplingRatio=max(int(sampling_ratio), 0),
         aligned=bool(aligned), gradInput=gx)
    return gx


def roi_align_onnx(x: Array, rois: Array, batch_indices: Array, output_size: Size = 1, sampling_ratio: int = 0,
                   spatial_scale: float = 1.0, mode: str = "avg", *, out: Out = None) -> Array:
    """aclnnRoiAlign: ONNX's RoiAlign (opset 10, as onnxruntime computes it): rois (K, 4) rows
    (x1, y1, x2, y2) of x's dtype, batch_indices (K,) int32, mode "avg" or "max" (the largest
    weighted corner of any sample); returns (K, C, out_h, out_w). Example:
    ``y = poolgrad.roi_align_onnx(x, np.array([[1, 1, 9, 9]], np.float32), np.zeros(1, np.int32), 7)``."""
    x = _check_array(x, "x")
    rois = _check_array(rois, "rois")
    batch_indices = _check_array(batch_indices, "batch_indices")
    ph, pw, y = _roi_align_out(x, rois, output_size, out)
    _run("aclnnRoiAlign", self=x, rois=rois, batchIndices=batch_indices, mode=str(mode), outputHeight=ph, outputWidth=pw,
         samplingRatio=int(sampling_ratio), spatialScale=float(spatial_scale), out=y)
    return y


# Every operator function says what it raises.
for _f in (max_pool2d_with_indices, max_pool2d_with_indices_backward, max_pool2d_with_mask,
           max_pool2d_with_mask_backward, adaptive_max_pool2d, adaptive_max_pool2d_backward,
           max_pool3d_with_indices, max_pool3d_with_indices_backward, adaptive_max_pool3d,
           adaptive_max_pool3d_backward, roi_pool_with_argmax, roi_pool_with_argmax_backward, roi_align,
           roi_align_backward, roi_align_onnx):
    _f.__doc__ += _RAISES
del _f
