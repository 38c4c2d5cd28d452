# SPDX-License-Identifier: Apache-2.0
"""poolgrad as the CPU golden, and as the third-party implementation, for CANN's operator test kit.

The kit (hicann/ops-test-kit) loads a plugin file with --plugin and reads its literal __spec__
(with `ast`, without running the file), which maps each aclnn API to a TestSpec class. As the kit
calls them on its aclnn path (written from its public plugin documentation and sources):

- `golden(*args, **kwargs)` and `third_party["torch"](*args, **kwargs)` get the API's
  GetWorkspaceSize parameters in the header's order (without workspaceSize and executor), outputs
  included: tensors as torch tensors, aclIntArray as lists; attribute values are looked up by
  their C names in the case's `attributes` and passed by position. kwargs carry the kit's context
  (`short_soc_version`, `tensor_dtypes`, `testcase_name`, ...). They return the outputs as a list.
- `customize_inputs(*args, **kwargs)` gets the same positional arguments and fills the kit's own
  tensors in place (the kit discards the return value on its aclnn path; it is also returned, for
  kits that use it): a backward's indices, mask or argmax from poolgrad's forward on the same
  input, RoIs inside the image with valid batch indices.
- `tolerance` declares only the integer outputs (binary_equal): floating outputs take the kit's
  default standard (mix_tolerance in current kits; older kits reject that name in a tolerance
  entry, so it is not written).

In the kit's "promote" golden mode float16 / bfloat16 inputs reach the golden as float32: poolgrad
then computes in float32. Max pooling selects values, so the outputs rounded back to the 16-bit
dtype and the indices are the same as computing in that dtype.

The case files beside this one, one per product family (every case valid on that product), are
run as

  python3 -m ttk aclnn -i "$(dirname "$(poolgrad ttk-plugin)")"/ttk_cases_ascend950.csv \\
      --plugin "$(poolgrad ttk-plugin)"

(ttk_cases_ascend910b.csv for Atlas A2/A3). docs/golden.md describes both.
"""
from __future__ import annotations

import numpy as np

from poolgrad import suite  # absolute: the kit runs this file by its path, outside the package

PRODUCTS = ("Ascend950", "Ascend910B", "Ascend910_93")

# Each API: poolgrad's operator and the GetWorkspaceSize parameters in the header's order.
_POOL = ("kernelSize", "stride", "padding", "dilation", "ceilMode")
_API = {
    "aclnnMaxPool2dWithIndices": ("max-pool2d", ("self",) + _POOL + ("out", "indices")),
    "aclnnMaxPool2dWithIndicesBackward": (
        "max-pool2d-backward", ("gradOutput", "self", "indices") + _POOL + ("gradInput",)),
    "aclnnMaxPool2dWithMask": ("max-pool2d-mask", ("self",) + _POOL + ("out", "indices")),
    "aclnnMaxPool2dWithMaskBackward": (
        "max-pool2d-mask-backward", ("gradOutput", "self", "indices") + _POOL + ("gradInput",)),
    "aclnnAdaptiveMaxPool2d": ("adaptive-max-pool2d", ("self", "outputSize", "outputOut", "indicesOut")),
    "aclnnAdaptiveMaxPool2dBackward": (
        "adaptive-max-pool2d-backward", ("gradOutput", "self", "indices", "gradInput")),
    "aclnnMaxPool3dWithArgmax": ("max-pool3d", ("self",) + _POOL + ("out", "indices")),
    "aclnnMaxPool3dWithArgmaxBackward": (
        "max-pool3d-backward", ("gradOutput", "self", "indices") + _POOL + ("gradInput",)),
    "aclnnAdaptiveMaxPool3d": ("adaptive-max-pool3d", ("self", "outputSize", "outputOut", "indicesOut")),
    "aclnnAdaptiveMaxPool3dBackward": (
        "adaptive-max-pool3d-backward", ("gradOutput", "self", "indices", "gradInput")),
    "aclnnRoiPoolingWithArgMax": (
        "roi-pool", ("x", "rois", "pooled_h", "pooled_w", "spatial_scale_h", "spatial_scale_w", "y", "argmax")),
    "aclnnRoiPoolingGradWithArgMax": (
        "roi-pool-backward", ("gradOutput", "gradInputRef", "rois", "argmax", "pooledH", "pooledW", "spatialScale")),
}


def _bind(api, args, kwargs):
    """The header's parameters by name: positional values first, then any the kit passed by name."""
    names = _API[api][1]
    a = dict(zip(names, args))
    for n in names[len(args):]:
        if n in kwargs:
            a[n] = kwargs[n]
    return a


def _product(kwargs):
    """The kit's short_soc_version, when it names a product poolgrad has a profile for."""
    soc = str(kwargs.get("short_soc_version") or "")
    return next((p for p in sorted(PRODUCTS, key=len, reverse=True) if soc.startswith(p)), None)


def _dtype_name(t, default="int64"):
    return str(t.dtype).replace("torch.", "") if t is not None else default


def _pool_attrs(a):
    stride = a.get("stride")
    return {"kernel": list(a["kernelSize"]), "stride": list(stride) if stride is not None else None,
            "padding": list(a["padding"]), "dilation": list(a["dilation"]), "ceil_mode": bool(a["ceilMode"])}


def _operator_call(api, a):
    """poolgrad's operator inputs and attributes for the bound header parameters."""
    op = _API[api][0]
    if api in ("aclnnMaxPool2dWithIndices", "aclnnMaxPool3dWithArgmax"):
        return {"x": a["self"]}, {**_pool_attrs(a), "index_dtype": _dtype_name(a.get("indices"))}
    if api == "aclnnMaxPool2dWithMask":
        return {"x": a["self"]}, _pool_attrs(a)
    if api in ("aclnnAdaptiveMaxPool2d", "aclnnAdaptiveMaxPool3d"):
        return {"x": a["self"]}, {"output_size": list(a["outputSize"]),
                                  "index_dtype": _dtype_name(a.get("indicesOut"))}
    if api == "aclnnRoiPoolingWithArgMax":
        return {"x": a["x"], "rois": a["rois"]}, {
            "output_size": [int(a["pooled_h"]), int(a["pooled_w"])],
            "spatial_scale": (float(a["spatial_scale_h"]), float(a["spatial_scale_w"]))}
    if api == "aclnnRoiPoolingGradWithArgMax":
        # gradInputRef is the output (CANN overwrites it): only its shape is used.
        return {"grad_output": a["gradOutput"], "rois": a["rois"], "argmax": a["argmax"]}, {
            "input_shape": list(a["gradInputRef"].shape), "spatial_scale": float(a["spatialScale"])}
    index_name = suite.OPERATORS[op].index  # a backward: "indices" or "mask"
    attrs = _pool_attrs(a) if "kernelSize" in _API[api][1] else {}
    return {"grad_output": a["gradOutput"], "x": a["self"], index_name: a["indices"]}, attrs


def _run(api, a, kwargs):
    op = _API[api][0]
    inputs, attrs = _operator_call(api, a)
    outs = suite.run_operator(op, inputs, attrs, _product(kwargs))
    return [outs[name] for name in suite.OPERATORS[op].outputs]


def _fill(target, values):
    """Writes values into the kit's tensor in place (torch copy_, or NumPy assignment)."""
    if hasattr(target, "copy_"):
        import torch
        target.copy_(torch.as_tensor(np.asarray(values)).to(target.dtype))
    else:
        target[...] = np.asarray(values).astype(target.dtype)


def _cpu(v):
    """A device tensor (the kit's cross check passes them) as a CPU tensor; other values as given."""
    return v.cpu() if hasattr(v, "cpu") and hasattr(v, "device") and v.device.type != "cpu" else v


def _make_golden(api):
    def golden(*args, **kwargs):
        return _run(api, _bind(api, args, kwargs), kwargs)

    def third_party(*args, **kwargs):
        return _run(api, {k: _cpu(v) for k, v in _bind(api, args, kwargs).items()}, kwargs)

    golden.__name__ = api + "_golden"
    return golden, third_party


# ---- customize_inputs: what the kit cannot draw at random, written into its tensors -----------
_FORWARD_OF = {
    "aclnnMaxPool2dWithIndicesBackward": "aclnnMaxPool2dWithIndices",
    "aclnnMaxPool2dWithMaskBackward": "aclnnMaxPool2dWithMask",
    "aclnnMaxPool3dWithArgmaxBackward": "aclnnMaxPool3dWithArgmax",
    "aclnnAdaptiveMaxPool2dBackward": "aclnnAdaptiveMaxPool2d",
    "aclnnAdaptiveMaxPool3dBackward": "aclnnAdaptiveMaxPool3d",
}


def _rois_for(rois, feature_shape, scale_h, scale_w):
    """Valid rows (batch index in [0, N), a box inside the image) for the kit's random ones."""
    return suite.make_rois(list(feature_shape), int(rois.shape[0]), (float(scale_h), float(scale_w)), "float32",
                           np.random.default_rng(0))


def _make_customize(api):
    def customize_inputs(*args, **kwargs):
        a = _bind(api, args, kwargs)
        if api == "aclnnRoiPoolingWithArgMax":
            _fill(a["rois"], _rois_for(a["rois"], a["x"].shape, a["spatial_scale_h"], a["spatial_scale_w"]))
        elif api == "aclnnRoiPoolingGradWithArgMax":
            # The forward on gradInputRef's values as the feature map, so the argmax is consistent.
            scale = a["spatialScale"]
            _fill(a["rois"], _rois_for(a["rois"], a["gradInputRef"].shape, scale, scale))
            fwd = {"x": a["gradInputRef"], "rois": a["rois"], "pooled_h": a["pooledH"], "pooled_w": a["pooledW"],
                   "spatial_scale_h": scale, "spatial_scale_w": scale, "argmax": a["argmax"]}
            _fill(a["argmax"], _run("aclnnRoiPoolingWithArgMax", fwd, kwargs)[1])
        else:  # a backward: the forward's index output on the same self
            forward = _FORWARD_OF[api]
            fwd = {"self": a["self"], "indices": a["indices"], "indicesOut": a["indices"]}
            if "kernelSize" in a:
                fwd.update({k: a[k] for k in _POOL})
            else:
                spatial = 3 if "3d" in api else 2  # the pooled sizes: gradOutput's last dims
                fwd["outputSize"] = list(a["gradOutput"].shape[-spatial:])
            _fill(a["indices"], _run(forward, fwd, kwargs)[1])
        return tuple(args)

    return customize_inputs


# ---- the kit's registry: __spec__ must be a literal (the kit reads it without running the file) ----
# Only the integer outputs: indices, argmax and masks bit for bit. Floating outputs take the kit's
# default standard.
_TOLERANCE = {"int64": {"standard": "binary_equal"}, "int32": {"standard": "binary_equal"},
              "int8": {"standard": "binary_equal"}}

__spec__ = {  # noqa: F811 - the kit's contract, not the import system's module spec
    "aclnnMaxPool2dWithIndices": "MaxPool2dWithIndicesTestSpec",
    "aclnnMaxPool2dWithIndicesBackward": "MaxPool2dWithIndicesBackwardTestSpec",
    "aclnnMaxPool2dWithMask": "MaxPool2dWithMaskTestSpec",
    "aclnnMaxPool2dWithMaskBackward": "MaxPool2dWithMaskBackwardTestSpec",
    "aclnnAdaptiveMaxPool2d": "AdaptiveMaxPool2dTestSpec",
    "aclnnAdaptiveMaxPool2dBackward": "AdaptiveMaxPool2dBackwardTestSpec",
    "aclnnMaxPool3dWithArgmax": "MaxPool3dWithArgmaxTestSpec",
    "aclnnMaxPool3dWithArgmaxBackward": "MaxPool3dWithArgmaxBackwardTestSpec",
    "aclnnAdaptiveMaxPool3d": "AdaptiveMaxPool3dTestSpec",
    "aclnnAdaptiveMaxPool3dBackward": "AdaptiveMaxPool3dBackwardTestSpec",
    "aclnnRoiPoolingWithArgMax": "RoiPoolingWithArgMaxTestSpec",
    "aclnnRoiPoolingGradWithArgMax": "RoiPoolingGradWithArgMaxTestSpec",
}


def _spec(api):
    """A TestSpec class: poolgrad's golden and third party, the tolerances, and customize_inputs
    where the kit cannot draw the inputs at random."""
    golden, third_party = _make_golden(api)
    attrs = {"golden": staticmethod(golden), "third_party": {"torch": third_party}, "tolerance": _TOLERANCE}
    if api in _FORWARD_OF or "Roi" in api:
        attrs["customize_inputs"] = staticmethod(_make_customize(api))
    return type(__spec__[api], (), attrs)


MaxPool2dWithIndicesTestSpec = _spec("aclnnMaxPool2dWithIndices")
MaxPool2dWithIndicesBackwardTestSpec = _spec("aclnnMaxPool2dWithIndicesBackward")
MaxPool2dWithMaskTestSpec = _spec("aclnnMaxPool2dWithMask")
MaxPool2dWithMaskBackwardTestSpec = _spec("aclnnMaxPool2dWithMaskBackward")
AdaptiveMaxPool2dTestSpec = _spec("aclnnAdaptiveMaxPool2d")
AdaptiveMaxPool2dBackwardTestSpec = _spec("aclnnAdaptiveMaxPool2dBackward")
MaxPool3dWithArgmaxTestSpec = _spec("aclnnMaxPool3dWithArgmax")
MaxPool3dWithArgmaxBackwardTestSpec = _spec("aclnnMaxPool3dWithArgmaxBackward")
AdaptiveMaxPool3dTestSpec = _spec("aclnnAdaptiveMaxPool3d")
AdaptiveMaxPool3dBackwardTestSpec = _spec("aclnnAdaptiveMaxPool3dBackward")
RoiPoolingWithArgMaxTestSpec = _spec("aclnnRoiPoolingWithArgMax")
RoiPoolingGradWithArgMaxTestSpec = _spec("aclnnRoiPoolingGradWithArgMax")
