#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""poolgrad against PyTorch / torchvision, in one process, on the same tensors and thread counts.

Writes docs/performance.json, and docs/performance.md and docs/performance.png from it (bench/report.py).
Usage: .venv/bin/python bench/compare.py --build build [--threads 1 2] [--only ID ...] [--reps 10]

Most of its length is the runners, one per family of workloads (RUNNERS): what only that family
knows (realistic inputs, the peer's call, the byte model, the memory floors) around one shared
measure(); the report's layout is bench/report.py's.
"""
import argparse
import platform
import ctypes
import json
import os
import pathlib
import statistics
import sys
import time
from typing import NamedTuple

import torch
import torchvision  # noqa: F401  (registers torch.ops.torchvision)

import poolgrad
from poolgrad import _ext  # the package's own binding: threads and the product profile
from poolgrad.operators import BY_API

# Every aclnn API called whole by its header's parameter names (phases 1 and 2, raising
# PoolgradError on a refusal); prepare (below) runs phase 1 alone.
run_api = poolgrad._run


class Prepared(NamedTuple):
    run: object  # the executor's phase 2 (the figure the report times)
    kernel: str  # the kernel phase 1 chose
    op: str  # the operator's name in the descriptors: the row's section of the report (report.py)


def prepare(api, /, **args):
    """Phase 1 of an aclnn API on arguments by its header's parameter names (python/poolgrad/
    operators.json has the API), with a repeatable executor."""
    executor = poolgrad._prepare(api, **args)
    return Prepared(executor.run, executor.kernel, BY_API[api].name)

sys.path.insert(0, os.path.dirname(__file__))
import workloads  # noqa: E402
from report import LAYERS, METHOD, derive, render  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


WARM_S = METHOD["warm_s"]


def timeit(fn, reps, warmup=2):
    # Let the other side's idle OpenMP workers (PyTorch's and poolgrad's runtimes both spin for a
    # while after a parallel region) go to sleep, so that neither measurement pays for the other.
    time.sleep(0.2)
    # Then warm up for at least `warmup` calls and WARM_S seconds: after the pause this VM runs
    # slowly for some tens of milliseconds (caches refilled, the vCPU rescheduled), and with a
    # fixed count of warm-ups that stretch fell into the timed runs of fast kernels only (measured
    # on the dilated backward: median 2.2 ms after two warm-ups, 1.3 ms after 30 ms, min 1.0 ms both).
    t0, done = time.perf_counter(), 0
    while done < warmup or time.perf_counter() - t0 < WARM_S:
        fn()
        done += 1
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


ROUNDS = METHOD["rounds"]


def paired(peer, mine, reps):
    """Times peer and poolgrad in ROUNDS alternating blocks (peer block, poolgrad block, ...) and
    keeps for each the fastest block median: both sides are sampled across the same stretch of
    time, so that this VM's drift (up to 2x between minutes) does not land on one side only."""
    tp, tm = [], []
    for _ in range(ROUNDS):
        tp.append(timeit(peer, reps))
        tm.append(timeit(mine, reps))
    return min(tp) * 1e3, min(tm) * 1e3


def tdtype(name):
    return {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[name]


def nbytes(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


def ok(res):
    st, msg = res
    if st != 0:
        raise RuntimeError(f"status {st}: {msg}")


def measure(results, prep, peer, reps, diff, **fields):
    """Times prep's phase 2 against peer in alternating blocks (paired) and appends the row: its
    operator (prep.op), kernel and both times, the runner's fields (id, threads, dtype, index,
    bytes, ...), and diff() as max_abs_diff, read after the timed runs wrote the outputs."""
    peer_ms, ms = paired(peer, lambda: ok(prep.run()), reps)
    results.append(dict(op=prep.op, kernel=prep.kernel, poolgrad_ms=ms, peer_ms=peer_ms, **fields))
    results[-1]["max_abs_diff"] = diff()
    return results[-1]


def equal(*pairs):
    """The max_abs_diff of outputs that must equal the peer's bit for bit: 0, or NaN if one differs."""
    return 0.0 if all(torch.equal(a, b) for a, b in pairs) else float("nan")


def max_diff(a, b):
    return (a.float() - b.float()).abs().max().item()


def run_maxpool(row, threads, reps, results, floors=None):
    """2-D max pooling against PyTorch's max_pool2d_with_indices and its backward (with int32 and
    int64 indices), each row with its memory floor; a _mask row runs the Mask pair (run_mask)."""
    wid, shape, k, s, p, ceil, d, dtname, cl, mask = row
    if mask:
        return run_mask(row, threads, reps, results, floors)
    g = torch.Generator().manual_seed(0)
    rank3 = shape[0] is None
    full = (1,) + shape[1:] if rank3 else shape
    x = torch.randn(full, generator=g).to(tdtype(dtname))
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
    if rank3:
        x = x[0]
    out, idx = torch.ops.aten.max_pool2d_with_indices(x, [k, k], [s, s], [p, p], [d, d], ceil)
    gy = torch.randn(out.shape, generator=g).to(x.dtype)
    if cl:
        gy = gy.contiguous(memory_format=torch.channels_last)
    idx32 = idx.to(torch.int32)
    K, S, P, D = [k, k], [s, s], [p, p], [d, d]
    # The kernels' chunks: images for channels-last, planes otherwise.
    chunks = x.shape[0] if cl else x.numel() // (x.shape[-1] * x.shape[-2])

    def floor(r, reads, writes):
        """The memory floor of a row: reading its inputs and streaming its outputs once, chunk by
        chunk, on the same threads (bench/copybw.c)."""
        if floors is not None:
            r.update(floor_ms=floors.chunks_ms(reads, [torch.empty_like(t) for t in writes], chunks, threads, reps))

    def peer_bwd():
        return torch.ops.aten.max_pool2d_with_indices_backward(gy, x, K, S, P, D, ceil, idx)

    ref = peer_bwd()
    for itype, ind in (("int32", idx32), ("int64", idx)):
        gx = torch.empty_like(x)
        args = dict(gradOutput=gy, self=x, indices=ind, kernelSize=K, stride=S, padding=P, dilation=D, ceilMode=ceil,
                    gradInput=gx)
        prep = prepare("aclnnMaxPool2dWithIndicesBackward", **args)
        r = measure(results, prep, peer_bwd, reps, lambda: max_diff(gx, ref), id=wid, threads=threads, dtype=dtname,
                    index=itype, bytes=nbytes(gy, ind, gx))
        r["poolgrad_call_ms"] = timeit(lambda: run_api("aclnnMaxPool2dWithIndicesBackward", **args), reps) * 1e3
        floor(r, [gy, ind], [gx])
        del prep
    # forward (int64 indices as PyTorch)
    o2, i2 = torch.empty_like(out), torch.empty_like(idx)
    prep = prepare("aclnnMaxPool2dWithIndices", self=x, kernelSize=K, stride=S, padding=P, dilation=D, ceilMode=ceil,
                   out=o2, indices=i2)
    r = measure(results, prep, lambda: torch.ops.aten.max_pool2d_with_indices(x, K, S, P, D, ceil), reps,
                lambda: equal((i2, idx), (o2, out)), id=wid, threads=threads, dtype=dtname, index="int64",
                bytes=nbytes(x, o2, i2))
    floor(r, [x], [o2, i2])


def run_mask(row, threads, reps, results, floors=None):
    """The Mask pair under the Ascend910B profile against PyTorch's max_pool2d_with_indices and its
    backward (what the Ascend plugin stands in for)."""
    wid, shape, k, s, p, ceil, d, dtname, cl, _ = row
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g).to(tdtype(dtname))
    K, S, P, D = [k, k], [s, s], [p, p], [d, d]
    out, idx = torch.ops.aten.max_pool2d_with_indices(x, K, S, P, D, ceil)
    gy = torch.randn(out.shape, generator=g).to(x.dtype)
    ho, wo = out.shape[-2:]
    mask = torch.empty(list(shape[:2]) + [k * k, ((ho * wo + 15) // 16 + 1) * 32], dtype=torch.int8)
    o2 = torch.empty_like(out)
    ok(_ext.set_product("Ascend910B"))
    try:
        prep = prepare("aclnnMaxPool2dWithMask", self=x, kernelSize=K, stride=S, padding=P, dilation=D, ceilMode=ceil,
                       out=o2, indices=mask)
        measure(results, prep, lambda: torch.ops.aten.max_pool2d_with_indices(x, K, S, P, D, ceil), reps,
                lambda: equal((o2, out)), id=wid, threads=threads, dtype=dtname, index="mask",
                bytes=nbytes(x, o2, mask))
        gx = torch.empty_like(x)
        args = dict(gradOutput=gy, self=x, indices=mask, kernelSize=K, stride=S, padding=P, dilation=D, ceilMode=ceil,
                    gradInput=gx)
        prep = prepare("aclnnMaxPool2dWithMaskBackward", **args)
        peer = lambda: torch.ops.aten.max_pool2d_with_indices_backward(gy, x, K, S, P, D, ceil, idx)  # noqa: E731
        ref = peer()
        r = measure(results, prep, peer, reps, lambda: max_diff(gx, ref), id=wid, threads=threads, dtype=dtname,
                    index="mask", bytes=nbytes(gy, mask, gx))
        r["poolgrad_call_ms"] = timeit(lambda: run_api("aclnnMaxPool2dWithMaskBackward", **args), reps) * 1e3
    finally:
        ok(_ext.set_product("Ascend950"))


def run_adaptive(row, threads, reps, results, floors=None):
    """Adaptive max pooling, 2-D or 3-D (as many dims as the output size), against PyTorch's
    adaptive_max_pool2d / 3d and their backwards (the 2-D backward under the Ascend910B profile,
    where CANN documents it)."""
    wid, shape, size, dtname = row
    size = list(size)
    aten = torch.ops.aten
    fwd, bwd = ((aten.adaptive_max_pool2d, aten.adaptive_max_pool2d_backward) if len(size) == 2 else
                (aten.adaptive_max_pool3d, aten.adaptive_max_pool3d_backward))
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g).to(tdtype(dtname))
    out, idx = fwd(x, size)
    o2, i2 = torch.empty_like(out), torch.empty_like(idx)
    prep = prepare("aclnnAdaptiveMaxPool2d" if len(size) == 2 else "aclnnAdaptiveMaxPool3d", self=x, outputSize=size,
                   outputOut=o2, indicesOut=i2)
    measure(results, prep, lambda: fwd(x, size), reps, lambda: equal((o2, out), (i2, idx)), id=wid, threads=threads,
            dtype=dtname, index="int64", bytes=nbytes(x, o2, i2))
    gy = torch.randn(out.shape, generator=g).to(x.dtype)
    gx = torch.empty_like(x)
    ok(_ext.set_product("Ascend910B" if len(size) == 2 else "Ascend950"))
    try:
        prep = prepare("aclnnAdaptiveMaxPool2dBackward" if len(size) == 2 else "aclnnAdaptiveMaxPool3dBackward",
                       gradOutput=gy, self=x, indices=idx, gradInput=gx)
        peer = lambda: bwd(gy, x, idx)  # noqa: E731
        ref = peer()
        measure(results, prep, peer, reps, lambda: max_diff(gx, ref), id=wid, threads=threads, dtype=dtname,
                index="int64", bytes=nbytes(gy, idx, gx))
    finally:
        ok(_ext.set_product("Ascend950"))


def run_pool3d(row, threads, reps, results, floors=None):
    """3-D max pooling against PyTorch's max_pool3d_with_indices and its backward (int64 indices, as
    PyTorch's; the backward also with int32)."""
    wid, shape, k, s, p, ceil, dtname = row
    g = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=g).to(tdtype(dtname))
    K, S, P, D = [k] * 3, [s] * 3, [p] * 3, [1] * 3
    out, idx = torch.ops.aten.max_pool3d_with_indices(x, K, S, P, D, ceil)
    o2, i2 = torch.empty_like(out), torch.empty_like(idx)
    prep = prepare("aclnnMaxPool3dWithArgmax", self=x, kernelSize=K, stride=S, padding=P, dilation=D, ceilMode=ceil,
                   out=o2, indices=i2)
    measure(results, prep, lambda: torch.ops.aten.max_pool3d_with_indices(x, K, S, P, D, ceil), reps,
            lambda: equal((o2, out), (i2, idx)), id=wid, threads=threads, dtype=dtname, index="int64",
            bytes=nbytes(x, o2, i2))
    gy = torch.randn(out.shape, generator=g).to(x.dtype)
    peer = lambda: torch.ops.aten.max_pool3d_with_indices_backward(gy, x, K, S, P, D, ceil, idx)  # noqa: E731
    ref = peer()
    for itype, ind in (("int32", idx.to(torch.int32)), ("int64", idx)):
        gx = torch.empty_like(x)
        prep = prepare("aclnnMaxPool3dWithArgmaxBackward", gradOutput=gy, self=x, indices=ind, kernelSize=K, stride=S,
                       padding=P, dilation=D, ceilMode=ceil, gradInput=gx)
        measure(results, prep, peer, reps, lambda: max_diff(gx, ref), id=wid, threads=threads, dtype=dtname,
                index=itype, bytes=nbytes(gy, ind, gx))
        del prep


def gather_lines(idx, plane, itemsize):
    """How many 64-byte lines of a contiguous gradient of `plane` elements a (n, c) plane hold the
    target of some index of idx (N, C, ...), each plane's lines counted from its own start: what a
    gather at idx reads, whatever its order."""
    per = 64 // itemsize
    lines = idx.flatten(2).to(torch.int64) // per
    planes = torch.arange(lines.shape[0] * lines.shape[1]).view(lines.shape[0], lines.shape[1], 1)
    return int((lines + planes * ((plane + per - 1) // per)).unique().numel())


def run_unpool(row, threads, reps, results, floors=None):
    """MaxUnpool against PyTorch's max_unpool2d / 3d on the indices its max pool makes, and the
    backward against what PyTorch's autograd runs for it (a gather of the gradient at the indices).
    The backward's bytes are what a gather must move: the indices, the output, and every gradient
    line that holds a target (`line_fraction` of the gradient: about all of them for 2x2 windows,
    90% for 2x2x2 ones; docs/max-unpool.md); not one gradient element an output."""
    wid, shape, k, s, p, dtname = row
    spatial = len(shape) - 2
    g = torch.Generator().manual_seed(0)
    src = torch.randn(shape, generator=g).to(tdtype(dtname))
    pool = torch.ops.aten.max_pool2d_with_indices if spatial == 2 else torch.ops.aten.max_pool3d_with_indices
    y, idx = pool(src, [k] * spatial, [s] * spatial, [p] * spatial, [1] * spatial, False)
    size = list(shape[2:])
    reserved = ([], []) if spatial == 2 else ([s] * 3, [p] * 3)
    peer_fwd = ((lambda: torch.ops.aten.max_unpool2d(y, idx, size)) if spatial == 2 else
                (lambda: torch.ops.aten.max_unpool3d(y, idx, size, *reserved)))
    want = peer_fwd()
    out = torch.empty_like(want)
    prep = (prepare("aclnnMaxUnpool2d", self=y, indices=idx, outputSize=size, out=out) if spatial == 2 else
            prepare("aclnnMaxUnpool3d", self=y, indices=idx, outputSize=size, stride=reserved[0], padding=reserved[1],
                    outRef=out))
    measure(results, prep, peer_fwd, reps, lambda: equal((out, want)), id=wid, threads=threads, dtype=dtname,
            index="int64", bytes=nbytes(y, idx, out))
    del prep
    gy = torch.randn(want.shape, generator=g).to(y.dtype)
    peer_bwd = lambda: gy.flatten(2).gather(-1, idx.flatten(2)).view(idx.shape)  # noqa: E731
    ref = peer_bwd()
    gx = torch.empty_like(y)
    prep = (prepare("aclnnMaxUnpool2dBackward", gradOutput=gy, self=y, indices=idx, outputSize=size, out=gx)
            if spatial == 2 else
            prepare("aclnnMaxUnpool3dBackward", gradOutput=gy, self=y, indices=idx, outputSize=size, stride=reserved[0],
                    padding=reserved[1], out=gx))
    lines = gather_lines(idx, gy[0, 0].numel(), gy.element_size())
    measure(results, prep, peer_bwd, reps, lambda: equal((gx, ref)), id=wid, threads=threads, dtype=dtname,
            index="int64", bytes=nbytes(idx, gx) + 64 * lines, line_fraction=64 * lines / nbytes(gy))


def make_rois(g, n, h, w, r, scale):
    img_h, img_w = h / scale, w / scale
    b = torch.randint(0, n, (r,), generator=g).float()
    x1 = torch.rand(r, generator=g) * img_w
    y1 = torch.rand(r, generator=g) * img_h
    bw = 16 + torch.rand(r, generator=g) * 384
    bh = 16 + torch.rand(r, generator=g) * 384
    x2 = torch.minimum(x1 + bw, torch.tensor(img_w - 1))
    y2 = torch.minimum(y1 + bh, torch.tensor(img_h - 1))
    return torch.stack([b, x1, y1, x2, y2], 1)


def kernel_channel_block(n, c, h, w, threads):
    """The channel block roipool_backward picks (src/roipool/roipool_backward.cpp): 64 KB of
    float32 accumulator planes, halved until there are 4 items per thread."""
    cb = min(max(1, 65536 // (max(1, h * w) * 4)), max(c, 1))
    while cb > 1 and n * ((c + cb - 1) // cb) < 4 * threads:
        cb = (cb + 1) // 2
    return cb


def run_roi(row, threads, reps, results, floors=None):
    wid, (n, c, h, w), r, pooled, scale, dtname = row
    g = torch.Generator().manual_seed(0)
    dt = tdtype(dtname)
    x = torch.randn((n, c, h, w), generator=g).to(dt)
    rois = make_rois(g, n, h, w, r, scale).to(dt)
    y = torch.empty((r, c, pooled, pooled), dtype=dt)
    am = torch.empty((r, c, pooled, pooled), dtype=torch.int32)
    prep = prepare("aclnnRoiPoolingWithArgMax", x=x, rois=rois, pooled_h=pooled, pooled_w=pooled, spatial_scale_h=scale,
                   spatial_scale_w=scale, y=y, argmax=am)
    # No difference: CANN's RoI geometry is not torchvision's (docs/roi-pooling.md).
    measure(results, prep, lambda: torch.ops.torchvision.roi_pool(x, rois, scale, pooled, pooled), reps,
            lambda: float("nan"), id=wid, threads=threads, dtype=dtname, index="int32", bytes=nbytes(x, rois, y, am))
    del prep
    gy = torch.randn(y.shape, generator=g).to(dt)
    gx = torch.empty_like(x)
    args = dict(gradOutput=gy, gradInputRef=gx, rois=rois, argmax=am, pooledH=pooled, pooledW=pooled,
                spatialScale=scale)
    prep = prepare("aclnnRoiPoolingGradWithArgMax", **args)
    # torchvision's backward takes float gradients of the input dtype.
    peer = lambda: torch.ops.torchvision._roi_pool_backward(gy, rois, am, scale, pooled, pooled, n, c, h, w)  # noqa: E731
    ref = peer()
    res = measure(results, prep, peer, reps, lambda: max_diff(gx, ref), id=wid, threads=threads, dtype=dtname,
                  index="int32", bytes=nbytes(gy, am, rois, gx))
    res["poolgrad_call_ms"] = timeit(lambda: run_api("aclnnRoiPoolingGradWithArgMax", **args), reps) * 1e3
    if floors is not None:
        # Only reading gradOutput and argmax, in the kernel's order and in one sequential pass.
        bins = pooled * pooled
        cb = kernel_channel_block(n, c, h, w, threads)
        res.update(channel_block=cb, read_floor_ms=floors.read_ms(gy, am, r, c, bins, cb, threads, reps),
                   seq_read_ms=floors.read_ms(gy, am, r, c, bins, c, threads, reps))


def fpn_levels(boxes, levels):
    """Each box's FPN level index (0 = the finest), as torchvision's MultiScaleRoIAlign assigns
    them: k = floor(4 + log2(sqrt(area) / 224) + 1e-6), clamped to the levels 2..2+levels-1."""
    area = (boxes[:, 3] - boxes[:, 1]) * (boxes[:, 4] - boxes[:, 2])
    k = torch.floor(4 + torch.log2(torch.sqrt(area.float().clamp(min=1e-6)) / 224) + 1e-6)
    return (k.clamp(2, 2 + levels - 1) - 2).to(torch.int64)


def run_roialign(row, threads, reps, results, floors=None):
    """RoIAlign V2 against torchvision's roi_align CPU kernels (torch.ops.torchvision.roi_align /
    _roi_align_backward) on the same tensors: the forward, and for float32 the backward. An _fpn
    row runs four levels, each box on its MultiScaleRoIAlign level, and times the four calls."""
    wid, (n, c, h, w), r, pooled, scale, sr, aligned, fpn, dtname = row
    g = torch.Generator().manual_seed(0)
    dt = tdtype(dtname)
    nlev = 4 if fpn else 1
    feats = [torch.randn((n, c, h >> i, w >> i), generator=g).to(dt) for i in range(nlev)]
    scales = [scale / 2 ** i for i in range(nlev)]
    boxes = make_rois(g, n, h, w, r, scale)
    lev = fpn_levels(boxes, nlev) if fpn else torch.zeros(r, dtype=torch.int64)
    calls = [(feats[i], boxes[lev == i].contiguous().to(dt), scales[i]) for i in range(nlev) if (lev == i).any()]
    outs = [torch.empty((len(b), c, pooled, pooled), dtype=dt) for _, b, _ in calls]
    preps = [prepare("aclnnRoiAlignV2", self=x, boxes=b, pooledHeight=pooled, pooledWidth=pooled, spatialScale=s,
                     samplingRatio=sr, aligned=aligned, out=y) for (x, b, s), y in zip(calls, outs)]
    peer = lambda: [torch.ops.torchvision.roi_align(x, b, s, pooled, pooled, sr, aligned) for x, b, s in calls]  # noqa: E731
    want = peer()
    peer_ms, ms = paired(peer, lambda: [ok(p.run()) for p in preps], reps)
    same = all(torch.equal(a, b) for a, b in zip(outs, want))
    results.append(dict(op=preps[0].op, id=wid, threads=threads, dtype=dtname, index="-",
                        kernel=preps[0].kernel, poolgrad_ms=ms, peer_ms=peer_ms,
                        bytes=sum(nbytes(x, b, y) for (x, b, _), y in zip(calls, outs)),
                        max_abs_diff=0.0 if same else float("nan")))
    del preps
    if dt != torch.float32:
        return
    gys = [torch.randn(y.shape, generator=g) for y in outs]
    gxs = [torch.empty_like(x) for x, _, _ in calls]
    preps = [prepare("aclnnRoiAlignV2Backward", gradOutput=gy, boxes=b, inputShape=list(gx.shape), pooledHeight=pooled,
                     pooledWidth=pooled, spatialScale=s, samplingRatio=sr, aligned=aligned, gradInput=gx)
             for gy, (_, b, s), gx in zip(gys, calls, gxs)]
    peer = lambda: [torch.ops.torchvision._roi_align_backward(gy, b, s, pooled, pooled, *x.shape, sr, aligned)  # noqa: E731
                    for gy, (x, b, s) in zip(gys, calls)]
    ref = peer()
    peer_ms, ms = paired(peer, lambda: [ok(p.run()) for p in preps], reps)
    err = max((a - b).abs().max().item() for a, b in zip(gxs, ref))
    results.append(dict(op=preps[0].op, id=wid, threads=threads, dtype=dtname, index="-",
                        kernel=preps[0].kernel, poolgrad_ms=ms, peer_ms=peer_ms,
                        bytes=sum(nbytes(gy, b, gx) for gy, (_, b, _), gx in zip(gys, calls, gxs)),
                        max_abs_diff=err))


class Floors(NamedTuple):
    """The memory floors a runner may measure beside its rows (bench/copybw.c, through main)."""
    chunks_ms: object  # (reads, writes, chunks, threads, reps): read and stream-write, chunk by chunk
    read_ms: object  # (gy, argmax, R, C, bins, block, threads, reps): the RoI backward's read order


# Each workload kind's runner (bench/workloads.txt's first column): runner(row, threads, reps,
# results, floors) appends the row's figures to results.
RUNNERS = {"maxpool": run_maxpool, "adaptive": run_adaptive, "pool3d": run_pool3d, "adaptive3d": run_adaptive,
           "roi": run_roi, "unpool": run_unpool, "unpool3d": run_unpool, "roialign": run_roialign}


def run_layers(threads, reps, results):
    """End to end from Python: poolgrad.torch's layers (registered ops, autograd) forward + backward
    against torch.nn.MaxPool2d and torchvision.ops.RoIPool on the same tensors: what a model sees,
    allocation, per-call overhead and autograd included."""
    import poolgrad.torch as pgt
    import torchvision.ops
    g = torch.Generator().manual_seed(0)
    x = torch.randn((32, 64, 112, 112), generator=g).requires_grad_(True)
    gy = torch.randn((32, 64, 56, 56), generator=g)
    f = torch.randn((2, 512, 38, 50), generator=g).requires_grad_(True)
    rois = make_rois(g, 2, 38, 50, 512, 1 / 16)
    gr = torch.randn((512, 512, 7, 7), generator=g)
    fa = torch.randn((1, 256, 50, 68), generator=g).requires_grad_(True)
    boxes = make_rois(g, 1, 50, 68, 512, 1 / 16)
    ga = torch.randn((512, 256, 7, 7), generator=g)
    rows = [("resnet-stem-maxpool2d", x, gy, lambda m: m(x), pgt.MaxPool2d(3, 2, 1), torch.nn.MaxPool2d(3, 2, 1)),
            ("fast-rcnn-roipool", f, gr, lambda m: m(f, rois), pgt.RoIPool(7, 1 / 16),
             torchvision.ops.RoIPool(7, 1 / 16)),
            ("faster-rcnn-roialign", fa, ga, lambda m: m(fa, boxes), pgt.RoIAlign(7, 1 / 16, 2, True),
             torchvision.ops.RoIAlign(7, 1 / 16, 2, True))]
    for wid, inp, grad, call, mine, peer in rows:
        def step(m):
            inp.grad = None
            call(m).backward(grad)
        step(mine)
        got = inp.grad.clone()
        step(peer)
        diff = (got - inp.grad).abs().max().item() if not wid.endswith("roipool") else float("nan")
        peer_ms, ms = paired(lambda: step(peer), lambda: step(mine), reps)
        results.append(dict(op=LAYERS, id=wid, threads=threads, dtype="float32", index="-",
                            kernel="poolgrad.torch", poolgrad_ms=ms, peer_ms=peer_ms, max_abs_diff=diff))


def host_cpu():
    """The CPU as /proc/cpuinfo names it, for a report whose rows may come from several runs (a
    VM's CPU model can change between them): model name, family and model, widest x86 vectors."""
    try:
        first = pathlib.Path("/proc/cpuinfo").read_text().split("\n\n")[0]  # the first CPU's block
        info = dict(line.split(":", 1) for line in first.splitlines() if ":" in line)
        info = {k.strip(): v.strip() for k, v in info.items()}
        vec = "AVX-512" if "avx512f" in info.get("flags", "").split() else \
            "AVX2, no AVX-512" if "avx2" in info.get("flags", "").split() else ""
        return ", ".join(x for x in (info.get("model name", platform.processor()),
                                     f"family {info.get('cpu family', '?')} model {info.get('model', '?')}", vec) if x)
    except OSError:
        return platform.processor() or platform.machine()


def l3_bytes():
    try:
        v = os.sysconf("SC_LEVEL3_CACHE_SIZE")
        if v and v > 0:
            return v
    except (ValueError, OSError):
        pass
    return 32 << 20


PASSES = METHOD["passes"]


def row_key(r):
    """What names a row across passes and reports."""
    return (r["op"], r["id"], r["threads"], r["index"])


def merge(passes):
    """One set of rows and copy probes from several passes over all rows. This VM has slow
    stretches of tens of seconds (the same kernel 1.3-1.5x slower for a minute, docs/profiles.md
    stops 27-29), longer than one row's alternating blocks, so one pass can put both sides of a
    row in a stretch. Passes spread each row's samples over the whole run; each row keeps, for
    every time it has, the fastest of its passes (peer and poolgrad alike, so neither side gains).
    The copy probes are all kept: the roof is their median (see main), since the probe's own
    outliers go both ways (31-34 GB/s at 2 threads most of the time, 45-54 now and then)."""
    merged, probes = {}, {}
    for results, ps in passes:
        for r in results:
            m = merged.setdefault(row_key(r), dict(r))
            for f, v in r.items():
                if f.endswith("_ms"):
                    m[f] = min(m[f], v)
                elif f == "max_abs_diff" and (v != v or v > m[f]):
                    m[f] = v  # the worst difference; a NaN (results not equal) stays
        for t, p in ps.items():
            probes.setdefault(t, []).extend(p)
    return list(merged.values()), probes


def show(r):
    print(f"  {r['op']:22s} {r['id']:22s} {r['dtype']:8s} {r['index']:5s}: poolgrad {r['poolgrad_ms']:8.3f} ms "
          f"peer {r['peer_ms']:8.3f} ms ratio {r['ratio']:5.2f} roof {r['roof_fraction']:.2f} "
          f"diff {r['max_abs_diff']:.3g}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build-bench"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=ROUNDS, help="alternating peer/poolgrad blocks per figure")
    ap.add_argument("--passes", type=int, default=PASSES,
                    help="passes over all rows; each figure keeps its fastest pass (see merge)")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", default=str(ROOT / "docs"))
    ap.add_argument("--update", action="store_true",
                    help="replace only the rows measured now in the existing report (same op, id, threads, "
                         "index), keeping its copy bandwidths (the other rows' roofs were computed with them)")
    args = ap.parse_args()
    globals()["ROUNDS"] = max(1, args.rounds)
    globals()["PASSES"] = max(1, args.passes)
    cb = ctypes.CDLL(os.path.join(args.build, "bench", "libpoolgrad_copybw.so"))
    cb.poolgrad_bench_copy_gbs.restype = ctypes.c_double
    cb.poolgrad_bench_copy_gbs.argtypes = [ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    cb.poolgrad_bench_roi_read_ms.restype = ctypes.c_double
    cb.poolgrad_bench_roi_read_ms.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p] + \
        [ctypes.c_longlong] * 4 + [ctypes.c_int, ctypes.c_int]

    cb.poolgrad_bench_chunks_ms.restype = ctypes.c_double
    cb.poolgrad_bench_chunks_ms.argtypes = [ctypes.c_void_p, ctypes.c_size_t] * 4 + \
        [ctypes.c_longlong, ctypes.c_int, ctypes.c_int]

    def chunks_ms(reads, writes, chunks, threads, reps):
        args = []
        for ts in (reads, writes):
            ts = list(ts) + [None] * (2 - len(ts))
            for t in ts:
                args += [None, 0] if t is None else [t.data_ptr(), nbytes(t) // chunks]
        time.sleep(0.2)
        return cb.poolgrad_bench_chunks_ms(*args, chunks, threads, reps)

    def read_ms(gy, am, r, c, bins, block, threads, reps):
        time.sleep(0.2)
        return cb.poolgrad_bench_roi_read_ms(gy.data_ptr(), gy.element_size(), am.data_ptr(), r, c, bins,
                                             block, threads, reps)

    floors = Floors(chunks_ms, read_ms)

    def copy_gbs(t):
        return cb.poolgrad_bench_copy_gbs(max(4 * l3_bytes(), 256 << 20), t, 10)

    def one_pass():
        """Every selected row at every thread count, with a copy-bandwidth probe before each row."""
        results, probes = [], {}
        for t in args.threads:
            torch.set_num_threads(t)
            _ext.set_num_threads(t)
            runs = [(row, lambda row, kind=kind: RUNNERS[kind](row, t, args.reps, results, floors))
                    for kind, rows in workloads.ROWS.items() for row in rows]
            runs += [(("layers",), lambda row: run_layers(t, args.reps, results))]
            for row, run in runs:
                if args.only is None or row[0] in args.only:
                    probes.setdefault(t, []).append(copy_gbs(t))
                    print(f"threads={t}: copy bandwidth {probes[t][-1]:.1f} GB/s", flush=True)
                    done = len(results)
                    run(row)
                    for r in results[done:]:
                        show(derive(dict(r), probes[t][-1]))
        return results, probes

    passes = [one_pass() for _ in range(max(1, args.passes))]
    results, probes = merge(passes)
    bws = {t: statistics.median(ps) for t, ps in probes.items()}
    # Each row's roof is against the copy bandwidth of the run that measured it (this one).
    results = [derive(dict(r, copy_gbs=bws[r["threads"]]), bws[r["threads"]]) for r in results]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    updates = []
    if args.update and (out / "performance.json").exists():
        # --update: the existing report's other rows keep the figures (and roofs) their run gave;
        # the header keeps that run's bandwidths and lists this run's beside them (render).
        old = json.loads((out / "performance.json").read_text())
        now = {row_key(r) for r in results}
        base = {int(t): b for t, b in old["bandwidth_gbs"].items()}
        kept = [dict(r, copy_gbs=r.get("copy_gbs", base[r["threads"]])) for r in old["results"]
                if row_key(r) not in now]
        # Which rows each later run measured, as [id, threads] pairs: a row measured again leaves
        # the entry of the run that measured it before.
        rows = sorted({(r["id"], r["threads"]) for r in results})
        updates = [dict(u, rows=[x for x in u["rows"] if tuple(x) not in rows]) for u in old.get("updates", [])]
        updates = [u for u in updates if u["rows"]] + [dict(date=time.strftime("%Y-%m-%d"), rows=rows,
                                                            cpu=host_cpu(), bandwidth_gbs=bws)]
        bws, probes = base, {int(t): p for t, p in old.get("bandwidth_probes_gbs", {}).items()}
        results = kept + results
    method = dict(warm_s=WARM_S, rounds=ROUNDS, passes=PASSES)
    (out / "performance.json").write_text(json.dumps(dict(bandwidth_gbs=bws, bandwidth_probes_gbs=probes,
                                                          method=method, updates=updates, results=results), indent=1))
    render(results, bws, probes, out / "performance.md", out / "performance.png", updates, method)
    print("wrote", out / "performance.md", out / "performance.png", out / "performance.json")


if __name__ == "__main__":
    main()
