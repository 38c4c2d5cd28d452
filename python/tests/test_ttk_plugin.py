# SPDX-License-Identifier: Apache-2.0
"""poolgrad's plugin for CANN's operator test kit: loaded by path as the kit loads it, a spec for
every aclnn API poolgrad implements, and every case of the example case file run through it the
way the kit calls it (tensors by position, attributes by name, customize_inputs first)."""
import ast
import csv
import glob
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import poolgrad
from poolgrad import suite

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(os.path.dirname(poolgrad.__file__), "ttk_plugin.py")
CASES = os.path.join(os.path.dirname(poolgrad.__file__), "ttk_cases.csv")
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int8": torch.int8}


def _load_by_path():
    """As the kit does: the file run by its path, not imported as part of the package."""
    spec = importlib.util.spec_from_file_location("poolgrad_ttk_spec", PLUGIN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _literal_spec():
    """The kit reads __spec__ from the file's syntax tree without running it: it must be a literal."""
    tree = ast.parse(open(PLUGIN).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__spec__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("no __spec__ literal")


def test_plugin_path_command_and_a_spec_for_every_api():
    r = subprocess.run([os.path.join(os.path.dirname(sys.executable), "poolgrad"), "ttk-plugin"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and os.path.samefile(r.stdout.strip(), PLUGIN)
    spec = _literal_spec()
    apis = set()
    for header in glob.glob(os.path.join(ROOT, "include", "aclnnop", "aclnn_*.h")):
        apis |= set(re.findall(r"\b(aclnn\w+)GetWorkspaceSize\(", open(header).read()))
    assert apis and set(spec) == apis
    mod = _load_by_path()
    for api, cls_name in spec.items():
        cls = getattr(mod, cls_name)
        assert callable(cls.golden) and callable(cls.third_party["torch"])
        assert cls.tolerance["int64"]["standard"] == "binary_equal"
        assert cls.tolerance["float16"]["standard"] == "mix_tolerance"
    assert {api for api in spec if "Backward" in api or "Grad" in api} == {
        api for api, c in spec.items() if hasattr(getattr(mod, c), "customize_inputs")} - {"aclnnRoiPoolingWithArgMax"}


def _rows():
    with open(CASES, newline="") as f:
        return list(csv.DictReader(f))


# Which of a case's tensors are outputs (the kit: names ending Out/Ref, or out/y/argmax/indices
# after the inputs; gradInput of a backward).
def _split(api, tensors):
    if api == "aclnnRoiPoolingGradWithArgMax":
        return tensors, [tensors[1]]
    if api == "aclnnRoiPoolingWithArgMax":
        return tensors[:2], tensors[2:]
    if "Backward" in api:
        return tensors[:3], tensors[3:]
    return tensors[:1], tensors[1:]


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["testcase_name"])
def test_every_example_case_runs_through_the_plugin(row):
    mod = _load_by_path()
    api = row["api_name"]
    cls = getattr(mod, _literal_spec()[api])
    shapes = ast.literal_eval(row["tensor_view_shapes"])
    dtypes = ast.literal_eval(row["tensor_dtypes"])
    attrs = ast.literal_eval(row["attributes"])
    g = torch.Generator().manual_seed(0)
    tensors = [torch.randn(s, generator=g).to(DTYPES[d]) if "float" in d else
               torch.randint(0, 4, s, generator=g).to(DTYPES[d]) for s, d in zip(shapes, dtypes)]
    inputs, outputs = _split(api, tensors)
    a2_only = "Mask" in api or api == "aclnnAdaptiveMaxPool2dBackward"  # CANN: Atlas A2/A3 only
    ctx = {"short_soc_version": "Ascend910B" if a2_only else "Ascend950", "testcase_name": row["testcase_name"],
           "tensor_dtypes": dtypes}
    if hasattr(cls, "customize_inputs"):
        inputs = list(cls.customize_inputs(*inputs, **attrs, **ctx))
    result = cls.golden(*inputs, **attrs, **ctx)
    assert [tuple(r.shape) for r in result] == [tuple(o.shape) for o in outputs]
    assert [r.dtype for r in result] == [o.dtype for o in outputs]
    third = cls.third_party["torch"](*inputs, **attrs, **ctx)
    for a, b in zip(result, third):
        assert torch.equal(a, b) or (a.is_floating_point() and torch.equal(a.isnan(), b.isnan()))
    # The same numbers as poolgrad's own function on the same tensors.
    k = {key: attrs.get(key) for key in ("kernelSize", "stride", "padding", "dilation", "ceilMode")}
    if api == "aclnnMaxPool2dWithIndices":
        ref = poolgrad.max_pool2d_with_indices(inputs[0], k["kernelSize"], k["stride"], k["padding"], k["dilation"],
                                               k["ceilMode"], outputs[1].dtype)
    elif api == "aclnnMaxPool2dWithIndicesBackward":
        _, idx = poolgrad.max_pool2d_with_indices(inputs[1], k["kernelSize"], k["stride"], k["padding"], k["dilation"],
                                                  k["ceilMode"])
        assert torch.equal(inputs[2], idx)  # customize_inputs: the forward's indices on the same x
        ref = [poolgrad.max_pool2d_with_indices_backward(inputs[0], inputs[1], idx, k["kernelSize"], k["stride"],
                                                         k["padding"], k["dilation"], k["ceilMode"])]
    elif api == "aclnnMaxPool3dWithArgmaxBackward":
        _, idx = poolgrad.max_pool3d_with_indices(inputs[1], k["kernelSize"], k["stride"], k["padding"],
                                                  k["dilation"], k["ceilMode"], torch.int32)
        assert torch.equal(inputs[2], idx)
        ref = [poolgrad.max_pool3d_with_indices_backward(inputs[0], inputs[1], idx, k["kernelSize"], k["stride"],
                                                         k["padding"], k["dilation"], k["ceilMode"])]
    elif api == "aclnnAdaptiveMaxPool3d":
        ref = poolgrad.adaptive_max_pool3d(inputs[0], attrs["outputSize"], torch.int32)
    elif api == "aclnnRoiPoolingWithArgMax":
        rois = inputs[1]
        assert bool((rois[:, 0] >= 0).all() and (rois[:, 0] < inputs[0].shape[0]).all())  # valid batch indices
        ref = poolgrad.roi_pool_with_argmax(inputs[0], rois, (attrs["pooled_h"], attrs["pooled_w"]),
                                            attrs["spatial_scale_h"])
    elif api == "aclnnRoiPoolingGradWithArgMax":
        _, am = poolgrad.roi_pool_with_argmax(inputs[1], inputs[2], (attrs["pooledH"], attrs["pooledW"]),
                                              attrs["spatialScale"])
        assert torch.equal(inputs[3], am)  # the forward on gradInputRef's values
        ref = [poolgrad.roi_pool_with_argmax_backward(inputs[0], inputs[2], am, inputs[1].shape,
                                                      attrs["spatialScale"])]
    else:
        ref = None  # the remaining APIs: shapes, dtypes and the third party checked above
    if ref is not None:
        for a, b in zip(result, ref):
            assert torch.equal(a, b) or torch.equal(a.isnan(), b.isnan())


def test_every_api_has_an_example_case():
    assert {r["api_name"] for r in _rows()} == set(_literal_spec())
    assert np.all([r["testcase_name"].startswith("poolgrad_") for r in _rows()])
