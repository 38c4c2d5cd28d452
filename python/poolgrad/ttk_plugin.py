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
from poolgrad.operators import BY_API

PRODUCTS = ("Ascend950", "Ascend910B", "Ascend910_93")

_POOL = ("kernelSize", "stride", "padding", "dilation", "ceilMode")
# Each API's descriptor (operators.json): poolgrad's operator, the GetWorkspaceSize parameters in
# the header's order, the C parameter of each input and output, and a backward's forward.
_API = BY_API


def _bind(api, args, kwargs):
    """The header's parameters by name: positional values first, then any the kit passed by name."""
    names = _API[api].params
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
    spec = _API[api]
    inputs = {name: a[c] for name, c in spec.inputs}
    if api == "aclnnRoiPoolingWithArgMax":
        return inputs, {"output_size": [int(a["pooled_h"]), int(a["pooled_w"])],
                        "spatial_scale": (float(a["spatial_scale_h"]), float(a["spatial_scale_w"]))}
    if api == "aclnnRoiPoolingGradWithArgMax":
        # gradInputRef is the output (CANN overwrites it): only its shape is used.
        return inputs, {"input_shape": list(a["gradInputRef"].shape), "spatial_scale": float(a["spatialScale"])}
    if api in ("aclnnRoiAlignV2", "aclnnRoiAlignV2Backward"):
        attrs = {"spatial_scale": float(a["spatialScale"]), "sampling_ratio": int(a["samplingRatio"]),
                 "aligned": bool(a["aligned"])}
        if api == "aclnnRoiAlignV2":
            attrs["output_size"] = [int(a["pooledHeight"]), int(a["pooledWidth"])]
        else:
            attrs["input_shape"] = [int(v) for v in a["inputShape"]]
        return inputs, attrs
    if api == "aclnnRoiAlign":
        return inputs, {"output_size": [int(a["outputHeight"]), int(a["outputWidth"])],
                        "sampling_ratio": int(a["samplingRatio"]), "spatial_scale": float(a["spatialScale"]),
                        "mode": str(a["mode"])}
    attrs = _pool_attrs(a) if "kernelSize" in spec.params else {}
    if "outputSize" in spec.params:
        attrs["output_size"] = list(a["outputSize"])
    if "stride" in spec.attributes and "kernelSize" not in spec.params:  # the 3-D unpool's reserved
        attrs.update(stride=list(a["stride"]), padding=list(a["padding"]))
    if "index_dtype" in spec.attributes:  # the dtype of the index output the kit allocated
        attrs["index_dtype"] = _dtype_name(a.get(spec.c_name("indices")))
    return inputs, attrs


def _run(api, a, kwargs):
    spec = _API[api]
    inputs, attrs = _operator_call(api, a)
    outs = suite.run_operator(spec.name, inputs, attrs, _product(kwargs))
    return [outs[name] for name in spec.output_names]


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
        elif api in ("aclnnRoiAlignV2", "aclnnRoiAlignV2Backward"):
            shape = a["self"].shape if api == "aclnnRoiAlignV2" else [int(v) for v in a["inputShape"]]
            scale = a["spatialScale"]
            _fill(a["boxes"], _rois_for(a["boxes"], shape, scale, scale))
        elif api == "aclnnRoiAlign":  # (K, 4) RoIs and their INT32 batch indices apart
            rows = _rois_for(a["rois"], a["self"].shape, a["spatialScale"], a["spatialScale"])
            _fill(a["rois"], rows[:, 1:])
            _fill(a["batchIndices"], rows[:, 0])
        elif suite.consumes_indices(_API[api]):  # a max unpool: distinct positions of each plane
            indices = suite.make_unpool_indices(list(a["self"].shape), list(a["outputSize"]),
                                                _dtype_name(a["indices"]), np.random.default_rng(0))
            _fill(a["indices"], indices)
        else:  # a backward: the forward's index output on the same self
            forward = suite.OPERATORS[_API[api].forward].aclnn
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
    "aclnnMaxUnpool2d": "MaxUnpool2dTestSpec",
    "aclnnMaxUnpool2dBackward": "MaxUnpool2dBackwardTestSpec",
    "aclnnMaxUnpool3d": "MaxUnpool3dTestSpec",
    "aclnnMaxUnpool3dBackward": "MaxUnpool3dBackwardTestSpec",
    "aclnnRoiAlignV2": "RoiAlignV2TestSpec",
    "aclnnRoiAlignV2Backward": "RoiAlignV2BackwardTestSpec",
    "aclnnRoiAlign": "RoiAlignTestSpec",
}


def _spec(api):
    """A TestSpec class: poolgrad's golden and third party, the tolerances, and customize_inputs
    where the kit cannot draw the inputs at random."""
    golden, third_party = _make_golden(api)
    attrs = {"golden": staticmethod(golden), "third_party": {"torch": third_party}, "tolerance": _TOLERANCE}
    if _API[api].forward or "Roi" in api or suite.consumes_indices(_API[api]):
        attrs["customize_inputs"] = staticmethod(_make_customize(api))
    return type(__spec__[api], (), attrs)


# The classes __spec__ names (the kit looks each up by that name).
for _api, _cls in __spec__.items():
    globals()[_cls] = _spec(_api)
