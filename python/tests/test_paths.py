# SPDX-License-Identifier: Apache-2.0
"""The golden tools confine every path they write or follow to the directory the user gave, and
read only regular files (issue 36: a case named ../escaped/evil wrote outside --out-dir; a FIFO
blocked `compare` for ever; a bad magic was called pickled data; a dtype mismatch passed unsaid)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from poolgrad import suite


def run(*args, cwd=None, timeout=60):
    exe = os.path.join(os.path.dirname(sys.executable), "poolgrad")
    cmd = [exe, *args] if os.access(exe, os.X_OK) else [sys.executable, "-m", "poolgrad", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=timeout)


HEADER = "name,op,shape,kernel,stride\n"


def _cases(tmp_path, *names, extra=""):
    p = tmp_path / "cases.csv"
    p.write_text(HEADER.rstrip("\n") + extra + "\n" +
                 "".join(f"{n},max-pool2d,1,1,4,4,2,2\n".replace(",1,1,4,4,", ',"1,1,4,4",')
                         for n in names))
    return p


@pytest.mark.parametrize("name", ["../escaped/evil", "a/b", "..", ".", "/tmp/abs", "x\\y"])
def test_a_case_name_must_be_one_safe_component(tmp_path, name):
    cases = _cases(tmp_path, "ok", name)
    out = tmp_path / "out"
    r = run("golden", "--suite", str(cases), "--out-dir", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "row 2" in r.stderr and "one path component" in r.stderr, r.stderr
    assert not (tmp_path / "escaped").exists()
    assert not os.path.exists("/tmp/abs/inputs")


def test_a_nul_in_a_case_name_is_refused(tmp_path):
    with pytest.raises(suite.CaseError, match="one path component"):
        suite.check_name("a\0b", "row 1: case")


def test_a_symlink_inside_out_dir_that_leads_out_is_refused(tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "c1").symlink_to(elsewhere)
    r = run("golden", "--suite", str(_cases(tmp_path, "c1")), "--out-dir", str(out))
    assert r.returncode == 2 and "outside" in r.stderr, r.stderr
    assert list(elsewhere.iterdir()) == []
    # A symlinked file name as well.
    (out / "c1").unlink()
    (out / "c1" / "inputs").mkdir(parents=True)
    target = elsewhere / "victim.npy"
    target.write_bytes(b"keep")
    (out / "c1" / "inputs" / "x.npy").symlink_to(target)
    r = run("golden", "--suite", str(_cases(tmp_path, "c1")), "--out-dir", str(out))
    assert r.returncode == 2 and "outside" in r.stderr, r.stderr
    assert target.read_bytes() == b"keep"


def test_the_indices_column_reads_only_beside_the_case_list(tmp_path):
    outside = tmp_path / "outside.npy"
    np.save(outside, np.zeros((1, 1, 2, 2), np.int64))
    lists = tmp_path / "lists"
    lists.mkdir()
    p = lists / "cases.csv"
    p.write_text('name,op,shape,kernel,stride,indices\nb,max-pool2d-backward,"1,1,4,4",2,2,../outside.npy\n')
    r = run("golden", "--suite", str(p), "--out-dir", str(tmp_path / "out"))
    assert r.returncode == 2 and "outside" in r.stderr, r.stderr
    # A file beside the list is fine (relative to the list, not to the working directory).
    np.save(lists / "idx.npy", np.zeros((1, 1, 2, 2), np.int64))
    p.write_text('name,op,shape,kernel,stride,indices\nb,max-pool2d-backward,"1,1,4,4",2,2,idx.npy\n')
    r = run("golden", "--suite", str(p), "--out-dir", str(tmp_path / "out"), cwd="/")
    assert r.returncode == 0, r.stderr


def test_compare_suite_follows_no_manifest_path_out_of_its_folders(tmp_path):
    gold, dev = tmp_path / "gold", tmp_path / "dev"
    assert run("golden", "--suite", str(_cases(tmp_path, "c1")), "--out-dir", str(gold)).returncode == 0
    manifest = json.loads((gold / "manifest.json").read_text())
    secret = tmp_path / "secret.npy"
    np.save(secret, np.zeros((1, 1, 2, 2), np.float32))
    manifest["cases"][0]["outputs"]["out"]["file"] = "../secret.npy"
    (gold / "manifest.json").write_text(json.dumps(manifest))
    dev.mkdir()
    r = run("compare", "--suite", str(dev), str(gold))
    assert r.returncode == 2 and "outside" in r.stderr, r.stdout + r.stderr
    manifest["cases"][0]["outputs"]["out"]["file"] = "c1/golden/out.npy"
    manifest["cases"][0]["case"]["name"] = "../c1"
    (gold / "manifest.json").write_text(json.dumps(manifest))
    r = run("compare", "--suite", str(dev), str(gold))
    assert r.returncode == 2 and "one path component" in r.stderr, r.stdout + r.stderr


def test_compare_reads_only_regular_files(tmp_path):
    good = tmp_path / "good.npy"
    np.save(good, np.zeros(4, np.float32))
    fifo = tmp_path / "fifo.npy"
    os.mkfifo(fifo)
    for bad in (str(fifo), str(tmp_path), "/dev/zero:float32:4"):
        r = run("compare", bad, str(good), timeout=20)  # used to block for ever on the FIFO
        assert r.returncode == 2, (bad, r.stdout, r.stderr)
        assert "not a regular file" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_bad_magic_is_named_as_such(tmp_path):
    bad, good = tmp_path / "bad.npy", tmp_path / "good.npy"
    bad.write_bytes(b"PK\x03\x04 not numpy at all")
    np.save(good, np.zeros(4, np.float32))
    r = run("compare", str(bad), str(good))
    assert r.returncode == 2 and "not a .npy file (bad magic)" in r.stderr, r.stderr
    assert "pickle" not in r.stderr


def test_a_dtype_mismatch_is_warned_and_noted_in_the_report(tmp_path):
    dev, gold = tmp_path / "dev.npy", tmp_path / "gold.npy"
    np.save(gold, np.ones(8, np.float32))
    np.save(dev, np.ones(8, np.float64))
    r = run("compare", str(dev), str(gold))
    assert "warning: the device output is float64 but the golden is float32" in r.stdout, r.stdout
    np.save(dev, np.ones(8, np.float32))
    assert "warning" not in run("compare", str(dev), str(gold)).stdout
    # The suite: a note on the output in the JSON report, and the warning line.
    g, d = tmp_path / "g", tmp_path / "d"
    assert run("golden", "--suite", str(_cases(tmp_path, "c1")), "--out-dir", str(g)).returncode == 0
    (d / "c1").mkdir(parents=True)
    np.save(d / "c1" / "out.npy", np.load(g / "c1" / "golden" / "out.npy").astype(np.float64))
    np.save(d / "c1" / "indices.npy", np.load(g / "c1" / "golden" / "indices.npy"))
    r = run("compare", "--suite", str(d), str(g))
    assert "warning: c1/out: the device output is float64" in r.stdout, r.stdout
    report = json.loads((d / "poolgrad-report.json").read_text())
    outs = report["cases"][0]["outputs"] if "cases" in report else report["results"][0]["outputs"]
    assert "float64" in outs["out"]["warning"]
