# SPDX-License-Identifier: Apache-2.0
"""The operator descriptors (poolgrad/operators.json) against what they drive and what they
describe: the aclnnop headers' parameter lists, poolgrad's NumPy functions, the torch ops'
registered schemas, the CLI's operators and the test-kit plugin's registry."""
import ast
import glob
import inspect
import os
import re

import torch

import poolgrad
import poolgrad.ops  # noqa: F401 - registers torch.ops.poolgrad
from poolgrad import cli, suite, ttk_plugin
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
