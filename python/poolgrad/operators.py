# SPDX-License-Identifier: Apache-2.0
"""The operator descriptors: one entry per aclnn API in operators.json, the one list from which
the Python binding of every API (_ext.Api: the table of callers is generated from it by
cmake/descriptors.cmake, and poolgrad._api gives each its parameter order, array names and
formats), the golden CLI and suites (suite.OPERATORS), the test-kit plugin (its parameter tables
and the backward-to-forward links) and the torch ops' schemas (generated into the C++
registration by cmake/torch_ops.cmake) are driven. docs/architecture.md, "The operator descriptor", lists the
fields; adding an operator adds an entry here.

The dtype and format rules stay in the library's per-product rules lists (src/<op>/<op>_rules.cpp),
their one copy: the descriptor names what a caller passes, not what the library accepts.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class OpSpec:
    """One operator.

    name: the CLI's and the suites' name; aclnn: the C API (phase 1 is aclnn + GetWorkspaceSize);
    function: poolgrad's NumPy function, called with the inputs then the attributes, in order;
    inputs / outputs: the arrays by poolgrad's names, each mapped to its C parameter;
    attributes: the suite attributes the function takes; needs: those a case must give;
    forward / index: for a backward, the forward operator and which of its outputs it consumes;
    products: "all", or the products CANN documents it for (the first is the default for it);
    params: the GetWorkspaceSize parameters in the header's order (workspaceSize and executor
    left out); formats: the aclFormat the package creates each tensor parameter with (those not
    named: ND); torch: the schema of torch.ops.poolgrad's op."""
    name: str
    aclnn: str
    function: str
    inputs: Tuple[Tuple[str, str], ...]
    outputs: Tuple[Tuple[str, str], ...]
    attributes: Tuple[str, ...]
    needs: Tuple[str, ...]
    forward: Optional[str]
    index: Optional[str]
    products: object
    params: Tuple[str, ...]
    formats: dict
    torch: str

    @property
    def torch_name(self) -> str:
        return self.torch.split("(", 1)[0]

    @property
    def input_names(self) -> Tuple[str, ...]:
        return tuple(n for n, _ in self.inputs)

    @property
    def output_names(self) -> Tuple[str, ...]:
        return tuple(n for n, _ in self.outputs)

    def c_name(self, array: str) -> str:
        """The C parameter an input or output array is passed as."""
        return dict(self.inputs + self.outputs)[array]


def _load() -> dict:
    path = os.path.join(os.path.dirname(__file__), "operators.json")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)["operators"]
    specs = {}
    for e in raw:
        e = dict(e)
        e["inputs"] = tuple(e["inputs"].items())
        e["outputs"] = tuple(e["outputs"].items())
        for k in ("attributes", "needs", "params"):
            e[k] = tuple(e[k])
        if e["products"] != "all":
            e["products"] = tuple(e["products"])
        specs[e["name"]] = OpSpec(**e)
    return specs


#: Every operator by its CLI name, in the order of operators.json.
SPECS = _load()
#: Every operator by its aclnn API name.
BY_API = {s.aclnn: s for s in SPECS.values()}
