#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The benchmark report: docs/performance.md and docs/performance.png from the rows bench/compare.py
measured, one section per operator of the descriptors (python/poolgrad/operators.json).

Run alone, it writes the report again from docs/performance.json, measuring nothing (after a
change to the report's layout or byte model):
    .venv/bin/python bench/report.py [--out docs]
"""
import argparse
import json
import os
import pathlib
import platform

from poolgrad.operators import SPECS

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = "layer_forward_backward"  # compare.run_layers' rows: poolgrad.torch's layers, not one operator
# How compare.py times a row, as the report describes it: the warm-up, the alternating blocks
# kept, the passes over all rows (its options; a report written before they were recorded used these).
METHOD = dict(warm_s=0.05, rounds=3, passes=2)


def derive(r, bw):
    """The figures computed from a row's times, its bytes and the copy bandwidth `bw` (GB/s)."""
    r["ratio"] = r["peer_ms"] / r["poolgrad_ms"]
    b = r.get("bytes", float("nan"))
    r["gbs"] = b / r["poolgrad_ms"] / 1e6
    r["roof_fraction"] = r["gbs"] / bw
    if "floor_ms" in r:  # the floor moves the row's own bytes
        r["floor_fraction"] = r["floor_ms"] / r["poolgrad_ms"]
        r["floor_roof"] = b / r["floor_ms"] / 1e6 / bw
    if "read_floor_ms" in r:
        r["floor_ratio"] = r["peer_ms"] / r["read_floor_ms"]
    return r


def update_rows(rows):
    """'overlap-3x3 (1, 2 threads), segnet-decoder (2 threads)' from [id, threads] pairs."""
    by = {}
    for wid, t in rows:
        by.setdefault(wid, []).append(t)
    return ", ".join(f"{wid} ({', '.join(str(t) for t in sorted(ts))} thread{'s' if ts != [1] else ''})"
                     for wid, ts in sorted(by.items()))


def sections(results):
    """The report's sections as (op, heading): one per operator of the descriptors, in their order
    (python/poolgrad/operators.json), then the layers; an op no descriptor names (a row of an
    older report) gets a section of its own at the end rather than being left out."""
    known = [(s.name, f"{s.name} ({s.aclnn})") for s in SPECS.values()] + [(LAYERS, "layers: forward + backward")]
    names = {op for op, _ in known}
    return known + [(op, op) for op in sorted({r["op"] for r in results} - names)]


def render(results, bws, probes, out_md, out_png, updates=(), method=None):
    """docs/performance.md and .png from the rows; method: how compare.py timed them (METHOD's keys)."""
    method = dict(METHOD, **(method or {}))
    lines = ["# Performance", "",
             "poolgrad against its peers (PyTorch for max pooling, torchvision for RoI pooling), "
             "measured in one process on the same tensors and thread counts by `bench/compare.py` "
             "(regenerate with `bash scripts/bench.sh`). Times are medians of the timed runs after "
             f"a 0.2 s pause and at least 2 warm-up calls lasting {method['warm_s'] * 1e3:.0f} ms, in alternating peer / poolgrad blocks (the fastest of {method['rounds']} blocks each, so that "
             "both sides sample the same stretch of this VM's drift), and each figure the fastest of "
             f"{method['passes']} passes over all rows (this VM's slow stretches outlast one row's blocks); `ratio` is peer time / poolgrad time (phase 2 only: the kernel); `call ms` "
             "is phase 1 + phase 2. `roof` is achieved GB/s over the copy bandwidth measured in the "
             "same run with the same thread count (below).", "",
             f"Host: {platform.machine()}, ISA level: "
             f"{os.environ.get('POOLGRAD_CPU_CAPABILITY') or 'the best the host has'}. No aarch64 host has run "
             "this report yet: what each kernel's NEON path does per output (vector width, loads and "
             "stores) and its expected ratio to the portable path are in docs/aarch64.md, and "
             "`bash scripts/bench.sh` writes this report there unchanged.", ""]
    lines.append("Copy bandwidth (the median of the probes taken before each row, each the best of 10 copies of "
                 "256 MB; their range in brackets): " + ", ".join(
                     f"{t} thread(s) {bw:.1f} GB/s ({min(probes.get(t, [bw])):.1f}-{max(probes.get(t, [bw])):.1f}, "
                     f"{len(probes.get(t, [bw]))} probes)" for t, bw in sorted(bws.items())))
    for u in updates:
        lines.append("")
        lines.append(f"Rows measured again on {u['date']} (`--update`, host {u.get('cpu', 'not recorded')}): "
                     f"{update_rows(u['rows'])}; their roof is "
                     "against that run's copy bandwidth, " + ", ".join(
                         f"{t} thread(s) {bw:.1f} GB/s" for t, bw in sorted(u["bandwidth_gbs"].items())) + ".")
    lines.append("")
    for op, title in sections(results):
        rows = [r for r in results if r["op"] == op]
        if not rows:
            continue
        lines += [f"## {title}", "",
                  "| id | threads | dtype | index | poolgrad ms | call ms | peer ms | ratio | GB/s | roof |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            call = r.get("poolgrad_call_ms")
            lines.append(f"| {r['id']} | {r['threads']} | {r['dtype']} | {r['index']} | {r['poolgrad_ms']:.3f} | "
                         f"{'' if call is None else f'{call:.3f}'} | {r['peer_ms']:.3f} | {r['ratio']:.2f} | "
                         f"{r['gbs']:.1f} | {r['roof_fraction']:.2f} |")
        lines.append("")
        gathers = [r for r in rows if "line_fraction" in r]
        if gathers:
            lines += ["Bytes of these rows: the indices, the output, and every 64-byte line of the gradient "
                      "that holds some index's target, which a gather at these indices reads whatever its "
                      "order (one gradient element an output would leave out the rest of each line): " +
                      ", ".join(f"{r['id']} {r['line_fraction']:.3f}" for r in gathers if r["threads"] == 1) +
                      " of the gradient's lines (docs/max-unpool.md).", ""]
        mfloors = [r for r in rows if "floor_ms" in r]
        if mfloors:
            lines += ["Memory floors, measured in the same run on the same tensors: `floor ms` only reads "
                      "the inputs and writes the outputs once (streaming stores of a counter: lines of "
                      "zeros go to this machine's memory twice as fast as other data), chunk by chunk (planes; "
                      "images for channels-last) split over the same threads, with no compute "
                      "(bench/copybw.c); `of floor` = floor ms / poolgrad ms; `floor roof` is the roof "
                      "fraction the floor itself reaches: what this traffic gets from this machine's "
                      "memory, against the copy's one read and one write stream. The floor is a memory "
                      "figure only where the row's data is past the 32 MB L3 (the ResNet, VGG and "
                      "Inception rows); smaller rows (overlap-s1, chw-single, dilated) read it from "
                      "cache, and the 14x14 planes of small-planes are too small for the floor's "
                      "per-chunk loop.", "",
                      "| id | threads | dtype | index | poolgrad ms | floor ms | of floor | floor roof |",
                      "|---|---|---|---|---|---|---|---|"]
            for r in mfloors:
                lines.append(f"| {r['id']} | {r['threads']} | {r['dtype']} | {r['index']} | {r['poolgrad_ms']:.3f} | "
                             f"{r['floor_ms']:.3f} | {r['floor_fraction']:.2f} | {r['floor_roof']:.2f} |")
            lines.append("")
        floors = [r for r in rows if "read_floor_ms" in r]
        if floors:
            lines += ["Read floors of the RoI backward, measured in the same run on the same tensors: "
                      "`order ms` only reads gradOutput and argmax in the kernel's order (for each "
                      "block of `cb` channels, whose float32 accumulators stay in L2, every ROI's "
                      "`cb` x bins values), `seq ms` reads them in one sequential pass (which would "
                      "need every channel's accumulator live: C x H x W x 4 bytes). `best ratio` = "
                      "peer ms / order ms: the ratio no kernel reading in that order can pass.", "",
                      "| id | threads | cb | poolgrad ms | order ms | seq ms | best ratio |",
                      "|---|---|---|---|---|---|---|"]
            for r in floors:
                lines.append(f"| {r['id']} | {r['threads']} | {r['channel_block']} | {r['poolgrad_ms']:.3f} | "
                             f"{r['read_floor_ms']:.3f} | {r['seq_read_ms']:.3f} | {r['floor_ratio']:.2f} |")
            lines.append("")
    pathlib.Path(out_md).write_text("\n".join(lines) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot")
        return
    ops = [op for op in ("max-pool2d-backward", "roi-pool-backward") if any(r["op"] == op for r in results)]
    if not ops:
        return
    fig, axes = plt.subplots(len(ops), 1, figsize=(12, 4.5 * len(ops)), squeeze=False)
    for ax, op in zip(axes[:, 0], ops):
        rows = [r for r in results if r["op"] == op and r["threads"] == max(bws) and r["index"] in ("int32",)]
        labels = [f"{r['id']}" for r in rows]
        xs = range(len(rows))
        pg_gbs = [r["gbs"] for r in rows]
        peer_gbs = [r["gbs"] * r["poolgrad_ms"] / r["peer_ms"] for r in rows]
        ax.bar([i - 0.2 for i in xs], pg_gbs, 0.4, label="poolgrad")
        ax.bar([i + 0.2 for i in xs], peer_gbs, 0.4, label="PyTorch" if op.startswith("max") else "torchvision")
        ax.axhline(bws[max(bws)], color="k", linestyle="--", label=f"copy roof ({bws[max(bws)]:.1f} GB/s)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=20, ha="right")
        ax.set_ylabel("GB/s (bytes moved / time)")
        ax.set_title(f"{op}, {max(bws)} threads")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out_png, dpi=80)


def rerender(out):
    """The report of out/performance.json written again, its figures as they are; the per-call
    section scripts/bench.sh appends (bench/overhead.py) is kept."""
    report = json.loads((out / "performance.json").read_text())
    md = out / "performance.md"
    per_call = md.read_text().partition("\n## per_call")[1:] if md.exists() else ("", "")
    render(report["results"], {int(t): b for t, b in report["bandwidth_gbs"].items()},
           {int(t): p for t, p in report.get("bandwidth_probes_gbs", {}).items()}, md, out / "performance.png",
           report.get("updates", []), report.get("method"))
    if per_call[0]:
        md.write_text(md.read_text() + "".join(per_call))
    print("wrote", md, out / "performance.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs"), help="the folder of performance.json")
    rerender(pathlib.Path(ap.parse_args().out))


if __name__ == "__main__":
    main()
