# SPDX-License-Identifier: Apache-2.0
"""`compare --plot`: pictures of where a device output differs from its golden, as PNG files.

Two per output: a heatmap of the largest absolute error of each plane (rows: the batch, columns:
the channels; a 2-D output is its own grid), so that a wrong channel, batch or plane stands out,
and a histogram of the elements' relative errors |a - g| / |g| on a log scale, with msprobe's 0.001
and 0.005 marks. Integer outputs (indices) get the heatmap only, counting the mismatches of each
plane. matplotlib is an optional dependency (`pip install poolgrad[plot]`): `require()` names it
before any work starts.
"""
from __future__ import annotations

import os
import re

import numpy as np

from .standards import THOUSANDTHS


def require() -> None:
    """Raises RuntimeError naming the missing dependency, before anything is computed or written."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise RuntimeError("--plot needs matplotlib, which is not installed: "
                           "pip install matplotlib (or poolgrad[plot])") from None


def stem(name: str) -> str:
    """A file-name stem from any name: characters other than letters, digits, ".", "_" and "-"
    become "_", so a stem can never leave the folder it is written into."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def plane_grid(values: np.ndarray, reduce) -> np.ndarray:
    """values reduced over each plane (the dims after the first two) to an (N, C) grid; a 2-D
    array is its own grid, a 1-D one a single row, a scalar one cell."""
    if values.ndim <= 2:
        return np.atleast_2d(values).astype(np.float64)
    return reduce(values.reshape(values.shape[0], values.shape[1], -1).astype(np.float64), axis=2)


def write(actual, golden, out_dir: str, stem: str, title: str) -> list:
    """Writes OUT_DIR/STEM-heatmap.png (and OUT_DIR/STEM-hist.png for floating outputs); returns
    the paths written. OUT_DIR is the caller's (already confined) directory; STEM is from stem()."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    a, g = np.asarray(actual), np.asarray(golden)
    integers = a.dtype.kind in "iub" and g.dtype.kind in "iub"
    a64, g64 = a.astype(np.float64), g.astype(np.float64)
    os.makedirs(out_dir, exist_ok=True)
    paths = []

    with np.errstate(invalid="ignore"):
        if integers:
            grid, label = plane_grid((a64 != g64).astype(np.float64), np.sum), "mismatches per plane"
        else:
            err = np.abs(a64 - g64)
            err[np.isnan(a64) & np.isnan(g64)] = 0.0
            err[np.isinf(a64) & (a64 == g64)] = 0.0
            grid, label = plane_grid(np.where(np.isnan(err), np.inf, err), np.max), "max abs error per plane"
    fig, ax = plt.subplots(figsize=(6, 4))
    shown = np.where(np.isinf(grid), np.nan, grid)
    im = ax.imshow(shown, aspect="auto", interpolation="nearest", cmap="magma")
    fig.colorbar(im, ax=ax, label=label)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # planes are whole numbers
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("channel" if a.ndim > 2 else "column")
    ax.set_ylabel("batch" if a.ndim > 2 else "row")
    ax.set_title(f"{title}: {label}" + (" (white: NaN/inf)" if np.isinf(grid).any() else ""), fontsize=9)
    paths.append(os.path.join(out_dir, f"{stem}-heatmap.png"))
    fig.savefig(paths[-1], dpi=80, bbox_inches="tight")
    plt.close(fig)

    if not integers:
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.abs(a64 - g64) / np.abs(g64)
        rel = rel[np.isfinite(rel)]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        nonzero = rel[rel > 0]
        zeros = rel.size - nonzero.size
        if nonzero.size:
            lo = max(np.log10(nonzero.min()), -16.0)
            hi = max(np.log10(nonzero.max()), lo + 1.0)
            ax.hist(np.log10(np.maximum(nonzero, 10.0**lo)), bins=60, range=(lo, hi), color="tab:blue")
        for name, t in THOUSANDTHS.items():
            ax.axvline(np.log10(t), color="tab:red", linestyle="--", linewidth=1)
            ax.text(np.log10(t), ax.get_ylim()[1] * 0.95, f" {t:g}", color="tab:red", fontsize=8, va="top")
        ax.set_xlabel("log10 relative error |a - g| / |g|")
        ax.set_ylabel("elements")
        ax.set_title(f"{title}: relative errors ({zeros} of {rel.size} exact, not shown)", fontsize=9)
        paths.append(os.path.join(out_dir, f"{stem}-hist.png"))
        fig.savefig(paths[-1], dpi=80, bbox_inches="tight")
        plt.close(fig)
    return paths
