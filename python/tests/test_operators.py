# SPDX-License-Identifier: Apache-2.0
"""The operator descriptors (poolgrad/operators.json) against what they drive and what they
describe: the aclnnop headers' parameter lists, poolgrad's NumPy functions, the torch ops'
registered schemas, the CLI's operators and the test-kit plugin's registry."""
import ast
import glob
import inspect
import os
import re

import numpy as np
import pytest
import torch

import poolgrad
import poolgrad.ops  # noqa: F401 - registers torch.ops.poolgrad
from poolgrad import _ext, cli, suite, ttk_plugin
from poolgrad.operators import BY_API, SPECS

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def header_params():
    """api -> the GetWorkspaceSize parameter names (workspaceSize and executor left out)."""
    params = {}
    for h in glob.glob(os.path.join(ROOT, "include", "aclnnop", "aclnn_*.h")):
        for m in re.finditer(r"(aclnn\w+)GetWorkspaceSize\(([^;]*?)\);", open(h).read(), re.S):
            ps = [re.sub(r"\s+", " ", p).strip() for p in m.group(2).split(",")][:-2]
            params[m.group(1)] = tuple(p.split(" ")[-1].lstrip("*") for p in ps)
    return params


def header_tensors():
    """api -> the names of its GetWorkspaceSize's aclTensor parameters."""
    tensors = {}
    for h in glob.glob(os.path.join(ROOT, "include", "aclnnop", "aclnn_*.h")):
        for m in re.finditer(r"(aclnn\w+)GetWorkspaceSize\(([^;]*?)\);", open(h).read(), re.S):
            tensors[m.group(1)] = {p.split("*")[-1].strip() for p in m.group(2).split(",") if "aclTensor" in p}
    return tensors


def test_one_descriptor_for_every_api_with_the_headers_parameters():
    headers = header_params()
    assert set(BY_API) == set(headers)
    for api, spec in BY_API.items():
        assert spec.params == headers[api], api
        for name, c in spec.inputs + spec.outputs:  # each array is one of the API's parameters
            assert c in spec.params, (api, name, c)


def test_every_descriptor_names_a_function_taking_its_inputs_then_its_attributes():
    for spec in SPECS.values():
        f = getattr(poolgrad, spec.function)
        names = list(inspect.signature(f).parameters)
        assert len(names) >= len(spec.inputs) + len(spec.attributes), spec.name
        assert set(spec.needs) <= set(spec.attributes), spec.name
        if spec.forward and spec.index:  # a backward consuming one output of its forward
            assert spec.index in SPECS[spec.forward].output_names, spec.name


def test_the_torch_ops_are_registered_with_the_descriptors_schemas():
    registered = {s.name.split("::", 1)[1]: str(s) for s in torch._C._jit_get_all_schemas()
                  if s.name.startswith("poolgrad::")}
    assert set(registered) == {s.torch_name for s in SPECS.values()}
    for spec in SPECS.values():
        want = torch._C.parse_schema("poolgrad::" + spec.torch)
        assert registered[spec.torch_name] == str(want), spec.name


def test_the_cli_and_the_suites_offer_every_descriptor():
    assert suite.OPERATORS is SPECS
    golden = next(a for a in cli.parser()._subparsers._group_actions[0].choices["golden"]._actions
                  if a.dest == "op")
    assert list(golden.choices) == list(SPECS)


def test_the_plugin_registry_is_the_descriptors():
    tree = ast.parse(open(ttk_plugin.__file__).read())
    spec_literal = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                        and any(getattr(t, "id", "") == "__spec__" for t in n.targets))
    assert set(spec_literal) == set(BY_API)  # the kit reads the literal: it must list every API
    for api, cls in spec_literal.items():
        assert isinstance(getattr(ttk_plugin, cls), type), api


# ---- the generic binding: every API through _ext.Api, driven by the descriptors ------------------
def test_the_bindings_table_is_generated_from_the_descriptors():
    assert _ext.apis() == [s.aclnn for s in SPECS.values()]  # same APIs, the descriptor's order
    for spec in SPECS.values():
        arrays = {c for _, c in spec.inputs + spec.outputs}
        assert set(spec.formats) <= arrays, spec.name  # formats are given for tensors only
        assert set(spec.formats.values()) <= {"NCHW", "NCDHW", "ND"}, spec.name
        # Every array of the header is one of the descriptor's inputs or outputs (which name it).
        assert arrays == header_tensors()[spec.aclnn], spec.name


def _pool_args(x, **over):
    out, idx = np.empty((1, 1, 2, 2), np.float32), np.empty((1, 1, 2, 2), np.int64)
    args = dict(self=x, kernelSize=[2], stride=[], padding=[0], dilation=[1], ceilMode=False, out=out, indices=idx)
    args.update(over)
    return args


def test_the_generic_binding_converts_by_the_headers_types_and_names_the_first_bad_parameter():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    args = _pool_args(x)
    poolgrad._run("aclnnMaxPool2dWithIndices", **args)
    assert args["out"].ravel().tolist() == [5, 7, 13, 15]
    # A parameter of the wrong kind: named by the package's name for it, in the header's order.
    with pytest.raises(poolgrad.PoolgradError, match=r"\[161002\] kernelSize must be a list of ints"):
        poolgrad._run("aclnnMaxPool2dWithIndices", **_pool_args(x, kernelSize="2", ceilMode=3))
    with pytest.raises(poolgrad.PoolgradError, match=r"ceilMode cannot be passed as the API's bool: got 3"):
        poolgrad._run("aclnnMaxPool2dWithIndices", **_pool_args(x, ceilMode=3))
    with pytest.raises(poolgrad.PoolgradError, match=r"^\[161002\] x must be a CPU array"):
        poolgrad._run("aclnnMaxPool2dWithIndices", **_pool_args([[1.0]]))
    # An int outside the C parameter's range is refused, not wrapped (aclnnRoiAlign takes C ints).
    feat, rois = np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 4), np.float32)
    with pytest.raises(poolgrad.PoolgradError, match=r"outputHeight cannot be passed as the API's 32-bit integer"):
        poolgrad._run("aclnnRoiAlign", self=feat, rois=rois, batchIndices=np.zeros(1, np.int32), mode="avg",
                      outputHeight=2**32 + 1, outputWidth=1, samplingRatio=0, spatialScale=1.0,
                      out=np.empty((1, 1, 1, 1), np.float32))


def test_the_generic_binding_checks_its_own_use():
    binding = poolgrad._api("aclnnMaxPool2dWithIndices")
    args = _pool_args(np.zeros((1, 1, 4, 4), np.float32))
    with pytest.raises(TypeError, match="missing argument ceilMode"):
        binding.call({k: v for k, v in args.items() if k != "ceilMode"})
    with pytest.raises(TypeError, match="takes 8 arguments, got 9"):  # a misspelt name is not ignored
        binding.call(dict(args, ceil_mode=True))
    with pytest.raises(ValueError, match="not an aclnn API of poolgrad"):
        _ext.Api("aclnnNoSuchOp", [], [], [], print)
    with pytest.raises(ValueError, match="takes 8 parameters"):
        _ext.Api("aclnnMaxPool2dWithIndices", ["self"], ["x"], ["ND"], print)


def test_a_prepared_call_runs_phase_2_again_on_the_same_arrays():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    args = _pool_args(x)
    prep = poolgrad._prepare("aclnnMaxPool2dWithIndices", **args)
    assert prep.run() == (0, "")
    assert args["out"].ravel().tolist() == [5, 7, 13, 15] and prep.kernel
    x[...] = -x
    assert prep.run() == (0, "")
    assert args["out"].ravel().tolist() == [0, -2, -8, -10]
