# SPDX-License-Identifier: Apache-2.0
"""bench/compare.py's wiring to the operator descriptors: every operator of
python/poolgrad/operators.json is measured (or named here with the reason it is not), and the
report has a section per operator in the descriptors' order, so that a new operator's rows can
neither be missing from the benchmark unnoticed nor be left out of the report."""
import json
import pathlib
import re
import sys

import torch

from poolgrad.operators import BY_API, SPECS

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import compare  # noqa: E402

# The APIs the benchmark does not measure, and why.
NOT_MEASURED = {
    # ONNX's RoiAlign: no CPU peer in torch or torchvision, and it samples with the kernels
    # aclnnRoiAlignV2's rows measure (docs/roi-align.md).
    "aclnnRoiAlign",
}


def test_every_operator_of_the_descriptors_is_measured():
    prepared = set(re.findall(r'prepare\("(aclnn\w+)"', (ROOT / "bench" / "compare.py").read_text()))
    assert prepared == {s.aclnn for s in SPECS.values()} - NOT_MEASURED
    assert NOT_MEASURED <= set(BY_API)


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
    results = [row(names[3]), row("retired_op"), row(names[0]), row(compare.LAYERS), row(names[1], threads=2)]
    md = tmp_path / "performance.md"
    compare.render(results, {1: 10.0, 2: 20.0}, {1: [10.0], 2: [20.0]}, md, tmp_path / "p.png")
    headings = [line[3:] for line in md.read_text().splitlines() if line.startswith("## ")]
    want = [f"{SPECS[n].name} ({SPECS[n].aclnn})" for n in (names[0], names[1], names[3])]
    assert headings == want + ["layers: forward + backward", "retired_op"]


def test_render_writes_the_report_again_keeping_the_per_call_section(tmp_path):
    results = [row(s.name) for s in SPECS.values()]
    (tmp_path / "performance.json").write_text(json.dumps(dict(bandwidth_gbs={"1": 10.0}, results=results)))
    (tmp_path / "performance.md").write_text("# old\n\n## per_call\n\n| call | us |\n")
    compare.rerender(tmp_path)
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
