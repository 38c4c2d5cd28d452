# SPDX-License-Identifier: Apache-2.0
"""poolgrad.torch's eager fast path (python/src/torch_fast.cpp): taken for plain tensors, the
registered op otherwise; the same numbers, errors, autograd and dispatch as the op."""
import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import poolgrad
import poolgrad.torch as pgt
from poolgrad.ops import fast


class Spy:
    """Stands in for poolgrad.ops.fast and records which functions were called."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def f(*args):
            self.calls.append(name)
            return getattr(fast, name)(*args)
        return f


@pytest.fixture
def spy(monkeypatch):
    s = Spy()
    monkeypatch.setattr(pgt, "fast", s)
    return s


CALLS = [
    ("max_pool2d_with_indices", lambda x: pgt.max_pool2d(x, 3, 2, 1, return_indices=True),
     lambda x: torch.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True), (2, 3, 9, 8)),
    ("max_pool2d_with_indices", lambda x: pgt.MaxPool2d((2, 3), (1, 2), return_indices=True)(x),
     lambda x: torch.nn.MaxPool2d((2, 3), (1, 2), return_indices=True)(x), (3, 7, 9)),
    ("max_pool3d_with_indices", lambda x: pgt.max_pool3d(x, 2, return_indices=True),
     lambda x: torch.nn.functional.max_pool3d(x, 2, return_indices=True), (1, 2, 4, 6, 6)),
    ("adaptive_max_pool2d", lambda x: pgt.adaptive_max_pool2d(x, (3, None), return_indices=True),
     lambda x: torch.nn.functional.adaptive_max_pool2d(x, (3, None), return_indices=True), (2, 3, 7, 5)),
    ("adaptive_max_pool3d", lambda x: pgt.AdaptiveMaxPool3d(2, return_indices=True)(x),
     lambda x: torch.nn.AdaptiveMaxPool3d(2, return_indices=True)(x), (1, 2, 5, 6, 7)),
]


@pytest.mark.parametrize("name,mine,theirs,shape", CALLS)
def test_plain_tensors_take_the_fast_path_with_torchs_values_and_gradients(spy, name, mine, theirs, shape):
    x = torch.randn(shape, requires_grad=True)
    x2 = x.detach().clone().requires_grad_(True)
    (out, idx), (want, widx) = mine(x), theirs(x2)
    assert spy.calls == [name]
    assert torch.equal(out, want) and torch.equal(idx, widx)
    g = torch.randn_like(out)
    out.backward(g)
    want.backward(g)
    assert torch.equal(x.grad, x2.grad)


class Sub(torch.Tensor):
    pass


def test_a_subclass_and_a_function_mode_take_the_op(spy):
    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.randn(1, 2, 6, 6)
    with Mode():
        pgt.max_pool2d(x, 2)
        pgt.adaptive_max_pool2d(x, 3)
    assert spy.calls == []
    assert any("max_pool2d_with_indices" in s for s in seen) and any("adaptive_max_pool2d" in s for s in seen)
    pgt.max_pool2d(x.as_subclass(Sub), 2)
    assert spy.calls == []
    pgt.max_pool2d(x, 2)
    assert spy.calls == ["max_pool2d_with_indices"]


def test_the_fast_path_goes_through_the_dispatcher():
    seen = []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.randn(1, 2, 6, 6)
    with Mode():
        out = pgt.max_pool2d(x, 2)
    assert seen == ["poolgrad.max_pool2d_with_indices.default"]
    assert torch.equal(out, torch.nn.functional.max_pool2d(x, 2))


def test_the_fast_paths_errors_are_the_ops():
    x = torch.randn(1, 2, 6, 6)
    with pytest.raises(poolgrad.PoolgradError, match="kernelSize") as e:
        pgt.max_pool2d(x, 0)
    assert e.value.status == 161002
    with pytest.raises(TypeError, match="sequence of ints"):
        fast.max_pool2d_with_indices(x, "2", [], 0, 1, False)
    with pytest.raises(TypeError, match="expected a Tensor"):
        fast.adaptive_max_pool2d(x.numpy(), 2)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        fast.adaptive_max_pool2d(x)
    # An int-like (with __index__) is an int, a bool is not.
    assert torch.equal(fast.max_pool2d_with_indices(x, [torch.tensor(2).item()], [], 0, 1, False)[0],
                       torch.nn.functional.max_pool2d(x, 2))
    with pytest.raises(TypeError):
        fast.max_pool2d_with_indices(x, True, [], 0, 1, False)
