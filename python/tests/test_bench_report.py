# SPDX-License-Identifier: Apache-2.0
"""bench/compare.py's and bench/report.py's wiring to the operator descriptors: every operator of
python/poolgrad/operators.json is measured (or named here with the reason it is not), and the
report has a section per operator in the descriptors' order, so that a new operator's rows can
neither be missing from the benchmark unnoticed nor be left out of the report."""
import json
import pathlib
import sys

import torch

from poolgrad.operators import BY_API, SPECS

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import compare  # noqa: E402
import report  # noqa: E402

# The APIs the benchmark does not measure, and why.
NOT_MEASURED = {
    # ONNX's RoiAlign: no CPU peer in torch or torchvision, and it samples with the kernels
    # aclnnRoiAlignV2's rows measure (docs/roi-align.md).
    "aclnnRoiAlign",
}


# A tiny row of each workload kind, in workloads.py's tuples: enough for every runner to prepare and
# time each API it measures.
TINY = {
    "maxpool": [("t", (1, 2, 8, 8), 2, 2, 0, False, 1, "float32", False, False),
                ("t", (1, 2, 8, 8), 2, 2, 0, False, 1, "float16", False, True)],
    "adaptive": [("t", (1, 2, 8, 8), (3, 3), "float32")],
    "pool3d": [("t", (1, 2, 4, 8, 8), 2, 2, 0, False, "float32")],
    "adaptive3d": [("t", (1, 2, 4, 8, 8), (2, 3, 3), "float32")],
    "roi": [("t", (1, 2, 16, 16), 4, 2, 1 / 16, "float32")],
    "unpool": [("t", (1, 2, 8, 8), 2, 2, 0, "float32")],
    "unpool3d": [("t", (1, 2, 4, 8, 8), 2, 2, 0, "float32")],
    "roialign": [("t", (1, 2, 16, 16), 4, 2, 1 / 16, 2, True, False, "float32")],
}


def test_every_operator_of_the_descriptors_is_measured(monkeypatch):
    # Each runner on a tiny row, its timing cut to one call: the operators its rows are filed
    # under are those of the APIs it prepared, and together they are every operator of the
    # descriptors but NOT_MEASURED's; every row's outputs equal its peer's (or, for the RoI
    # pooling forward, whose geometry is CANN's, are not compared).
    monkeypatch.setattr(compare, "timeit", lambda fn, reps, warmup=2: (fn(), 1e-6)[1])
    assert set(TINY) == set(compare.RUNNERS)
    results = []
    for kind, rows in TINY.items():
        for r in rows:
            compare.RUNNERS[kind](r, 1, 1, results)
    measured = {r["op"] for r in results}
    assert measured == {s.name for s in SPECS.values() if s.aclnn not in NOT_MEASURED}
    assert NOT_MEASURED <= set(BY_API)
    for r in results:
        assert r["kernel"] and r["poolgrad_ms"] > 0 and r["bytes"] > 0, r
        assert r["max_abs_diff"] <= (1e-2 if r["dtype"] == "float16" else 0) or r["op"] == "roi-pool", r


def test_every_workload_kind_has_its_runner():
    # compare.py runs bench/workloads.txt's rows by their kind: a kind without a runner would fail
    # there only after the rows before it had run.
    import workloads
    assert set(workloads.ROWS) == set(compare.RUNNERS)


def row(op, wid="w", threads=1):
    return dict(op=op, id=wid, threads=threads, dtype="float32", index="int64", kernel="k", poolgrad_ms=1.0,
                peer_ms=2.0, ratio=2.0, gbs=1.0, roof_fraction=0.5, max_abs_diff=0.0)


def test_report_has_a_section_per_operator_in_the_descriptors_order(tmp_path):
    names = [s.name for s in SPECS.values()]
    # Rows in another order than the descriptors', one of an op no descriptor names (an older report's).
    results = [row(names[3]), row("retired_op"), row(names[0]), row(report.LAYERS), row(names[1], threads=2)]
    md = tmp_path / "performance.md"
    report.render(results, {1: 10.0, 2: 20.0}, {1: [10.0], 2: [20.0]}, md, tmp_path / "p.png")
    headings = [line[3:] for line in md.read_text().splitlines() if line.startswith("## ")]
    want = [f"{SPECS[n].name} ({SPECS[n].aclnn})" for n in (names[0], names[1], names[3])]
    assert headings == want + ["layers: forward + backward", "retired_op"]


def test_render_writes_the_report_again_keeping_the_per_call_section(tmp_path):
    results = [row(s.name) for s in SPECS.values()]
    (tmp_path / "performance.json").write_text(json.dumps(dict(bandwidth_gbs={"1": 10.0}, results=results)))
    (tmp_path / "performance.md").write_text("# old\n\n## per_call\n\n| call | us |\n")
    report.rerender(tmp_path)
    text = (tmp_path / "performance.md").read_text()
    assert text.startswith("# Performance") and text.endswith("\n## per_call\n\n| call | us |\n")
    assert text.count("\n## ") == len(SPECS) + 1


def test_gather_lines_counts_each_planes_lines_holding_a_target():
    # Two planes of 40 float32 (three 64-byte lines each, the last one partial): the first plane's
    # targets lie in lines 0 and 2, the second's in lines 0, 1 and 2; a repeated line counts once.
    idx = torch.tensor([[[0, 15, 32, 39]], [[1, 16, 17, 35]]]).view(1, 2, 4)
    assert compare.gather_lines(idx, 40, 4) == 2 + 3
    # float16: 32 elements a line, so a plane of 40 has two lines.
    assert compare.gather_lines(idx, 40, 2) == 2 + 2
