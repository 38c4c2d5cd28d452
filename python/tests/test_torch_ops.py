# SPDX-License-Identifier: Apache-2.0
"""poolgrad's registered ops (torch.ops.poolgrad.*): opcheck for every op, torch.compile with
fullgraph=True, torch.export, and second-order gradients (a gradient penalty) equal to torch's."""
import pytest
import torch
import torchvision  # noqa: F401  (torch.ops.torchvision, the RoI peer)

import poolgrad
import poolgrad.torch as pgt
from poolgrad.ops import ops
from poolgrad.operators import SPECS


def _rois(n, h, w, r, gen):
    b = torch.randint(0, n, (r, 1), generator=gen).float()
    xy = torch.rand(r, 2, generator=gen) * torch.tensor([w - 4.0, h - 4.0])
    wh = 1 + torch.rand(r, 2, generator=gen) * 6
    return torch.cat([b, xy, xy + wh], 1)


def _samples():
    g = torch.Generator().manual_seed(0)
    x2 = torch.randn(2, 3, 9, 9, generator=g, requires_grad=True)
    x3 = torch.randn(2, 2, 5, 7, 7, generator=g, requires_grad=True)
    out2, idx2 = ops.max_pool2d_with_indices(x2.detach(), [3, 3], [2, 2], [1, 1], [1, 1], True)
    out3, idx3 = ops.max_pool3d_with_indices(x3.detach(), [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False)
    a2, ai2 = ops.adaptive_max_pool2d(x2.detach(), [4, 5])
    a3, ai3 = ops.adaptive_max_pool3d(x3.detach(), [2, 3, 4])
    rois = _rois(2, 9, 9, 6, g)
    y, am = ops.roi_pool(x2.detach(), rois, 1.0, 3, 3)
    gy2 = torch.randn(out2.shape, generator=g, requires_grad=True)
    gy3 = torch.randn(out3.shape, generator=g, requires_grad=True)
    ga2 = torch.randn(a2.shape, generator=g, requires_grad=True)
    ga3 = torch.randn(a3.shape, generator=g, requires_grad=True)
    gr = torch.randn(y.shape, generator=g, requires_grad=True)
    return [
        (ops.max_pool2d_with_indices, (x2, [3, 3], [2, 2], [1, 1], [1, 1], True)),
        (ops.max_pool2d_with_indices, (x2, [2, 2])),
        (ops.max_pool2d_with_indices_backward, (gy2, x2.detach(), [3, 3], [2, 2], [1, 1], [1, 1], True, idx2)),
        (ops.max_pool3d_with_indices, (x3, [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False)),
        (ops.max_pool3d_with_indices_backward, (gy3, x3.detach(), [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1],
                                                False, idx3)),
        (ops.adaptive_max_pool2d, (x2, [4, 5])),
        (ops.adaptive_max_pool2d_backward, (ga2, x2.detach(), ai2)),
        (ops.adaptive_max_pool3d, (x3, [2, 3, 4])),
        (ops.adaptive_max_pool3d_backward, (ga3, x3.detach(), ai3)),
        (ops.roi_pool, (x2, rois, 1.0, 3, 3)),
        (ops._roi_pool_backward, (gr, rois, am, 1.0, 3, 3, 2, 3, 9, 9)),
    ]


@pytest.mark.parametrize("i", range(11))
def test_opcheck(i):
    op, args = _samples()[i]
    torch.library.opcheck(op, args)


def test_opcheck_mask_pair():
    poolgrad.set_product("Ascend910B")
    try:
        x = torch.randn(2, 3, 9, 9, requires_grad=True)
        torch.library.opcheck(ops.max_pool2d_with_mask, (x, [2, 2], [2, 2], [0, 0], [1, 1], False))
        out, mask = ops.max_pool2d_with_mask(x.detach(), [3, 3], [2, 2], [1, 1], [1, 1], False)
        gy = torch.randn(out.shape, requires_grad=True)
        torch.library.opcheck(ops.max_pool2d_with_mask_backward,
                              (gy, x.detach(), [3, 3], [2, 2], [1, 1], [1, 1], False, mask))
        # double backward through the mask equals the Indices pair's
        gx = ops.max_pool2d_with_mask_backward(gy, x.detach(), [3, 3], [2, 2], [1, 1], [1, 1], False, mask)
        gg = torch.randn(gx.shape)
        (d1,) = torch.autograd.grad(gx, gy, gg)
        _, idx = torch.ops.aten.max_pool2d_with_indices(x.detach(), [3, 3], [2, 2], [1, 1], [1, 1], False)
        gx_t = torch.ops.aten.max_pool2d_with_indices_backward(gy, x.detach(), [3, 3], [2, 2], [1, 1], [1, 1],
                                                                False, idx)
        (d2,) = torch.autograd.grad(gx_t, gy, gg)
        assert torch.equal(d1, d2)
    finally:
        poolgrad.set_product("Ascend950")


class _Net(torch.nn.Module):
    def __init__(self, pool, adaptive):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool, self.adaptive = pool, adaptive
        self.fc = torch.nn.Linear(8 * 2 * 2, 4)

    def forward(self, x):
        return self.fc(self.adaptive(self.pool(torch.relu(self.conv(x)))).flatten(1))


def _nets():
    torch.manual_seed(0)
    mine = _Net(pgt.MaxPool2d(3, 2, 1), pgt.AdaptiveMaxPool2d(2))
    ref = _Net(torch.nn.MaxPool2d(3, 2, 1), torch.nn.AdaptiveMaxPool2d(2))
    ref.load_state_dict(mine.state_dict())
    return mine, ref


def test_compile_fullgraph_and_train_like_torch():
    mine, ref = _nets()
    compiled = torch.compile(mine, fullgraph=True, backend="aot_eager")
    x = torch.randn(4, 3, 16, 16)
    for m in (compiled, ref):
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = m(x).square().mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        m.losses = losses
    assert compiled.losses == ref.losses


def test_compile_with_inductor():
    # The poolgrad ops compile to the same bits as eager. (A whole net need not: since torch 2.15
    # inductor's own code for conv + linear differs from eager in the last bit, with or without
    # poolgrad; the net is compared with a tolerance, and against the torch twin compiled alike.)
    x = torch.randn(2, 3, 16, 16)
    pool = lambda t: pgt.max_pool2d(t, 3, 2, 1, return_indices=True)  # noqa: E731
    got, want = torch.compile(pool, fullgraph=True)(x), pool(x)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    mine, ref = _nets()
    got = torch.compile(mine, fullgraph=True)(x)
    torch.testing.assert_close(got, mine(x))
    assert torch.equal(got, torch.compile(ref, fullgraph=True)(x))


def test_export_names_the_poolgrad_ops():
    mine, _ = _nets()
    x = torch.randn(2, 3, 16, 16)
    ep = torch.export.export(mine, (x,))
    text = str(ep.graph)
    assert "poolgrad.max_pool2d_with_indices" in text and "poolgrad.adaptive_max_pool2d" in text
    assert torch.equal(ep.module()(x), mine(x))


def test_roi_pool_compiles_and_exports():
    class M(torch.nn.Module):
        def forward(self, x, rois):
            return pgt.roi_pool(x, rois, 3, 0.5)
    x = torch.randn(2, 4, 10, 12)
    rois = _rois(2, 20, 24, 5, torch.Generator().manual_seed(1))
    want = M()(x, rois)
    assert torch.equal(torch.compile(M(), fullgraph=True, backend="aot_eager")(x, rois), want)
    ep = torch.export.export(M(), (x, rois))
    assert "poolgrad.roi_pool" in str(ep.graph)


@pytest.mark.parametrize("kind", ["max2d", "max3d", "adaptive2d", "adaptive3d"])
def test_gradient_penalty_matches_torch(kind):
    """d/dx of |d loss/dx|^2 through a conv and the pooling: second-order gradients as torch's."""
    torch.manual_seed(0)
    if kind.endswith("3d"):
        conv, x = torch.nn.Conv3d(2, 3, 3, padding=1), torch.randn(2, 2, 4, 6, 6)
    else:
        conv, x = torch.nn.Conv2d(2, 3, 3, padding=1), torch.randn(2, 2, 8, 8)
    pools = {"max2d": (pgt.MaxPool2d(2), torch.nn.MaxPool2d(2)),
             "max3d": (pgt.MaxPool3d(2), torch.nn.MaxPool3d(2)),
             "adaptive2d": (pgt.AdaptiveMaxPool2d(3), torch.nn.AdaptiveMaxPool2d(3)),
             "adaptive3d": (pgt.AdaptiveMaxPool3d(2), torch.nn.AdaptiveMaxPool3d(2))}[kind]
    grads = []
    for pool in pools:
        xi = x.clone().requires_grad_(True)
        conv.zero_grad()
        y = pool(conv(xi)).square().sum()
        (gx,) = torch.autograd.grad(y, xi, create_graph=True)
        penalty = gx.square().sum()
        penalty.backward()
        assert conv.weight.grad is not None and conv.weight.grad.abs().sum() > 0
        grads.append(conv.weight.grad.clone())
    torch.testing.assert_close(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_roi_double_backward_matches_torchvision_adjoint():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 3, 8, 8, generator=g)
    rois = _rois(2, 8, 8, 5, g)
    y, am = ops.roi_pool(x, rois, 1.0, 2, 2)
    gy = torch.randn(y.shape, generator=g, requires_grad=True)
    gx = ops._roi_pool_backward(gy, rois, am, 1.0, 2, 2, 2, 3, 8, 8)
    gg = torch.randn(gx.shape, generator=g)
    (d,) = torch.autograd.grad(gx, gy, gg)
    # <gg, B(gy)> = <B^T(gg), gy> for the linear scatter B: the adjoint identity, in float64
    lhs = (gg.double() * ops._roi_pool_backward(gy.double().detach().float(), rois, am, 1.0, 2, 2, 2, 3, 8, 8)
           .double()).sum()
    assert torch.isclose(lhs, (d.double() * gy.double().detach()).sum(), rtol=1e-6)


def test_layer_conventions():
    m = pgt.MaxPool2d(3)
    assert "stride=3" in repr(m) and m.stride == torch.nn.MaxPool2d(3).stride
    with pytest.raises(TypeError):
        pgt.max_pool2d(torch.randn(1, 1, 4, 4), "2")


def test_tensors_off_the_cpu_are_refused_naming_the_device():
    # This machine has no GPU: a meta tensor stands in for any tensor that is not on the CPU. The
    # registered ops send meta tensors to their fake implementations (shape propagation); the
    # functions, which run the kernels, refuse them by name.
    x = torch.empty(1, 1, 4, 4, device="meta")
    for call in (lambda: poolgrad.max_pool2d_with_indices(x, 2),
                 lambda: poolgrad.adaptive_max_pool2d(x, 1),
                 lambda: poolgrad.roi_pool_with_argmax(x, torch.zeros(1, 5), 2, 1.0)):
        with pytest.raises(poolgrad.PoolgradError, match="must be on the CPU, but is on meta"):
            call()
    out, idx = torch.ops.poolgrad.max_pool2d_with_indices(x, [2, 2])
    assert out.device.type == "meta" and out.shape == (1, 1, 2, 2) and idx.dtype == torch.int64


@pytest.mark.parametrize("backend", ["CUDA", "XPU", "MPS"])
def test_registered_ops_refuse_other_backends_naming_them(backend):
    # No GPU here: the call is sent to the backend's entry of the dispatch table, which is what a
    # CUDA (XPU, MPS) tensor reaches after autograd. Every op has poolgrad's refusal there, not the
    # dispatcher's generic error; Meta has the fakes and CPU the kernels.
    x = torch.randn(1, 1, 4, 4)
    keys = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, backend))
    with pytest.raises(ValueError, match=rf"\[161002\] poolgrad::max_pool2d_with_indices: poolgrad runs on the "
                                         rf"CPU, but the call was dispatched to the {backend} backend"):
        ops.max_pool2d_with_indices.default.redispatch(keys, x, [2, 2])
    for spec in SPECS.values():
        table = torch._C._dispatch_dump_table("poolgrad::" + spec.torch_name).splitlines()
        entry = next(line for line in table if line.startswith(backend + ":"))
        assert "torch_library.cpp" in entry, entry


def test_each_family_file_registers_its_ops_kernels():
    # Every op of the descriptors has its CPU kernel (and, but for the ONNX RoIAlign, its autograd
    # formula) from its family's file (python/src/torch_<family>.cpp), none from another's.
    # (adaptive_max_pool* before max_pool*: the first key in the op's name names its family)
    family = {"adaptive": "torch_adaptive.cpp", "max_pool": "torch_max_pool.cpp", "roi_pool": "torch_roi_pool.cpp",
              "unpool": "torch_unpool.cpp", "roi_align": "torch_roi_align.cpp"}
    for spec in SPECS.values():
        name = spec.torch_name
        key = next(k for k in family if k in name)
        table = torch._C._dispatch_dump_table("poolgrad::" + name).splitlines()
        cpu = next(line for line in table if line.startswith("CPU:"))
        assert family[key] in cpu, (name, cpu)
        if name != "roi_align_onnx":
            grad = next(line for line in table if line.startswith("AutogradCPU:"))
            assert family[key] in grad, (name, grad)


def test_ops_library_refused_under_another_torch(monkeypatch):
    from poolgrad import _torch_build, ops as ops_module
    monkeypatch.setattr(_torch_build, "TORCH_VERSION", "0.0.1")
    with pytest.raises(ImportError, match=r"built against torch 0\.0\.1, but torch .* is installed"):
        ops_module._load()
    monkeypatch.setattr(_torch_build, "TORCH_VERSION", "")
    with pytest.raises(ImportError, match="built without PyTorch"):
        ops_module._load()


def test_registered_op_errors_carry_the_status():
    with pytest.raises(ValueError, match=r"^\[161002\] aclnnMaxPool2dWithIndices: .*INT32"):
        ops.max_pool2d_with_indices(torch.ones(1, 1, 4, 4, dtype=torch.int32), [2, 2])


def test_layer_refusals_are_poolgrad_errors_with_the_status():
    # The ops raise ValueError("[status] message") from C++; the layers' functions raise the
    # package's PoolgradError, as poolgrad's NumPy functions do.
    x = torch.randn(1, 1, 4, 4)
    calls = [lambda: pgt.max_pool2d(x, 2, padding=3), lambda: pgt.MaxPool2d(2, padding=3)(x),
             lambda: pgt.max_pool3d(torch.randn(1, 1, 4, 4, 4), 2, padding=3),
             lambda: pgt.adaptive_max_pool2d(x.int(), 2), lambda: pgt.adaptive_max_pool3d(x.int(), 2),
             lambda: pgt.roi_pool(x.int(), torch.zeros(1, 5, dtype=torch.int32), 2)]
    for call in calls:
        with pytest.raises(poolgrad.PoolgradError) as info:
            call()
        assert info.value.status == 161002 and not info.value.message.startswith("["), info.value.message


@pytest.mark.parametrize("dims", [2, 3])
def test_all_padding_windows_give_minus_one_and_the_backward_accepts_it(dims):
    # Taps of output row 0 all fall in the padding (dilation 3): torch gives an index outside the
    # window; poolgrad gives -1 (docs/pytorch.md), and its backward skips it.
    import poolgrad.torch as pgt
    shape = (2, 3, 1, 5) if dims == 2 else (2, 3, 1, 1, 5)
    pre = (1,) if dims == 3 else ()
    args = dict(kernel_size=pre + (2, 1), stride=pre + (3, 2), padding=(0,) * (dims - 2) + (1, 0),
                dilation=pre + (3, 1), ceil_mode=True)
    x = torch.randn(shape, requires_grad=True)
    ours = pgt.max_pool2d if dims == 2 else pgt.max_pool3d
    ref_fn = torch.nn.functional.max_pool2d if dims == 2 else torch.nn.functional.max_pool3d
    out, idx = ours(x, return_indices=True, **args)
    ref, ref_idx = ref_fn(x, return_indices=True, **args)
    empty = torch.isinf(out)
    assert empty.any() and torch.equal(out, ref)
    assert (idx[empty] == -1).all() and torch.equal(idx[~empty], ref_idx[~empty])
    assert not torch.equal(idx, ref_idx)  # the documented difference
    g = torch.randn_like(out)
    (gx,) = torch.autograd.grad(out, x, g)
    # (torch's own backward is not run: it writes the stray index's gradient past the plane, a
    # heap corruption here.) The empty windows give nothing; the others scatter as usual.
    want = torch.zeros_like(x).flatten(2)
    want.scatter_add_(2, torch.where(empty, 0, idx).flatten(2), torch.where(empty, 0, g).flatten(2))
    assert torch.equal(gx, want.view_as(x))
    module = (pgt.MaxPool2d if dims == 2 else pgt.MaxPool3d)(**args)
    assert torch.equal(module(x), ref)


@pytest.mark.parametrize("case", ["adaptive2d", "maxpool3d", "adaptive3d", "maxpool2d"])
def test_memory_format_is_kept_as_torch_keeps_it(case):
    # A channels-last (3-D: channels-last-3d) input gives outputs and gradients in that format, as
    # torch's kernels do, with the same values; the fake (meta) kernels say the same strides.
    g = torch.Generator().manual_seed(3)
    if case.endswith("2d"):
        fmt, x = torch.channels_last, torch.randn(2, 5, 11, 13, generator=g)
    else:
        fmt, x = torch.channels_last_3d, torch.randn(2, 5, 7, 9, 11, generator=g)
    x = x.contiguous(memory_format=fmt).requires_grad_()
    xt = x.detach().clone().contiguous(memory_format=fmt).requires_grad_()
    mine, peer = {
        "adaptive2d": (lambda t: pgt.adaptive_max_pool2d(t, (4, 5)),
                       lambda t: torch.nn.functional.adaptive_max_pool2d(t, (4, 5))),
        "adaptive3d": (lambda t: pgt.adaptive_max_pool3d(t, (3, 4, 5)),
                       lambda t: torch.nn.functional.adaptive_max_pool3d(t, (3, 4, 5))),
        "maxpool3d": (lambda t: pgt.max_pool3d(t, 3, 2, 1),
                      lambda t: torch.nn.functional.max_pool3d(t, 3, 2, 1)),
        "maxpool2d": (lambda t: pgt.max_pool2d(t, 3, 2, 1),
                      lambda t: torch.nn.functional.max_pool2d(t, 3, 2, 1)),
    }[case]
    out, ref = mine(x), peer(xt)
    assert out.stride() == ref.stride() and torch.equal(out, ref)
    # torch keeps the format in every output but adaptive 3-D's (contiguous there on the CPU)
    assert (case == "adaptive3d") == out.is_contiguous(), out.stride()
    gy = torch.randn(out.shape, generator=g).contiguous(memory_format=fmt)
    out.backward(gy)
    ref.backward(gy)
    assert x.grad.stride() == xt.grad.stride() and torch.equal(x.grad, xt.grad)
    assert x.grad.is_contiguous(memory_format=fmt) and not x.grad.is_contiguous(), x.grad.stride()
    plain = x.detach()
    with torch._subclasses.fake_tensor.FakeTensorMode() as mode:
        fx = mode.from_tensor(plain)
        assert mine(fx).stride() == out.stride()


def test_layers_subclass_torch_and_say_poolgrad():
    pairs = [(pgt.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d), (pgt.MaxPool3d(2), torch.nn.MaxPool3d),
             (pgt.AdaptiveMaxPool2d((3, None)), torch.nn.AdaptiveMaxPool2d),
             (pgt.AdaptiveMaxPool3d(2), torch.nn.AdaptiveMaxPool3d)]
    for m, base in pairs:
        assert isinstance(m, base)
        assert repr(m).startswith("poolgrad." + base.__name__ + "("), repr(m)
        assert m.state_dict() == {}
        seen = []
        m.register_forward_hook(lambda mod, args, out: seen.append(mod))
        dims = 4 if "2d" in base.__name__ else 5
        m(torch.randn(*([1, 2] + [6] * (dims - 2))))
        assert seen == [m]
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), pgt.MaxPool2d(2))
    assert "poolgrad.MaxPool2d(kernel_size=2, stride=2" in repr(model)


def test_convert_swaps_every_max_pool_of_a_resnet_with_the_same_bits():
    import copy

    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    model.extra = torch.nn.ModuleList([torch.nn.AdaptiveMaxPool2d(1), torch.nn.MaxPool3d(2)])
    ref = copy.deepcopy(model)
    hook_calls = []
    model.maxpool.register_forward_hook(lambda *a: hook_calls.append(1))
    converted = pgt.convert(model)
    assert converted is model
    assert type(model.maxpool) is pgt.MaxPool2d and type(model.extra[0]) is pgt.AdaptiveMaxPool2d
    assert type(model.extra[1]) is pgt.MaxPool3d
    assert model.maxpool.kernel_size == ref.maxpool.kernel_size and model.maxpool.padding == 1
    x = torch.randn(2, 3, 64, 64)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    out, want = model(xa), ref(xb)
    assert hook_calls == [1]  # the old layer's hooks came along
    assert torch.equal(out, want)
    out.sum().backward()
    want.sum().backward()
    assert torch.equal(xa.grad, xb.grad)
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        assert torch.equal(p.grad, q.grad), n
    # A layer on its own comes back converted; anything else is returned as it is.
    assert type(pgt.convert(torch.nn.MaxPool2d(2))) is pgt.MaxPool2d
    lin = torch.nn.Linear(2, 2)
    assert pgt.convert(lin) is lin
