# SPDX-License-Identifier: Apache-2.0
"""Golden suites end to end: a case list over every operator -> goldens -> a perturbed copy as the
"device" -> compare -> report; forward-then-backward cascades; the determinism check; progress."""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import poolgrad
from poolgrad import suite
from poolgrad.progress import Progress


def run(*args, cwd=None):
    exe = os.path.join(os.path.dirname(sys.executable), "poolgrad")
    cmd = [exe, *args] if os.access(exe, os.X_OK) else [sys.executable, "-m", "poolgrad", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)


def _case(rng, i, op):
    """A random valid case of `op` (attributes drawn per operator family)."""
    c = {"name": f"{op}-{i:03d}", "op": op, "seed": str(1000 + i),
         "generator": rng.choice(["normal", "uniform", "ties", "nan", "inf"])}
    two_d = "3d" not in op
    if op.startswith("roi"):
        c.update(shape=f"{rng.integers(1, 3)},{rng.integers(1, 6)},{rng.integers(4, 14)},{rng.integers(4, 14)}",
                 dtype=rng.choice(["float32", "float16"]), output_size=f"{rng.integers(1, 4)},{rng.integers(1, 4)}",
                 spatial_scale=rng.choice(["1", "0.5", "0.25"]), rois=str(rng.integers(1, 7)),
                 generator=rng.choice(["normal", "uniform", "ties"]))
        if op.startswith("roi-align"):
            c.update(sampling_ratio=str(rng.integers(0, 4)), aligned=rng.choice(["true", "false"]),
                     mode=rng.choice(["avg", "max"]))
            if op == "roi-align-backward":  # CANN's backward takes FLOAT only
                c["dtype"] = "float32"
        return c
    n, ch = rng.integers(1, 3), rng.integers(1, 5)
    spatial = [int(rng.integers(4, 10)) for _ in range(2 if two_d else 3)]
    c["shape"] = ",".join(map(str, [n, ch, *spatial]))
    c["dtype"] = rng.choice(["float32", "float16", "bfloat16"])
    if "unpool" in op:  # no bfloat16 in CANN's list; the 3-D backward takes int64 indices
        c["dtype"] = rng.choice(["float32", "float16"])
        c["output_size"] = ",".join(str(s + rng.integers(0, 3)) for s in spatial)
        c["index_dtype"] = "int64" if "3d" in op else rng.choice(["int32", "int64"])
        return c
    if "adaptive" in op:
        c["output_size"] = ",".join(str(rng.integers(1, s + 1)) for s in spatial)
        if "3d" in op:
            c["index_dtype"] = rng.choice(["int32", "int64"])
        return c
    k = int(rng.integers(1, 4))
    c.update(kernel=str(k), stride=str(rng.integers(1, 3)), padding=str(rng.integers(0, k // 2 + 1)),
             ceil_mode=rng.choice(["true", "false"]))
    if "mask" not in op:
        c["index_dtype"] = rng.choice(["int32", "int64"]) if "3d" in op or rng.random() < 0.5 else "int64"
        if two_d and "mask" not in op and min(spatial) > 2 * (k - 1) and rng.random() < 0.3:
            c["dilation"] = "2"
    if "3d" in op:
        c["index_dtype"] = "int32" if rng.random() < 0.5 else "int64"
    return c


def _cases(count=108, seed=7):
    rng = np.random.default_rng(seed)
    ops = list(suite.OPERATORS)
    return [_case(rng, i, ops[i % len(ops)]) for i in range(count)]


def _write_csv(path, cases):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=suite.CASE_COLUMNS)
        w.writeheader()
        for c in cases:
            w.writerow(c)


def _copy_device(golden_dir, device_dir, manifest):
    for entry in manifest["cases"]:
        os.makedirs(os.path.join(device_dir, entry["case"]["name"]), exist_ok=True)
        for name, meta in entry["outputs"].items():
            shutil.copy(os.path.join(golden_dir, meta["file"]), os.path.join(device_dir, entry["case"]["name"]))


def _load(path):
    return suite.load_array(path)


def _save(path, a):
    np.save(path, a)


def test_suite_of_108_cases_reports_exactly_the_perturbed_ones(tmp_path):
    cases = _cases()
    assert len(cases) >= 100 and {c["op"] for c in cases} == set(suite.OPERATORS)
    _write_csv(tmp_path / "cases.csv", cases)
    r = run("golden", "--suite", str(tmp_path / "cases.csv"), "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # piped: no progress bar
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert [e["case"]["name"] for e in manifest["cases"]] == [c["name"] for c in cases]
    _copy_device(tmp_path / "g", tmp_path / "d", manifest)
    # Perturb some cases beyond their standard and some within it.
    rng = np.random.default_rng(1)
    failing, harmless = set(), set()
    for i, entry in enumerate(manifest["cases"]):
        name = entry["case"]["name"]
        outs = entry["outputs"]
        out_name = next(iter(outs))
        path = tmp_path / "d" / name / os.path.basename(outs[out_name]["file"])
        a = _load(str(path))
        if a.size == 0 or i % 9 not in (0, 4, 5):
            continue
        finite = np.isfinite(a.astype(np.float64)) if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16 else None
        if i % 9 == 0 and finite is not None and finite.any():
            # beyond the error cap on one finite element: fails the mixed standard
            flat = a.reshape(-1).copy()
            j = int(np.flatnonzero(finite.reshape(-1))[0])
            flat[j] = (flat[j].astype(np.float32) + 8).astype(a.dtype)
            _save(str(path), flat.reshape(a.shape))
            failing.add(name)
        elif i % 9 == 4:
            # an integer output (indices / argmax / mask) changed by one: fails binary
            idx_name = [n for n in outs if outs[n]["dtype"].startswith("int")]
            if not idx_name:
                continue
            p = tmp_path / "d" / name / os.path.basename(outs[idx_name[0]]["file"])
            b = _load(str(p))
            if b.size == 0:
                continue
            b.reshape(-1)[rng.integers(0, b.size)] += 1
            _save(str(p), b)
            failing.add(name)
        elif i % 9 == 5 and finite is not None and finite.any():
            # one ulp-sized change on one element: within every dtype's tolerance
            flat = a.reshape(-1).copy()
            j = int(np.flatnonzero(finite.reshape(-1))[0])
            flat[j] = (flat[j].astype(np.float64) * (1 + 2**-12)).astype(a.dtype)
            _save(str(path), flat.reshape(a.shape))
            harmless.add(name)
    # and one case whose device output is missing
    gone = manifest["cases"][1]["case"]["name"]
    shutil.rmtree(tmp_path / "d" / gone)
    failing.add(gone)
    assert len(failing) >= 10 and harmless
    r = run("compare", "--suite", str(tmp_path / "d"), str(tmp_path / "g"), "--report", str(tmp_path / "rep"))
    assert r.returncode == 1, r.stdout + r.stderr
    # the CSV report: one row per output, the same verdicts as the JSON one
    with open(tmp_path / "rep.csv", newline="") as f:
        csv_rows = list(csv.DictReader(f))
    rep_json = json.loads((tmp_path / "rep.json").read_text())
    assert len(csv_rows) == sum(len(c["outputs"]) for c in rep_json["cases"])
    assert {r["case"] for r in csv_rows if r["verdict"] == "FAIL"} == set(rep_json["summary"]["failed_cases"])
    report = json.loads((tmp_path / "rep.json").read_text())
    assert set(report["summary"]["failed_cases"]) == failing
    assert report["summary"]["cases"] == len(cases)
    assert report["summary"]["passed"] == len(cases) - len(failing)
    for c in report["cases"]:
        for o in c["outputs"].values():
            if o.get("standard"):
                assert o["standard"] == ("binary" if o["dtype"].startswith("int") else "mixed")
    md = (tmp_path / "rep.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| ") and "case | op" not in line]
    fail_rows = [i for i, line in enumerate(rows) if "**FAIL**" in line]
    assert fail_rows == list(range(len(fail_rows)))  # failures first
    assert {rows[i].split(" | ")[0][2:] for i in fail_rows} == failing
    assert f"{len(cases) - len(failing)} of {len(cases)} cases passed" in md
    for name in failing:
        assert f"FAIL {name} " in r.stdout
    # The unperturbed goldens judged against themselves all pass.
    _copy_device(tmp_path / "g", tmp_path / "same", manifest)
    # repeated device runs: identical runs pass; a run with one bit changed is named with the position
    r = run("repeatability", str(tmp_path / "g"), str(tmp_path / "same"), str(tmp_path / "same"))
    assert r.returncode == 0 and f"{len(manifest['cases'])} of {len(manifest['cases'])} cases bitwise" in r.stdout
    shutil.copytree(tmp_path / "same", tmp_path / "again")
    entry = manifest["cases"][0]
    out_name, meta = next(iter(entry["outputs"].items()))
    f = next((tmp_path / "again" / entry["case"]["name"]).glob(out_name + ".*"))
    a = suite.load_array(str(f), meta["dtype"], meta["shape"]).copy()
    a.reshape(-1).view(np.uint8)[-1] ^= 1
    suite.save_array(str(f.with_suffix("")), a, f.suffix[1:])
    r = run("repeatability", str(tmp_path / "g"), str(tmp_path / "same"), str(tmp_path / "again"))
    assert r.returncode == 1 and f"FAIL {entry['case']['name']}" in r.stdout and "differs from" in r.stdout, r.stdout
    assert str([int(i) for i in np.unravel_index(a.size - 1, a.shape)]) in r.stdout, r.stdout
    # the old order (golden first) still works, with a deprecation message
    r = run("compare", "--suite", str(tmp_path / "g"), str(tmp_path / "same"))
    assert r.returncode == 0 and "deprecated" in r.stderr, r.stdout + r.stderr
    r = run("compare", "--suite", str(tmp_path / "same"), str(tmp_path / "g"))
    assert "deprecated" not in r.stderr
    assert r.returncode == 0 and (tmp_path / "same" / "poolgrad-report.md").exists(), r.stdout


def test_backward_cases_cascade_from_poolgrads_forward(tmp_path):
    cases = [suite.normalize_case(c, i) for i, c in enumerate([
        {"op": "max-pool2d-backward", "shape": "2,3,9,9", "kernel": "3", "stride": "2", "padding": "1",
         "dtype": "float16", "generator": "ties"},
        {"op": "max-pool2d-mask-backward", "shape": "1,3,8,8", "kernel": "2"},
        {"op": "adaptive-max-pool3d-backward", "shape": "1,2,5,6,7", "output_size": "2,3,3"},
        {"op": "roi-pool-backward", "shape": "2,4,10,12", "output_size": "3", "spatial_scale": "0.5", "rois": "6"},
    ])]
    suite.write_goldens(cases, str(tmp_path / "g"))
    g = tmp_path / "g"
    x = np.load(g / "case0000/inputs/x.npy")
    _, idx = poolgrad.max_pool2d_with_indices(x, 3, 2, 1)
    np.testing.assert_array_equal(np.load(g / "case0000/inputs/indices.npy"), idx)
    gy = np.load(g / "case0000/inputs/grad_output.npy")
    assert gy.shape == idx.shape and gy.dtype == np.float16
    np.testing.assert_array_equal(np.load(g / "case0000/golden/grad_input.npy"),
                                  poolgrad.max_pool2d_with_indices_backward(gy, x, idx, 3, 2, 1))
    poolgrad.set_product("Ascend910B")
    try:
        _, mask = poolgrad.max_pool2d_with_mask(np.load(g / "case0001/inputs/x.npy"), 2)
    finally:
        poolgrad.set_product("Ascend950")
    np.testing.assert_array_equal(np.load(g / "case0001/inputs/mask.npy"), mask)
    _, idx3 = poolgrad.adaptive_max_pool3d(np.load(g / "case0002/inputs/x.npy"), (2, 3, 3))
    np.testing.assert_array_equal(np.load(g / "case0002/inputs/indices.npy"), idx3)
    # roi-pool-backward: the forward ran on x (not written: the backward does not take it)
    rois = np.load(g / "case0003/inputs/rois.npy")
    assert rois.shape == (6, 5) and set(os.listdir(g / "case0003/inputs")) == {
        "grad_output.npy", "rois.npy", "argmax.npy"}
    x = suite.generate([2, 4, 10, 12], "float32", "normal", np.random.default_rng(3))
    _, am = poolgrad.roi_pool_with_argmax(x, rois, 3, 0.5)
    np.testing.assert_array_equal(np.load(g / "case0003/inputs/argmax.npy"), am)
    # An indices column naming a file replaces the forward's.
    mine = np.zeros_like(idx)
    np.save(tmp_path / "mine.npy", mine)
    c = suite.normalize_case({"op": "max-pool2d-backward", "shape": "2,3,9,9", "kernel": "3", "stride": "2",
                              "padding": "1", "indices": str(tmp_path / "mine.npy")}, 0)
    np.testing.assert_array_equal(suite.make_inputs(c)["indices"], mine)


def test_json_case_lists_bin_goldens_and_the_dual_standard(tmp_path):
    cases = [{"name": "a", "op": "max-pool2d", "shape": [1, 2, 8, 8], "kernel": [2, 2], "dtype": "bfloat16"},
             {"name": "b", "op": "adaptive-max-pool2d", "shape": "1,2,9,9", "output_size": [3, 3]}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    r = run("golden", "--suite", str(tmp_path / "cases.json"), "--out-dir", str(tmp_path / "g"),
            "--out-format", "bin")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["cases"][0]["outputs"]["out"] == {"file": "a/golden/out.bin", "dtype": "bfloat16",
                                                      "shape": [1, 2, 4, 4]}
    out = suite.load_array(str(tmp_path / "g" / "a/golden/out.bin"), "bfloat16", [1, 2, 4, 4])
    x = suite.load_array(str(tmp_path / "g" / "a/inputs/x.bin"), "bfloat16", [1, 2, 8, 8])
    np.testing.assert_array_equal(out, poolgrad.max_pool2d_with_indices(x, 2)[0])
    # The device as .bin, the third party as .npy; dual judges the floating outputs.
    _copy_device(tmp_path / "g", tmp_path / "d", manifest)
    for e in manifest["cases"]:
        d = tmp_path / "tp" / e["case"]["name"]
        d.mkdir(parents=True)
        for name, meta in e["outputs"].items():
            np.save(d / f"{name}.npy", suite.load_array(str(tmp_path / "g" / meta["file"]), meta["dtype"], meta["shape"]))
    r = run("compare", "--suite", str(tmp_path / "d"), str(tmp_path / "g"), "--standard", "dual",
            "--third-party", str(tmp_path / "tp"))
    assert r.returncode == 0, r.stdout + r.stderr
    rep = json.loads((tmp_path / "d" / "poolgrad-report.json").read_text())
    assert {o["standard"] for c in rep["cases"] for o in c["outputs"].values()} == {"dual", "binary"}
    r = run("compare", "--suite", str(tmp_path / "d"), str(tmp_path / "g"), "--standard", "dual")
    assert r.returncode == 1 and "--third-party" in r.stdout


@pytest.mark.parametrize("row,message", [
    ({"op": "max-pool2d", "shape": "1,1,4,4"}, "needs the kernel column"),
    ({"op": "max-pool2d-backward", "shape": "1,1,4,4"}, "needs the kernel column"),
    ({"op": "max-pool5d", "shape": "1,1,4,4"}, "op must be one of"),
    ({"op": "max-pool2d", "kernel": "2"}, "needs a shape"),
    ({"op": "max-pool2d", "shape": "1,1,4,4", "kernel": "2", "dtype": "float64"}, "dtype must be one of"),
    ({"op": "max-pool2d", "shape": "1,1,4,4", "kernel": "two"}, "kernel must be integers"),
    ({"op": "max-pool2d", "shape": "1,1,4,4", "kernel": "2", "generator": "zipf"}, "generator must be one of"),
    ({"op": "max-pool2d", "shape": "1,1,4,4", "kernel": "2", "colour": "red"}, "unknown columns"),
    ({"op": "adaptive-max-pool2d-backward", "shape": "1,1,4,4"}, "needs the output_size column"),
])
def test_bad_case_lists_are_refused_with_the_column(tmp_path, row, message):
    path = tmp_path / "cases.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        w.writeheader()
        w.writerow(row)
    r = run("golden", "--suite", str(path), "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "g").exists()  # nothing written
    # a case the library refuses fails with the library's message; the manifest is still written
    (tmp_path / "bad.csv").write_text("op,shape,kernel\nmax-pool2d,\"1,1,4,4\",9\n")
    r = run("golden", "--suite", str(tmp_path / "bad.csv"), "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 1 and "161002" in r.stdout, r.stdout + r.stderr
    assert json.loads((tmp_path / "g" / "manifest.json").read_text())["failed"][0]["name"] == "case0000"


def test_suites_validate_every_row_first_and_go_on_past_a_failing_case(tmp_path, monkeypatch):
    # every bad row named (row number and case), before anything is written
    (tmp_path / "rows.csv").write_text("name,op,shape,kernel\nbad1,max-pool2d,\"1,1,4,4\",two\n"
                                       "ok,max-pool2d,\"1,1,4,4\",2\nbad3,max-pool9d,\"1,1,4,4\",2\n")
    r = run("golden", "--suite", str(tmp_path / "rows.csv"), "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 2 and "2 problem(s)" in r.stderr, r.stderr
    assert "row 1: case bad1" in r.stderr and "row 3: case bad3" in r.stderr, r.stderr
    assert not (tmp_path / "g").exists()
    # a case that fails when run: the others are written, the manifest says which failed
    (tmp_path / "run.csv").write_text("name,op,shape,kernel,padding\nfirst,max-pool2d,\"1,1,4,4\",2,0\n"
                                      "refused,max-pool2d,\"1,1,4,4\",2,2\nlast,max-pool2d,\"1,1,6,6\",3,1\n")
    r = run("golden", "--suite", str(tmp_path / "run.csv"), "--out-dir", str(tmp_path / "g"))
    assert r.returncode == 1 and "1 of 3 cases failed: refused" in r.stdout, r.stdout + r.stderr
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert [c["case"]["name"] for c in manifest["cases"]] == ["first", "last"]
    assert [f["name"] for f in manifest["failed"]] == ["refused"] and "padding" in manifest["failed"][0]["error"]
    # a missing optional dependency is named up front, with the cases that need it
    (tmp_path / "bf.csv").write_text("name,op,shape,kernel,dtype\nb,max-pool2d,\"1,1,4,4\",2,bfloat16\n")
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(suite.CaseError, match=r"cases b are bfloat16, which needs the ml_dtypes package"):
        suite.read_cases(str(tmp_path / "bf.csv"))


def test_determinism_check_passes_every_operator_and_catches_a_nondeterministic_stand_in(tmp_path):
    cases = _cases(24, seed=3)
    _write_csv(tmp_path / "cases.csv", cases)
    r = run("check-determinism", str(tmp_path / "cases.csv"), "--runs", "2", "--threads", "1,2,3",
            "--report", str(tmp_path / "det.json"))
    assert r.returncode == 0, r.stdout + r.stderr
    results = json.loads((tmp_path / "det.json").read_text())
    assert len(results) == 24 and all(x["passed"] and x["runs"] == 6 for x in results)
    assert {x["op"] for x in results} == set(suite.OPERATORS)
    assert "24 of 24 cases bitwise identical" in r.stdout
    normalized = [suite.normalize_case(c, i) for i, c in enumerate(cases[:4])]

    def by_threads(case, inputs):
        # a float32 sum split into as many partial sums as threads: the order changes the bits
        out = suite.run_case(case, inputs)
        first = np.asarray(next(iter(out.values()))).astype(np.float32).reshape(-1)
        parts = np.array_split(np.nan_to_num(first) * np.float32(1.1), poolgrad.get_num_threads())
        total = np.float32(0)
        for p in parts:
            total = np.float32(total + np.float32(p.sum(dtype=np.float32)) / np.float32(3))
        return {**out, "sum": np.array([total], np.float32)}

    res = suite.check_determinism(normalized, runs=2, threads=(1, 2, 3), run=by_threads)
    assert not all(x["passed"] for x in res)
    counter = iter(range(10**6))

    def by_run(case, inputs):
        return {**suite.run_case(case, inputs), "noise": np.array([next(counter)])}

    res = suite.check_determinism(normalized, runs=2, threads=(1,), run=by_run)
    assert not any(x["passed"] for x in res)
    assert all(x["first_difference"] == "threads=1 run=1 differs from threads=1 run=0" for x in res)
    assert all(x["distinct_outputs"] == 2 for x in res)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_and_silent_when_piped():
    ticks = iter([0.0, 2.0, 4.0, 6.0, 8.0])
    tty = _Tty()
    p = Progress(4, "golden", tty, clock=lambda: next(ticks))
    p.step("case-a")
    assert "\rgolden [######..................] 1/4 ETA 0:06 case-a" in tty.getvalue()
    p.step("case-b")
    p.step("case-c")
    p.step("case-d")
    assert "4/4" in tty.getvalue() and tty.getvalue().endswith("golden: 4 done in 0:08" + " " * 60 + "\n")
    piped = io.StringIO()
    q = Progress(3, "golden", piped)
    for _ in range(3):
        q.step("x")
    assert piped.getvalue() == ""
