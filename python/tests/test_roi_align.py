# SPDX-License-Identifier: Apache-2.0
"""RoIAlign (docs/roi-align.md): aclnnRoiAlignV2's forward bitwise equal to torchvision.ops.roi_align
in float32 (float16: torchvision's float32 result rounded once), its backward equal to torchvision's
CPU backward and the same bits for 1, 2, 3 and 7 threads, and the ONNX op equal to onnxruntime's
RoiAlign in avg and max modes, on random cases: aligned on and off, sampling ratios -1..4, boxes
inside, outside and degenerate, many boxes per image, empty."""
import numpy as np
import pytest
import torch
import torchvision

import poolgrad


def _case(rng, onnx=False):
    B, C, H, W = int(rng.integers(1, 4)), int(rng.integers(1, 24)), int(rng.integers(1, 30)), int(rng.integers(1, 30))
    K = int(rng.integers(0, 12))
    scale = float(rng.choice([1.0, 0.5, 0.25, 0.125, 2.0]))
    x = rng.standard_normal((B, C, H, W)).astype(np.float32)
    b = np.zeros((K, 5), np.float32)
    b[:, 0] = rng.integers(0, B, K)
    xy = rng.uniform(-0.3, 1.3, (K, 4)) * np.array([W, H, W, H]) / scale
    b[:, 1], b[:, 3] = np.minimum(xy[:, 0], xy[:, 2]), np.maximum(xy[:, 0], xy[:, 2])
    b[:, 2], b[:, 4] = np.minimum(xy[:, 1], xy[:, 3]), np.maximum(xy[:, 1], xy[:, 3])
    if K > 2:
        b[1, 3] = b[1, 1]  # zero width
        b[2, 2:5:2] += 5 * H / scale  # below the map
    ph, pw = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    return x, b, (ph, pw), scale


def _tv_forward(x, b, size, scale, sr, aligned):
    return torchvision.ops.roi_align(torch.from_numpy(x), torch.from_numpy(b), size, scale, sr, aligned).numpy()


def _tv_ok(b, aligned, sr):
    # torchvision's CPU kernel sizes a vector by the adaptive grid: a box of negative size with
    # aligned=True (no minimum size of 1) makes it negative and raises; poolgrad samples nothing.
    return not (aligned and sr <= 0 and len(b) and ((b[:, 3] < b[:, 1]) | (b[:, 4] < b[:, 2])).any())


@pytest.mark.parametrize("seed", range(40))
def test_forward_bitwise_torchvision(seed):
    rng = np.random.default_rng(seed)
    x, b, size, scale = _case(rng)
    for sr in (-1, 0, 1, 2, 3, 4):
        for aligned in (False, True):
            got = poolgrad.roi_align(x, b, size, scale, sr, aligned)
            if not _tv_ok(b, aligned, sr):
                continue
            want = _tv_forward(x, b, size, scale, sr, aligned)
            np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("aligned", [False, True])
def test_forward_more_samples_than_a_table_holds(aligned):
    # 7 x 7 bins of 8 x 8 samples on the map: 3136 samples, more than the channel-major path's
    # table of 2048, so the box takes the bin-by-bin path; the same bits either way.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 20, 40, 40)).astype(np.float32)
    b = np.array([[1, 2, 3, 150, 140], [0, 0, 0, 10, 10]], np.float32)
    for mode_x in (x, x.astype(np.float16)):
        got = poolgrad.roi_align(mode_x, b.astype(mode_x.dtype), 7, 0.25, 8, aligned)
        want = _tv_forward(mode_x.astype(np.float32), b.astype(mode_x.dtype).astype(np.float32), (7, 7), 0.25, 8,
                           aligned).astype(mode_x.dtype)
        np.testing.assert_array_equal(got, want)
    rois, bi = np.ascontiguousarray(b[:, 1:]), b[:, 0].astype(np.int32)
    for mode in ("avg", "max"):
        np.testing.assert_allclose(poolgrad.roi_align_onnx(x, rois, bi, 7, 8, 0.25, mode),
                                   _ort_roi_align(x, rois, bi, (7, 7), 8, 0.25, mode), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("seed", range(10))
def test_forward_float16_rounds_once(seed):
    rng = np.random.default_rng(100 + seed)
    x, b, size, scale = _case(rng)
    xh, bh = x.astype(np.float16), b.astype(np.float16)
    got = poolgrad.roi_align(xh, bh, size, scale, 2, True)
    assert got.dtype == np.float16
    if _tv_ok(bh.astype(np.float32), True, 2):
        want = _tv_forward(xh.astype(np.float32), bh.astype(np.float32), size, scale, 2, True).astype(np.float16)
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("seed", range(30))
def test_backward_equals_torchvision_and_any_thread_count(seed):
    rng = np.random.default_rng(200 + seed)
    x, b, size, scale = _case(rng)
    sr, aligned = int(rng.integers(-1, 5)), bool(seed % 2)
    g = rng.standard_normal((len(b), x.shape[1], *size)).astype(np.float32)
    before = poolgrad.get_num_threads()
    try:
        results = []
        for t in (1, 2, 3, 7):
            poolgrad.set_num_threads(t)
            results.append(poolgrad.roi_align_backward(g, b, x.shape, scale, sr, aligned))
    finally:
        poolgrad.set_num_threads(before)
    for r in results[1:]:
        np.testing.assert_array_equal(r.view(np.uint32), results[0].view(np.uint32))
    if _tv_ok(b, aligned, sr):
        xt = torch.from_numpy(x).requires_grad_()
        torchvision.ops.roi_align(xt, torch.from_numpy(b), size, scale, sr, aligned).backward(torch.from_numpy(g))
        # Within float32 rounding of torchvision's (poolgrad adds in torchvision's order: box, bin,
        # sample, corner; on these cases the sums are equal).
        np.testing.assert_allclose(results[0], xt.grad.numpy(), rtol=1e-6, atol=1e-6)


def _ort_roi_align(x, rois, bi, size, sr, scale, mode):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    node = helper.make_node("RoiAlign", ["X", "rois", "bi"], ["Y"], mode=mode, output_height=size[0],
                            output_width=size[1], sampling_ratio=sr, spatial_scale=scale)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x.shape)),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, list(rois.shape)),
         helper.make_tensor_value_info("bi", TensorProto.INT64, list(bi.shape))],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 7
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {"X": x, "rois": rois, "bi": bi.astype(np.int64)})[0]


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("seed", range(12))
def test_onnx_equals_onnxruntime(mode, seed):
    rng = np.random.default_rng(300 + seed)
    x, b, size, scale = _case(rng)
    if len(b) == 0:
        b = np.array([[0, 1, 1, 5, 5]], np.float32)
    rois, bi = np.ascontiguousarray(b[:, 1:]), b[:, 0].astype(np.int32)
    for sr in (0, 1, 2, 3):
        got = poolgrad.roi_align_onnx(x, rois, bi, size, sr, scale, mode)
        want = _ort_roi_align(x, rois, bi, size, sr, scale, mode)
        if mode == "avg":
            np.testing.assert_array_equal(got, want)
        else:  # onnxruntime's max: the largest weighted corner of any sample (an outside one weighs 0)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_empty_and_errors():
    x = np.ones((2, 3, 8, 8), np.float32)
    assert poolgrad.roi_align(x, np.zeros((0, 5), np.float32), 7).shape == (0, 3, 7, 7)
    gx = poolgrad.roi_align_backward(np.zeros((0, 3, 7, 7), np.float32), np.zeros((0, 5), np.float32), x.shape)
    assert gx.shape == x.shape and not gx.any()
    with pytest.raises(poolgrad.PoolgradError, match=r"boxes\[0,0\]=5 must be a batch index in \[0, B=2\)") as e:
        poolgrad.roi_align(x, np.array([[5, 0, 0, 1, 1]], np.float32), 2)
    assert e.value.status == 161002
    with pytest.raises(poolgrad.PoolgradError, match="spatialScale must be > 0"):
        poolgrad.roi_align(x, np.zeros((1, 5), np.float32), 2, spatial_scale=0.0)
    with pytest.raises(poolgrad.PoolgradError, match="mode must be"):
        poolgrad.roi_align_onnx(x, np.zeros((1, 4), np.float32), np.zeros(1, np.int32), 2, mode="sum")
