# SPDX-License-Identifier: Apache-2.0
"""poolgrad's plugin for CANN's operator test kit, driven the way the kit drives a plugin.

The kit is not installable here, so `Kit` below re-implements the sequence its aclnn path follows
(read in its public sources and plugin documentation; none of its code is used): the spec index
read from the file's syntax tree; the header's GetWorkspaceSize parameters as the signature;
tensors drawn at random for every tensor parameter, outputs included; the outputs taken from the
case's `output_tensor_indexes`, else guessed from the parameter names (its documented rule);
`customize_inputs` called with every parameter by position, its return value discarded (the kit
expects its tensors filled in place); then `golden` and the third party with the same positional
arguments. Every shipped case of every product's file must then give a meaningful comparison:
inputs made, golden computed, every compared output the declared shape and dtype, the golden equal
to poolgrad's own result for those inputs, and no tolerance entry a supported kit would reject."""
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
PKG = os.path.dirname(poolgrad.__file__)
PLUGIN = os.path.join(PKG, "ttk_plugin.py")
# Each case file and the products it is for.
CASE_FILES = {"ttk_cases_ascend950.csv": ("Ascend950",),
              "ttk_cases_ascend910b.csv": ("Ascend910B", "Ascend910_93")}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int8": torch.int8}
# The tolerance standards every supported kit version accepts in a spec's tolerance (older
# versions' validators reject mix_tolerance, which newer ones apply by default anyway).
ACCEPTED_EVERYWHERE = {"binary_equal", "stat_rel_err", "cross_check"}


def header_params():
    """api -> [(name, is_tensor)] from poolgrad's aclnnop headers, as the kit reads CANN's."""
    params = {}
    for h in glob.glob(os.path.join(ROOT, "include", "aclnnop", "aclnn_*.h")):
        for m in re.finditer(r"(aclnn\w+)GetWorkspaceSize\(([^;]*?)\);", open(h).read(), re.S):
            ps = [re.sub(r"\s+", " ", p).strip() for p in m.group(2).split(",")][:-2]
            params[m.group(1)] = [(p.split(" ")[-1].lstrip("*"), "aclTensor" in p) for p in ps]
    return params


PARAMS = header_params()


def kit_guess_outputs(api, tensor_names):
    """The kit's documented rule when a case declares no outputs."""
    ends = ("Ref", "Out", "Output", "OutOptional", "OutputOptional")
    grad = "Backward" in api or "Grad" in api
    hits = [i for i, n in enumerate(tensor_names)
            if (n.endswith(ends) or n == "output") and not (grad and n in ("gradOutput", "gradOut", "grad_output"))]
    return hits or [len(tensor_names) - 1]


class Kit:
    def __init__(self):
        tree = ast.parse(open(PLUGIN).read())
        self.index = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                          and any(getattr(t, "id", None) == "__spec__" for t in n.targets))
        spec = importlib.util.spec_from_file_location("poolgrad_ttk_spec", PLUGIN)  # run by path
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    def run(self, row, product, seed=0):
        api = row["api_name"]
        spec = getattr(self.module, self.index[api])
        params = PARAMS[api]
        names = [n for n, t in params if t]
        shapes = ast.literal_eval(row["tensor_view_shapes"])
        dtypes = ast.literal_eval(row["tensor_dtypes"])
        attrs = ast.literal_eval(row["attributes"] or "{}")
        assert len(shapes) == len(dtypes) == len(names), (api, names)
        outs = list(ast.literal_eval(row["output_tensor_indexes"])) if row.get("output_tensor_indexes") \
            else kit_guess_outputs(api, names)
        g = torch.Generator().manual_seed(seed)
        tensors = {n: (torch.randn(s, generator=g).to(DTYPES[d]) if "float" in d
                       else torch.randint(-5, 5, s, generator=g).to(DTYPES[d]))
                   for n, s, d in zip(names, shapes, dtypes)}
        positional = [tensors[n] if t else attrs.get(n) for n, t in params]
        ctx = {"short_soc_version": product, "tensor_dtypes": dtypes, "testcase_name": row["testcase_name"]}
        if hasattr(spec, "customize_inputs"):
            spec.customize_inputs(*positional, **ctx)  # the kit keeps its own tensors
        golden = spec.golden(*positional, **ctx)
        third = spec.third_party["torch"](*positional, **ctx)
        return {"api": api, "spec": spec, "tensors": tensors, "names": names, "outputs": outs, "attrs": attrs,
                "golden": golden, "third": third}


def cases():
    for f, products in CASE_FILES.items():
        with open(os.path.join(PKG, f), newline="") as fh:
            for row in csv.DictReader(fh):
                for p in products:
                    yield pytest.param(row, p, id=f"{p}-{row['testcase_name']}")


def poolgrad_own(api, t, attrs, product):
    """poolgrad's result for the kit's tensors, written here from the public functions."""
    pool = [attrs.get(k) for k in ("kernelSize", "stride", "padding", "dilation", "ceilMode")]
    before = poolgrad.get_product()
    poolgrad.set_product(product)
    try:
        if api in ("aclnnMaxPool2dWithIndices", "aclnnMaxPool3dWithArgmax"):
            f = poolgrad.max_pool2d_with_indices if "2d" in api else poolgrad.max_pool3d_with_indices
            return list(f(t["self"], *pool, t["indices"].dtype))
        if api == "aclnnMaxPool2dWithMask":
            return list(poolgrad.max_pool2d_with_mask(t["self"], *pool))
        if api == "aclnnAdaptiveMaxPool2d":
            return list(poolgrad.adaptive_max_pool2d(t["self"], attrs["outputSize"]))
        if api == "aclnnAdaptiveMaxPool3d":
            return list(poolgrad.adaptive_max_pool3d(t["self"], attrs["outputSize"], t["indicesOut"].dtype))
        if api == "aclnnRoiPoolingWithArgMax":
            return list(poolgrad.roi_pool_with_argmax(t["x"], t["rois"], (attrs["pooled_h"], attrs["pooled_w"]),
                                                      attrs["spatial_scale_h"]))
        if api in ("aclnnMaxUnpool2d", "aclnnMaxUnpool3d"):
            reserved = [attrs["stride"], attrs["padding"]] if "stride" in attrs else []
            f = poolgrad.max_unpool2d if "2d" in api else poolgrad.max_unpool3d
            return [f(t["self"], t["indices"], attrs["outputSize"], *reserved)]
        if api in ("aclnnMaxUnpool2dBackward", "aclnnMaxUnpool3dBackward"):
            reserved = [attrs["stride"], attrs["padding"]] if "stride" in attrs else []
            f = poolgrad.max_unpool2d_backward if "2d" in api else poolgrad.max_unpool3d_backward
            return [f(t["gradOutput"], t["self"], t["indices"], attrs["outputSize"], *reserved)]
        if api == "aclnnRoiPoolingGradWithArgMax":
            return [poolgrad.roi_pool_with_argmax_backward(t["gradOutput"], t["rois"], t["argmax"],
                                                           t["gradInputRef"].shape, attrs["spatialScale"])]
        if api == "aclnnRoiAlignV2":
            return [poolgrad.roi_align(t["self"], t["boxes"], (attrs["pooledHeight"], attrs["pooledWidth"]),
                                       attrs["spatialScale"], attrs["samplingRatio"], attrs["aligned"])]
        if api == "aclnnRoiAlignV2Backward":
            return [poolgrad.roi_align_backward(t["gradOutput"], t["boxes"], attrs["inputShape"], attrs["spatialScale"],
                                                attrs["samplingRatio"], attrs["aligned"])]
        if api == "aclnnRoiAlign":
            return [poolgrad.roi_align_onnx(t["self"], t["rois"], t["batchIndices"],
                                            (attrs["outputHeight"], attrs["outputWidth"]), attrs["samplingRatio"],
                                            attrs["spatialScale"], attrs["mode"])]
        f = {"aclnnMaxPool2dWithIndicesBackward": poolgrad.max_pool2d_with_indices_backward,
             "aclnnMaxPool2dWithMaskBackward": poolgrad.max_pool2d_with_mask_backward,
             "aclnnMaxPool3dWithArgmaxBackward": poolgrad.max_pool3d_with_indices_backward,
             "aclnnAdaptiveMaxPool2dBackward": poolgrad.adaptive_max_pool2d_backward,
             "aclnnAdaptiveMaxPool3dBackward": poolgrad.adaptive_max_pool3d_backward}[api]
        extra = pool if "kernelSize" in attrs else []
        return [f(t["gradOutput"], t["self"], t["indices"], *extra)]
    finally:
        poolgrad.set_product(before)


def same(a, b):
    return a.dtype == b.dtype and (torch.equal(a, b) or (a.is_floating_point() and torch.equal(a.isnan(), b.isnan())
                                                         and torch.equal(a.nan_to_num(), b.nan_to_num())))


@pytest.mark.parametrize("row,product", list(cases()))
def test_every_shipped_case_gives_a_meaningful_comparison(row, product):
    r = Kit().run(row, product)
    api, t, names = r["api"], r["tensors"], r["names"]
    declared = [names[i] for i in r["outputs"]]
    # The outputs compared are the API's outputs: every tensor the header writes.
    writes = {"out", "outRef", "indices", "outputOut", "indicesOut", "y", "argmax", "gradInput", "gradInputRef"}
    if "Unpool" in api:  # the indices are an input there
        writes.discard("indices")
    forward = not ("Backward" in api or "Grad" in api)
    assert declared == [n for n in names if n in writes and (forward or n not in ("indices", "argmax"))]
    # Every compared output: the declared shape and dtype.
    assert len(r["golden"]) == len(declared)
    for name, gout in zip(declared, r["golden"]):
        assert tuple(gout.shape) == tuple(t[name].shape) and gout.dtype == t[name].dtype, name
    # Inputs the device can use: a backward's indices are the forward's on the same input; RoIs valid.
    if api in ("aclnnRoiPoolingWithArgMax", "aclnnRoiPoolingGradWithArgMax"):
        feature = t["x"] if "x" in t else t["gradInputRef"]
        rois = t["rois"]
        assert ((rois[:, 0] >= 0) & (rois[:, 0] < feature.shape[0])).all()
        assert ((rois[:, 1:] >= 0).all() and (rois[:, 3] >= rois[:, 1]).all() and (rois[:, 4] >= rois[:, 2]).all())
    if "RoiAlign" in api:  # boxes (or RoIs and batch indices) inside the image, batch indices valid
        feature = list(r["attrs"]["inputShape"]) if "inputShape" in r["attrs"] else list(t["self"].shape)
        boxes = t["boxes"] if "boxes" in t else torch.cat([t["batchIndices"][:, None].float(), t["rois"].float()], 1)
        assert ((boxes[:, 0] >= 0) & (boxes[:, 0] < feature[0])).all()
        assert (boxes[:, 1:] >= 0).all() and (boxes[:, 3] >= boxes[:, 1]).all() and (boxes[:, 4] >= boxes[:, 2]).all()
    if api == "aclnnRoiPoolingGradWithArgMax":
        fwd = poolgrad_own("aclnnRoiPoolingWithArgMax", {"x": t["gradInputRef"], "rois": t["rois"]},
                           {"pooled_h": r["attrs"]["pooledH"], "pooled_w": r["attrs"]["pooledW"],
                            "spatial_scale_h": r["attrs"]["spatialScale"]}, product)
        assert torch.equal(t["argmax"], fwd[1])
    elif "Unpool" in api:  # distinct positions of each output plane
        size = list(r["attrs"]["outputSize"])
        plane = int(torch.tensor(size).prod())
        flat = t["indices"].reshape(-1, int(torch.tensor(t["indices"].shape[-len(size):]).prod()))
        assert ((flat >= 0) & (flat < plane)).all()
        assert all(len(set(row.tolist())) == len(row) for row in flat)
    elif not forward and "RoiAlign" not in api:  # (RoIAlign's backward consumes no index output)
        fwd_api = api.replace("Backward", "")
        fwd_t = {"self": t["self"], "indices": t["indices"], "indicesOut": t["indices"]}
        fwd_attrs = dict(r["attrs"]) or {"outputSize": list(t["gradOutput"].shape[2:])}
        assert torch.equal(t["indices"], poolgrad_own(fwd_api, fwd_t, fwd_attrs, product)[1])
    # The golden is poolgrad's own result, and the third party (the cross check) the same.
    for a, b in zip(r["golden"], poolgrad_own(api, t, r["attrs"], product)):
        assert same(a, b)
    for a, b in zip(r["golden"], r["third"]):
        assert same(a, b)
    # No tolerance entry a supported kit version rejects; integer outputs bit-exact.
    tol = r["spec"].tolerance
    assert all(v["standard"] in ACCEPTED_EVERYWHERE for v in tol.values()), tol
    for gout in r["golden"]:
        if not gout.is_floating_point():
            assert tol[str(gout.dtype).replace("torch.", "")]["standard"] == "binary_equal"


def test_without_declared_outputs_the_kit_would_compare_the_wrong_tensors():
    # Why every case declares output_tensor_indexes: the kit's name rule finds only the last
    # tensor of the four two-output forwards.
    for api in ("aclnnMaxPool2dWithIndices", "aclnnMaxPool2dWithMask", "aclnnMaxPool3dWithArgmax",
                "aclnnRoiPoolingWithArgMax"):
        names = [n for n, t in PARAMS[api] if t]
        assert kit_guess_outputs(api, names) == [len(names) - 1]
    for f in CASE_FILES:
        with open(os.path.join(PKG, f), newline="") as fh:
            assert all(row["output_tensor_indexes"] for row in csv.DictReader(fh))


def test_plugin_path_command_a_spec_for_every_api_and_a_case_for_every_api():
    r = subprocess.run([os.path.join(os.path.dirname(sys.executable), "poolgrad"), "ttk-plugin"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and os.path.samefile(r.stdout.strip(), PLUGIN)
    kit = Kit()
    assert set(kit.index) == set(PARAMS)
    covered = set()
    for f in CASE_FILES:
        with open(os.path.join(PKG, f), newline="") as fh:
            covered |= {row["api_name"] for row in csv.DictReader(fh)}
    assert covered == set(PARAMS)
    # customize_inputs exactly where the kit cannot draw inputs at random.
    assert {api for api, c in kit.index.items() if hasattr(getattr(kit.module, c), "customize_inputs")} == {
        api for api in PARAMS if "Backward" in api or "Roi" in api or "Unpool" in api}


def test_customize_inputs_also_returns_the_filled_tensors_for_kits_that_use_it():
    row = next(csv.DictReader(open(os.path.join(PKG, "ttk_cases_ascend950.csv"), newline="")))
    kit = Kit()
    spec = getattr(kit.module, kit.index["aclnnRoiPoolingWithArgMax"])
    x, rois = torch.randn(2, 4, 8, 8), torch.full((3, 5), 99.0)
    got = spec.customize_inputs(x, rois, 2, 2, 0.5, 0.5, torch.empty(3, 4, 2, 2), torch.empty(3, 4, 2, 2, dtype=torch.int32),
                                short_soc_version="Ascend950", testcase_name=row["testcase_name"])
    assert got[1] is rois and (rois[:, 0] < 2).all() and not (rois == 99.0).any()
    assert np.isfinite(rois.numpy()).all()
