# SPDX-License-Identifier: Apache-2.0
"""What the functions take and give: out= arrays, read-only inputs, big-endian and unsupported
dtypes refused by name, index dtypes as names or dtypes, and the torch ops' thread count."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import poolgrad
import poolgrad.torch as pgt


def test_out_arrays_are_written_and_checked():
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    want, want_idx = poolgrad.max_pool2d_with_indices(x, 2)
    out, idx = np.empty_like(want), np.empty_like(want_idx)
    got, got_idx = poolgrad.max_pool2d_with_indices(x, 2, out=(out, idx))
    assert np.array_equal(out, want) and np.array_equal(idx, want_idx)
    assert np.shares_memory(got, out) and np.shares_memory(got_idx, idx)
    gx = np.empty_like(x)
    poolgrad.max_pool2d_with_indices_backward(want, x, want_idx, 2, out=gx)
    assert np.array_equal(gx, poolgrad.max_pool2d_with_indices_backward(want, x, want_idx, 2))
    with pytest.raises(poolgrad.PoolgradError, match="out shape must be"):
        poolgrad.max_pool2d_with_indices(x, 2, out=(np.empty((2, 3, 3, 4), np.float32), idx))
    with pytest.raises(poolgrad.PoolgradError, match="out must be a pair"):
        poolgrad.max_pool2d_with_indices(x, 2, out=out)
    # the 3-D and adaptive functions take out= too
    x3 = np.random.default_rng(1).standard_normal((1, 2, 4, 6, 6)).astype(np.float32)
    o3, i3 = np.empty((1, 2, 2, 3, 3), np.float32), np.empty((1, 2, 2, 3, 3), np.int32)
    poolgrad.adaptive_max_pool3d(x3, (2, 3, 3), out=(o3, i3))
    ref, ref_i = poolgrad.adaptive_max_pool3d(x3, (2, 3, 3), index_dtype=np.int32)
    assert np.array_equal(o3, ref) and np.array_equal(i3, ref_i)


def test_read_only_inputs_are_accepted():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x.setflags(write=False)
    out, idx = poolgrad.max_pool2d_with_indices(x, 2)
    assert out.ravel().tolist() == [5, 7, 13, 15]
    idx.setflags(write=False)
    gy = np.ones_like(out)
    gy.setflags(write=False)
    assert poolgrad.max_pool2d_with_indices_backward(gy, x, idx, 2).sum() == 4


def test_big_endian_and_unsupported_dtypes_are_refused_by_name():
    x = np.zeros((1, 1, 4, 4), ">f4")
    with pytest.raises(poolgrad.PoolgradError, match="x is big-endian"):
        poolgrad.max_pool2d_with_indices(x, 2)
    for dt in (np.float64, np.int32, np.int64):
        with pytest.raises(poolgrad.PoolgradError, match="must be FLOAT, FLOAT16 or BF16, but got"):
            poolgrad.max_pool2d_with_indices(np.zeros((1, 1, 4, 4), dt), 2)


def test_index_dtype_as_name_numpy_or_torch_dtype():
    x = np.zeros((1, 1, 4, 4), np.float32)
    for dt in ("int32", np.int32, np.dtype("int32"), torch.int32):
        assert poolgrad.max_pool2d_with_indices(x, 2, index_dtype=dt)[1].dtype == np.int32
    with pytest.raises(poolgrad.PoolgradError, match="index_dtype must be int32 or int64"):
        poolgrad.max_pool2d_with_indices(x, 2, index_dtype=np.float32)


def test_torch_ops_follow_torch_threads():
    code = ("import torch, poolgrad, poolgrad.torch as pgt\n"
            "poolgrad.set_num_threads(2)\n"
            "torch.set_num_threads(1)\n"
            "pgt.max_pool2d(torch.randn(1, 1, 4, 4), 2)\n"
            "assert poolgrad.get_num_threads() == 2\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, POOLGRAD_LOG="info"))
    assert r.returncode == 0, r.stderr
    assert "aclnnMaxPool2dWithIndices" in r.stderr and "threads=1 " in r.stderr, r.stderr


def test_kernel_size_must_be_ints():
    with pytest.raises(TypeError):
        pgt.MaxPool2d("2")(torch.randn(1, 1, 4, 4))


def test_numpy_bfloat16_in_and_out():
    ml_dtypes = pytest.importorskip("ml_dtypes")  # installed by scripts/venv.sh: never skipped in CI
    xt = torch.randn(2, 3, 9, 9).to(torch.bfloat16)
    x = xt.float().numpy().astype(ml_dtypes.bfloat16)
    out, idx = poolgrad.max_pool2d_with_indices(x, 3, 2, 1)
    out_t, idx_t = torch.ops.aten.max_pool2d_with_indices(xt, [3, 3], [2, 2], [1, 1], [1, 1], False)
    assert out.dtype == ml_dtypes.bfloat16
    assert np.array_equal(out.astype(np.float32), out_t.float().numpy()) and np.array_equal(idx, idx_t.numpy())
    gy = np.ones(out.shape, ml_dtypes.bfloat16)
    gx = poolgrad.max_pool2d_with_indices_backward(gy, x, idx, 3, 2, 1)
    assert gx.dtype == ml_dtypes.bfloat16 and float(gx.astype(np.float32).sum()) == float(out.size)
    with pytest.raises(poolgrad.PoolgradError, match="dtype uint16 is not supported"):
        poolgrad.max_pool2d_with_indices(np.zeros((1, 1, 4, 4), np.uint16), 2)


def test_attribute_strings_are_refused():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(poolgrad.PoolgradError, match="kernel_size must be an int or a sequence of ints"):
        poolgrad.max_pool2d_with_indices(x, "2")
