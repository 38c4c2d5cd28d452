# SPDX-License-Identifier: Apache-2.0
"""poolgrad as the CPU golden, and as the third-party implementation, for CANN's operator test kit.

The kit (hicann/ops-test-kit) loads a plugin file with --plugin; the file's __spec__ maps each
aclnn API to a class whose `golden` takes the API's GetWorkspaceSize arguments in their order
(without workspaceSize and executor: tensors as torch tensors, aclIntArray as lists, outputs
last and optional; the kit passes tensors by position and attributes by name) plus keyword
context, and returns the list of outputs; `customize_inputs` makes inputs the kit cannot draw at
random (a backward's indices come from poolgrad's forward on the same x, RoIs inside the image);
`third_party` is the implementation the dual ("cross_check") standard compares the device with.
Here every golden runs poolgrad on the CPU, so

  python3 -m ttk aclnn -i "$(dirname "$(poolgrad ttk-plugin)")"/ttk_cases.csv --plugin "$(poolgrad ttk-plugin)"

judges the device against poolgrad. The example case file ttk_cases.csv beside this one has a
case for each API; docs/golden.md describes both. Written from the kit's public documentation.
"""
from __future__ import annotations

import numpy as np

from poolgrad import suite  # absolute: the kit runs this file by its path, outside the package

PRODUCTS = ("Ascend950", "Ascend910B", "Ascend910_93")


def _product(kwargs):
    """The kit's short_soc_version, when it names a product poolgrad has a profile for."""
    soc = str(kwargs.get("short_soc_version") or "")
    return next((p for p in sorted(PRODUCTS, key=len, reverse=True) if soc.startswith(p)), None)


def _index_dtype(indices, kwargs):
    """The indices output's dtype: the output tensor's when the kit passes it, else the last of
    the case's tensor_dtypes (the indices are the API's last tensor), else int64."""
    if indices is not None:
        return str(indices.dtype).replace("torch.", "")
    dtypes = kwargs.get("tensor_dtypes") or ()
    last = str(dtypes[-1]).replace("torch.", "") if len(dtypes) else ""
    return last if last in ("int32", "int64") else "int64"


def _run(op, inputs, attrs, kwargs):
    outs = suite.run_operator(op, inputs, attrs, _product(kwargs))
    return [outs[name] for name in suite.OPERATORS[op].outputs]


def _pool(kernelSize, stride, padding, dilation, ceilMode):
    return {"kernel": list(kernelSize), "stride": list(stride) if stride is not None else None,
            "padding": list(padding), "dilation": list(dilation), "ceil_mode": bool(ceilMode)}


def max_pool2d_with_indices(selfT, kernelSize, stride, padding, dilation, ceilMode, out=None,
                            indices=None, **kwargs):
    attrs = {**_pool(kernelSize, stride, padding, dilation, ceilMode), "index_dtype": _index_dtype(indices, kwargs)}
    return _run("max-pool2d", {"x": selfT}, attrs, kwargs)


def max_pool2d_with_indices_backward(gradOutput, selfT, indices, kernelSize, stride, padding, dilation,
                                     ceilMode, gradInput=None, **kwargs):
    return _run("max-pool2d-backward", {"grad_output": gradOutput, "x": selfT, "indices": indices},
                _pool(kernelSize, stride, padding, dilation, ceilMode), kwargs)


def max_pool2d_with_mask(selfT, kernelSize, stride, padding, dilation, ceilMode, out=None, indices=None,
                         **kwargs):
    return _run("max-pool2d-mask", {"x": selfT}, _pool(kernelSize, stride, padding, dilation, ceilMode), kwargs)


def max_pool2d_with_mask_backward(gradOutput, selfT, indices, kernelSize, stride, padding, dilation,
                                  ceilMode, gradInput=None, **kwargs):
    return _run("max-pool2d-mask-backward", {"grad_output": gradOutput, "x": selfT, "mask": indices},
                _pool(kernelSize, stride, padding, dilation, ceilMode), kwargs)


def adaptive_max_pool2d(selfT, outputSize, outputOut=None, indicesOut=None, **kwargs):
    return _run("adaptive-max-pool2d", {"x": selfT}, {"output_size": list(outputSize)}, kwargs)


def adaptive_max_pool2d_backward(gradOutput, selfT, indices, gradInput=None, **kwargs):
    return _run("adaptive-max-pool2d-backward", {"grad_output": gradOutput, "x": selfT, "indices": indices},
                {}, kwargs)


def max_pool3d_with_argmax(selfT, kernelSize, stride, padding, dilation, ceilMode, out=None, indices=None,
                           **kwargs):
    attrs = {**_pool(kernelSize, stride, padding, dilation, ceilMode), "index_dtype": _index_dtype(indices, kwargs)}
    return _run("max-pool3d", {"x": selfT}, attrs, kwargs)


def max_pool3d_with_argmax_backward(gradOutput, selfT, indices, kernelSize, stride, padding, dilation,
                                    ceilMode, gradInput=None, **kwargs):
    return _run("max-pool3d-backward", {"grad_output": gradOutput, "x": selfT, "indices": indices},
                _pool(kernelSize, stride, padding, dilation, ceilMode), kwargs)


def adaptive_max_pool3d(selfT, outputSize, outputOut=None, indicesOut=None, **kwargs):
    return _run("adaptive-max-pool3d", {"x": selfT},
                {"output_size": list(outputSize), "index_dtype": _index_dtype(indicesOut, kwargs)}, kwargs)


def adaptive_max_pool3d_backward(gradOutput, selfT, indices, gradInput=None, **kwargs):
    return _run("adaptive-max-pool3d-backward", {"grad_output": gradOutput, "x": selfT, "indices": indices},
                {}, kwargs)


def roi_pooling_with_argmax(x, rois, pooled_h, pooled_w, spatial_scale_h, spatial_scale_w, y=None,
                            argmax=None, **kwargs):
    return _run("roi-pool", {"x": x, "rois": rois},
                {"output_size": [int(pooled_h), int(pooled_w)],
                 "spatial_scale": (float(spatial_scale_h), float(spatial_scale_w))}, kwargs)


def roi_pooling_grad_with_argmax(gradOutput, gradInputRef, rois, argmax, pooledH, pooledW, spatialScale,
                                 **kwargs):
    """gradInputRef is the output (CANN overwrites it): its shape is the feature map's."""
    return _run("roi-pool-backward", {"grad_output": gradOutput, "rois": rois, "argmax": argmax},
                {"input_shape": list(gradInputRef.shape), "spatial_scale": float(spatialScale)}, kwargs)


# ---- inputs: backward cases get their indices from poolgrad's forward on the same x ----------
def _like(a, ref):
    import torch
    return torch.as_tensor(np.asarray(a)).to(ref.dtype) if _is_torch(ref) else np.asarray(a).astype(ref.dtype)


def _is_torch(a):
    return type(a).__module__.split(".")[0] == "torch"


def max_pool2d_backward_inputs(gradOutput, selfT, indices, kernelSize, stride, padding, dilation, ceilMode,
                               **kwargs):
    out = max_pool2d_with_indices(selfT, kernelSize, stride, padding, dilation, ceilMode, indices=indices, **kwargs)
    return gradOutput, selfT, out[1]


def max_pool2d_mask_backward_inputs(gradOutput, selfT, indices, kernelSize, stride, padding, dilation,
                                    ceilMode, **kwargs):
    return gradOutput, selfT, max_pool2d_with_mask(selfT, kernelSize, stride, padding, dilation, ceilMode, **kwargs)[1]


def adaptive_max_pool2d_backward_inputs(gradOutput, selfT, indices, **kwargs):
    return gradOutput, selfT, _like(adaptive_max_pool2d(selfT, list(gradOutput.shape[-2:]), **kwargs)[1], indices)


def max_pool3d_backward_inputs(gradOutput, selfT, indices, kernelSize, stride, padding, dilation, ceilMode,
                               **kwargs):
    out = max_pool3d_with_argmax(selfT, kernelSize, stride, padding, dilation, ceilMode, indices=indices, **kwargs)
    return gradOutput, selfT, out[1]


def adaptive_max_pool3d_backward_inputs(gradOutput, selfT, indices, **kwargs):
    out = adaptive_max_pool3d(selfT, list(gradOutput.shape[-3:]), indicesOut=indices, **kwargs)
    return gradOutput, selfT, out[1]


def _rois(rois, feature_shape, scale_h, scale_w, seed=0):
    """Valid rows (batch index in [0, N), a box inside the image) in place of random ones."""
    r = suite.make_rois(list(feature_shape), int(rois.shape[0]), (float(scale_h), float(scale_w)), "float32",
                        np.random.default_rng(seed))
    return _like(r, rois)


def roi_pooling_inputs(x, rois, pooled_h, pooled_w, spatial_scale_h, spatial_scale_w, **kwargs):
    return x, _rois(rois, x.shape, spatial_scale_h, spatial_scale_w)


def roi_pooling_grad_inputs(gradOutput, gradInputRef, rois, argmax, pooledH, pooledW, spatialScale, **kwargs):
    """The forward runs on gradInputRef's values as the feature map, so the argmax is consistent."""
    rois = _rois(rois, gradInputRef.shape, spatialScale, spatialScale)
    y = roi_pooling_with_argmax(gradInputRef, rois, pooledH, pooledW, spatialScale, spatialScale, **kwargs)
    return gradOutput, gradInputRef, rois, y[1]


# ---- the kit's registry: __spec__ must be a literal (the kit reads it without running the file) ----
# Floating outputs by CANN's default (mixed) standard; indices, argmax and masks exactly.
_TOLERANCE = {"float16": {"standard": "mix_tolerance"}, "bfloat16": {"standard": "mix_tolerance"},
              "float32": {"standard": "mix_tolerance"}, "int64": {"standard": "binary_equal"},
              "int32": {"standard": "binary_equal"}, "int8": {"standard": "binary_equal"}}

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


def _spec(golden, customize_inputs=None):
    """A TestSpec class: poolgrad's golden, the same as the third party, the tolerances, and the
    inputs the kit cannot draw at random where there are such."""
    attrs = {"golden": staticmethod(golden), "third_party": {"torch": golden}, "tolerance": _TOLERANCE}
    if customize_inputs is not None:
        attrs["customize_inputs"] = staticmethod(customize_inputs)
    return type(golden.__name__ + "_spec", (), attrs)


MaxPool2dWithIndicesTestSpec = _spec(max_pool2d_with_indices)
MaxPool2dWithIndicesBackwardTestSpec = _spec(max_pool2d_with_indices_backward, max_pool2d_backward_inputs)
MaxPool2dWithMaskTestSpec = _spec(max_pool2d_with_mask)
MaxPool2dWithMaskBackwardTestSpec = _spec(max_pool2d_with_mask_backward, max_pool2d_mask_backward_inputs)
AdaptiveMaxPool2dTestSpec = _spec(adaptive_max_pool2d)
AdaptiveMaxPool2dBackwardTestSpec = _spec(adaptive_max_pool2d_backward, adaptive_max_pool2d_backward_inputs)
MaxPool3dWithArgmaxTestSpec = _spec(max_pool3d_with_argmax)
MaxPool3dWithArgmaxBackwardTestSpec = _spec(max_pool3d_with_argmax_backward, max_pool3d_backward_inputs)
AdaptiveMaxPool3dTestSpec = _spec(adaptive_max_pool3d)
AdaptiveMaxPool3dBackwardTestSpec = _spec(adaptive_max_pool3d_backward, adaptive_max_pool3d_backward_inputs)
RoiPoolingWithArgMaxTestSpec = _spec(roi_pooling_with_argmax, roi_pooling_inputs)
RoiPoolingGradWithArgMaxTestSpec = _spec(roi_pooling_grad_with_argmax, roi_pooling_grad_inputs)
