# SPDX-License-Identifier: Apache-2.0
"""RoIAlign (docs/roi-align.md): aclnnRoiAlignV2's forward bitwise equal to torchvision.ops.roi_align
in float32 (float16: torchvision's float32 result rounded once), its backward equal to torchvision's
CPU backward and the same bits for 1, 2, 3 and 7 threads, and the ONNX op equal to onnxruntime's
RoiAlign in avg and max modes, on random cases: aligned on and off, sampling ratios -1..4, boxes
inside, outside and degenerate, many boxes per image, empty."""
import os
import subprocess
import sys

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


@pytest.mark.parametrize("isa", ["default", "avx2"])
def test_forward_every_path_same_bits(isa, monkeypatch):
    # The float32 AVX2 row tiles a box's region when it is read often (a small box, many samples)
    # and gathers otherwise (a large box, few samples); channels past a multiple of 8 take the
    # scalar sweep; the portable row ("default") all of it. Every path: torchvision's bits.
    code = f"""
import numpy as np, torch, torchvision, poolgrad
rng = np.random.default_rng(9)
x = rng.standard_normal((2, 21, 40, 52)).astype(np.float32)
b = np.array([[0, 0, 0, 51, 39], [1, 3, 4, 9, 8], [1, -5, -5, 70, 60], [0, 10, 2, 11, 30]], np.float32)
for size, sr in (((1, 1), 1), ((7, 7), 2), ((14, 14), 0), ((3, 2), 4)):
    want = torchvision.ops.roi_align(torch.from_numpy(x), torch.from_numpy(b), size, 1.0, sr, True).numpy()
    assert np.array_equal(poolgrad.roi_align(x, b, size, 1.0, sr, True).view(np.uint32), want.view(np.uint32))
print("ok")
"""
    env = dict(os.environ, POOLGRAD_CPU_CAPABILITY=isa)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


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
        # torchvision's CPU backward is the naive reference in poolgrad's documented order (box,
        # bin, sample, corner, each term (grad * w) / count in float32): the same bits.
        np.testing.assert_array_equal(results[0].view(np.uint32), xt.grad.numpy().view(np.uint32))


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


# ---- the torch ops: torch.ops.poolgrad.roi_align / _roi_align_backward (torchvision's schemas),
# roi_align_onnx; poolgrad.torch.roi_align / RoIAlign; torchvision's own ops on poolgrad's kernels.
import poolgrad.torch as pgt  # noqa: E402


def _torch_case(seed=0, k=6):
    rng = np.random.default_rng(seed)
    x, b, size, scale = _case(rng)
    while len(b) < 2:
        x, b, size, scale = _case(rng)
    return torch.from_numpy(x), torch.from_numpy(b), size, scale


def test_torch_roi_align_is_torchvisions_forward_and_backward():
    for seed in range(6):
        x, b, size, scale = _torch_case(seed)
        for sr, aligned in ((-1, False), (2, True), (0, True)):
            if not _tv_ok(b.numpy(), aligned, sr):
                continue
            xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
            y = pgt.roi_align(xa, b, size, scale, sr, aligned)
            ref = torchvision.ops.roi_align(xb, b, size, scale, sr, aligned)
            assert torch.equal(y, ref)
            g = torch.randn_like(y)
            y.backward(g)
            ref.backward(g)
            torch.testing.assert_close(xa.grad, xb.grad, rtol=1e-6, atol=1e-6)


def test_torch_roi_align_takes_a_list_of_boxes_and_the_module():
    x = torch.randn(2, 3, 12, 12)
    boxes = [torch.tensor([[1.0, 1, 8, 8]]), torch.tensor([[0.0, 2, 5, 11], [3, 3, 4, 4]])]
    want = torchvision.ops.roi_align(x, boxes, (4, 3), 1.0, 2, True)
    assert torch.equal(pgt.roi_align(x, boxes, (4, 3), 1.0, 2, True), want)
    assert torch.equal(pgt.RoIAlign((4, 3), 1.0, 2, True)(x, boxes), torchvision.ops.RoIAlign((4, 3), 1.0, 2, True)(x, boxes))


def test_backward_is_the_adjoint_and_double_backward_is_the_forward():
    x, b, size, scale = _torch_case(3)
    x = x.requires_grad_()
    y = pgt.roi_align(x, b, size, scale, 2, True)
    g = torch.randn_like(y, requires_grad=True)
    (gx,) = torch.autograd.grad(y, x, g, create_graph=True)
    # <roi_align(x), g> == <x, roi_align_backward(g)>: the backward is the forward's adjoint.
    torch.testing.assert_close((y.double() * g.double()).sum(), (x.double() * gx.double()).sum(), rtol=1e-5, atol=1e-5)
    # d<gx, v>/dg = roi_align(v): torchvision has no double backward for roi_align.
    v = torch.randn_like(x)
    (gg,) = torch.autograd.grad((gx * v).sum(), g)
    assert torch.equal(gg, pgt.roi_align(v, b, size, scale, 2, True))


def test_opcheck_every_roi_align_op():
    x, b, size, scale = _torch_case(4)
    ops = torch.ops.poolgrad
    torch.library.opcheck(ops.roi_align, (x.requires_grad_(), b, scale, size[0], size[1], 2, True))
    g = torch.randn(len(b), x.shape[1], *size, requires_grad=True)
    torch.library.opcheck(ops._roi_align_backward, (g, b, scale, size[0], size[1], *x.shape, 0, False))
    torch.library.opcheck(ops.roi_align_onnx, (x.detach(), b[:, 1:].contiguous(), b[:, 0].int(), "max", 2, 3, 2, scale))


def test_compiles_fullgraph_and_exports():
    class Net(torch.nn.Module):
        def forward(self, x, boxes):
            return pgt.roi_align(x, boxes, 7, 0.25, 2, True)

    x, b = torch.randn(1, 8, 20, 20), torch.tensor([[0.0, 4, 4, 60, 50], [0, 0, 0, 79, 79]])
    want = Net()(x, b)
    assert torch.equal(torch.compile(Net(), fullgraph=True, backend="aot_eager")(x, b), want)
    ep = torch.export.export(Net(), (x, b))
    assert "poolgrad.roi_align" in str(ep.graph)
    assert torch.equal(ep.module()(x, b), want)


def test_torch_onnx_op_and_a_half_backward_is_refused():
    x, b, size, scale = _torch_case(5)
    got = torch.ops.poolgrad.roi_align_onnx(x, b[:, 1:].contiguous(), b[:, 0].int(), "avg", size[0], size[1], 0, scale)
    assert torch.equal(got, pgt.roi_align(x, b, size, scale, 0, False))
    xh = x.half().requires_grad_()
    y = pgt.roi_align(xh, b.half(), size, scale, 2, False)
    with pytest.raises(ValueError, match="gradOutput dtype must be FLOAT, but got FLOAT16"):
        y.sum().backward()


def test_use_for_torchvision_runs_multiscale_roi_align_on_poolgrad():
    # In a child process: the override lasts for the rest of the process.
    code = """
import torch, torchvision, poolgrad, poolgrad.torch as pgt
from collections import OrderedDict
torch.manual_seed(0)
feats = OrderedDict((str(i), torch.randn(2, 8, 64 // 2 ** i, 64 // 2 ** i, requires_grad=True)) for i in range(4))
boxes = [torch.tensor([[1.0, 2, 60, 50], [10, 10, 200, 220]]), torch.tensor([[0.0, 0, 255, 255], [30, 40, 35, 47]])]
pool = torchvision.ops.MultiScaleRoIAlign(list(feats), 7, 2)
ref = pool(feats, boxes, [(256, 256)] * 2)
ref.sum().backward()
ref_grads = [f.grad.clone() for f in feats.values()]
pgt.use_for_torchvision()
try:  # the kernel is poolgrad's: a bad batch index is refused in poolgrad's words
    torchvision.ops.roi_align(feats["0"], torch.tensor([[5.0, 0, 0, 4, 4]]), 2)
    raise SystemExit("not refused")
except ValueError as e:
    assert "aclnnRoiAlignV2: boxes[0,0]=5 must be a batch index" in str(e), e
grads = []
for threads in (1, 2, 3):
    torch.set_num_threads(threads)
    for f in feats.values():
        f.grad = None
    y = pool(feats, boxes, [(256, 256)] * 2)
    assert torch.equal(y, ref)
    y.sum().backward()
    grads.append([f.grad.clone() for f in feats.values()])
for g in grads[1:]:
    assert all(torch.equal(a, b) for a, b in zip(g, grads[0]))
for a, b in zip(grads[0], ref_grads):
    torch.testing.assert_close(a, b, rtol=1e-6, atol=1e-6)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_golden_cli_runs_the_three_apis(tmp_path):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 4, 10, 12)).astype(np.float32)
    b = np.array([[0, 1, 1, 8, 7], [1, 0, 2, 11, 9]], np.float32)
    g = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
    for name, a in (("x", x), ("b", b), ("g", g), ("r", np.ascontiguousarray(b[:, 1:])),
                    ("i", b[:, 0].astype(np.int32))):
        np.save(tmp_path / f"{name}.npy", a)
    attrs = ["--spatial-scale", "0.5", "--sampling-ratio", "2"]

    def golden(*args):
        r = subprocess.run([sys.executable, "-m", "poolgrad", "golden", *args, "--out-dir", str(tmp_path)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr

    golden("roi-align", "--input", str(tmp_path / "x.npy"), "--boxes", str(tmp_path / "b.npy"), "--output-size", "3",
           "--aligned", *attrs)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), poolgrad.roi_align(x, b, 3, 0.5, 2, True))
    golden("roi-align-backward", "--grad-output", str(tmp_path / "g.npy"), "--boxes", str(tmp_path / "b.npy"),
           "--input-shape", "2,4,10,12", "--aligned", *attrs)
    np.testing.assert_array_equal(np.load(tmp_path / "grad_input.npy"),
                                  poolgrad.roi_align_backward(g, b, x.shape, 0.5, 2, True))
    golden("roi-align-onnx", "--input", str(tmp_path / "x.npy"), "--rois", str(tmp_path / "r.npy"),
           "--batch-indices", str(tmp_path / "i.npy"), "--output-size", "3", "--mode", "max", *attrs)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"),
                                  poolgrad.roi_align_onnx(x, b[:, 1:], b[:, 0].astype(np.int32), 3, 2, 0.5, "max"))
