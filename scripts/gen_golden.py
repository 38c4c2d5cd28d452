#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the PyTorch/torchvision golden files the C++ tests compare against.

Run with the project venv: .venv/bin/python scripts/gen_golden.py
Each case is a block of lines: a header `case key=value ...`, then one line per array,
`name count v0 v1 ...`, floats written with float.hex() so that they round-trip exactly.
"""
import pathlib

import torch
import torchvision  # noqa: F401  (registers torch.ops.torchvision)

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "golden"


def fmt(name, t):
    vals = t.reshape(-1).tolist()
    if t.dtype.is_floating_point:
        body = " ".join(float(v).hex() for v in vals)
    else:
        body = " ".join(str(int(v)) for v in vals)
    return f"{name} {len(vals)} {body}\n"


def maxpool_cases():
    g = torch.Generator().manual_seed(1234)
    cases = [
        # N, C, H, W, k, s, p, d, ceil, dtype
        (1, 1, 4, 3, 2, 2, 0, 1, False, torch.float32),
        (2, 3, 7, 9, 3, 2, 1, 1, False, torch.float32),
        (2, 3, 7, 9, 3, 2, 1, 1, True, torch.float32),
        (1, 2, 8, 8, 3, 1, 1, 1, False, torch.float32),
        (1, 2, 11, 10, 3, 2, 1, 2, False, torch.float32),
        (2, 2, 5, 5, 2, 2, 1, 1, True, torch.float32),
        (1, 3, 9, 6, (3, 2), (2, 1), (1, 0), (1, 2), True, torch.float32),
        (2, 4, 6, 6, 3, 2, 1, 1, False, torch.float16),
        (2, 4, 6, 6, 2, 2, 0, 1, True, torch.bfloat16),
        (1, 2, 10, 7, 4, 3, 2, 1, True, torch.float16),
        (3, 2, 5, 8, 1, 1, 0, 1, False, torch.float32),
        (1, 1, 3, 3, 5, 1, 2, 1, False, torch.float32),
    ]
    text = []
    for (n, c, h, w, k, s, p, d, ceil, dt) in cases:
        pair = lambda v: v if isinstance(v, tuple) else (v, v)
        k, s, p, d = pair(k), pair(s), pair(p), pair(d)
        # Few distinct values: many ties.
        x = (torch.randint(-4, 5, (n, c, h, w), generator=g).float() / 2).to(dt)
        out, idx = torch.ops.aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
        gy = torch.randn(out.shape, generator=g).to(dt)
        gx = torch.ops.aten.max_pool2d_with_indices_backward(gy, x, k, s, p, d, ceil, idx)
        dname = {torch.float32: "FLOAT", torch.float16: "FLOAT16", torch.bfloat16: "BF16"}[dt]
        text.append(
            f"case N={n} C={c} H={h} W={w} kh={k[0]} kw={k[1]} sh={s[0]} sw={s[1]} ph={p[0]} "
            f"pw={p[1]} dh={d[0]} dw={d[1]} ceil={int(ceil)} dtype={dname}\n")
        text.append(fmt("x", x.float()))
        text.append(fmt("out", out.float()))
        text.append(fmt("indices", idx))
        text.append(fmt("gradOutput", gy.float()))
        text.append(fmt("gradInput", gx.float()))
    (OUT / "maxpool.txt").write_text("".join(text))


def roi_backward_cases():
    g = torch.Generator().manual_seed(99)
    cases = [  # N, C, H, W, R, ph, pw, dtype
        (2, 3, 6, 7, 5, 2, 3, torch.float32),
        (1, 4, 5, 5, 16, 3, 3, torch.float32),
        (3, 2, 8, 4, 9, 7, 7, torch.float32),
        (2, 2, 4, 4, 6, 2, 2, torch.float16),
    ]
    text = []
    for (n, c, h, w, r, ph, pw, dt) in cases:
        b = torch.randint(0, n, (r, 1), generator=g).float()
        coords = torch.randint(0, min(h, w), (r, 4), generator=g).float()
        rois = torch.cat([b, coords], 1)
        argmax = torch.randint(-1, h * w, (r, c, ph, pw), generator=g, dtype=torch.int32)
        gy = torch.randn((r, c, ph, pw), generator=g).to(dt)
        gx = torch.ops.torchvision._roi_pool_backward(
            gy.float(), rois, argmax, 1.0, ph, pw, n, c, h, w)
        dname = {torch.float32: "FLOAT", torch.float16: "FLOAT16"}[dt]
        text.append(f"case N={n} C={c} H={h} W={w} R={r} ph={ph} pw={pw} dtype={dname}\n")
        text.append(fmt("rois", rois))
        text.append(fmt("argmax", argmax))
        text.append(fmt("gradOutput", gy.float()))
        text.append(fmt("gradInput", gx.float()))
    (OUT / "roi_backward.txt").write_text("".join(text))


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    maxpool_cases()
    roi_backward_cases()
    print("wrote", sorted(p.name for p in OUT.iterdir()))
