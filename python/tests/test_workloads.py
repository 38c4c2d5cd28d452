# SPDX-License-Identifier: Apache-2.0
"""bench/workloads.txt, the one workload list (the benchmark binary and bench/compare.py read it):
every row parses into a call poolgrad accepts."""
import pathlib
import sys

import numpy as np
import pytest

import poolgrad
from poolgrad import _ext

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import workloads  # noqa: E402


def test_rows_parse_and_ids_are_unique():
    ids = [r[0] for r in workloads.MAXPOOL + workloads.ROI + workloads.ADAPTIVE + workloads.POOL3D +
           workloads.ADAPTIVE3D + workloads.UNPOOL + workloads.ROIALIGN]
    assert len(ids) == len(set(ids)) == 29
    assert ("video-3d", (4, 64, 16, 56, 56), 3, 2, 1, False, "float32") in workloads.POOL3D
    assert ("segnet-decoder", (1, 64, 112, 112), 2, 2, 0, "float32") in workloads.UNPOOL
    assert ("video-unpool3d", (2, 64, 16, 56, 56), 2, 2, 0, "float32") in workloads.UNPOOL
    assert ("overlap-3d", (4, 64, 10, 37, 37), (3, 7, 7), "float32") in workloads.ADAPTIVE3D
    assert ("adaptive-overlap", (16, 128, 37, 37), (7, 7), "float32") in workloads.ADAPTIVE
    assert ("resnet-stem", (32, 64, 112, 112), 3, 2, 1, False, 1, "float32", False, False) in workloads.MAXPOOL
    assert ("chw-single", (None, 256, 128, 128), 2, 2, 0, False, 1, "float32", False, False) in workloads.MAXPOOL
    assert ("mask-a2", (32, 64, 112, 112), 3, 2, 1, False, 1, "float16", False, True) in workloads.MAXPOOL
    assert ("fpn-p2", (2, 256, 200, 272), 512, 7, 0.25, "float32") in workloads.ROI
    assert ("fpn-4-levels", (1, 256, 200, 272), 1000, 7, 0.25, 2, True, True, "float32") in workloads.ROIALIGN
    assert ("box-fp16", (1, 256, 50, 68), 512, 7, 1 / 16, 2, True, False, "float16") in workloads.ROIALIGN


def test_bad_rows_are_refused():
    with pytest.raises(ValueError):
        workloads.parse("maxpool", "x", "mb1ic1ih4iw4_kh2zz3")
    with pytest.raises(ValueError):
        workloads.parse("maxpool", "x", "mb1ic1ih4iw4_kh2_sideways")
    with pytest.raises(ValueError):
        workloads.parse("roialign", "x", "mb1ic1ih4iw4_r2p2s1sr2_sideways")


@pytest.mark.parametrize("row", workloads.MAXPOOL, ids=[r[0] for r in workloads.MAXPOOL])
def test_maxpool_rows_are_valid_calls(row):
    # The row's geometry on one channel of one image: phase 1 and 2 accept it.
    _, (n, c, h, w), k, s, p, ceil, d, dtype, _, _ = row
    ho, wo = _ext.out_size(h, k, s, p, d, ceil), _ext.out_size(w, k, s, p, d, ceil)
    assert ho > 0 and wo > 0
    x = np.random.default_rng(0).standard_normal((1, 1, h, w), dtype=np.float32)
    out, idx = poolgrad.max_pool2d_with_indices(x, k, s, p, d, ceil)
    assert out.shape == (1, 1, ho, wo)


@pytest.mark.parametrize("row", workloads.ROI, ids=[r[0] for r in workloads.ROI])
def test_roi_rows_are_valid_calls(row):
    _, (n, c, h, w), r, pooled, scale, _ = row
    assert 0 < scale <= 1 and r <= 1024
    x = np.zeros((n, 2, h, w), np.float32)
    rois = np.array([[0, 0, 0, w / scale - 1, h / scale - 1]], np.float32)
    y, am = poolgrad.roi_pool_with_argmax(x, rois, pooled, scale)
    assert y.shape == (1, 2, pooled, pooled)
