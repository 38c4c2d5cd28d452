# SPDX-License-Identifier: Apache-2.0
"""`poolgrad compare --plot`: the error heatmap and relative-error histogram (poolgrad/plots.py),
for one output and for a suite, and matplotlib named up front when it is missing."""
import json
import os
import subprocess
import sys

import numpy as np

from poolgrad import plots, suite

PNG = b"\x89PNG\r\n\x1a\n"


def cli(*args, cwd=None, block_matplotlib=False):
    pre = "import sys; sys.modules['matplotlib'] = None; " if block_matplotlib else ""
    code = pre + "from poolgrad.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", "import sys; " + code, *args], capture_output=True, text=True,
                          cwd=cwd)


def test_plane_grid_holds_each_planes_largest_error():
    err = np.zeros((2, 3, 4, 5))
    err[1, 2, 3, 4] = 7.0
    err[0, 1, 0, 0] = 2.0
    grid = plots.plane_grid(err, np.max)
    expected = np.zeros((2, 3))
    expected[1, 2], expected[0, 1] = 7.0, 2.0
    np.testing.assert_array_equal(grid, expected)
    np.testing.assert_array_equal(plots.plane_grid(np.arange(6.0).reshape(2, 3), np.max), np.arange(6.0).reshape(2, 3))
    assert plots.plane_grid(np.arange(4.0), np.max).shape == (1, 4)
    counts = plots.plane_grid(np.ones((2, 2, 3, 1, 2)), np.sum)  # 3-D planes: 3*1*2 elements each
    np.testing.assert_array_equal(counts, np.full((2, 2), 6.0))


def test_single_compare_writes_a_heatmap_and_a_histogram(tmp_path):
    rng = np.random.default_rng(3)
    g = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    a = g.copy()
    a[1, 2, 3, 4] += 0.5
    np.save(tmp_path / "npu_out.npy", a)
    np.save(tmp_path / "golden.npy", g)
    out = tmp_path / "pics"
    r = cli("compare", str(tmp_path / "npu_out.npy"), str(tmp_path / "golden.npy"), "--plot", str(out), "--json")
    v = json.loads(r.stdout)
    assert r.returncode == 1 and v["plots"] == [str(out / "npu_out-heatmap.png"), str(out / "npu_out-hist.png")]
    for p in v["plots"]:
        assert open(p, "rb").read(8) == PNG
    assert sorted(os.listdir(out)) == ["npu_out-heatmap.png", "npu_out-hist.png"]  # nothing else
    # the text output names them; the default folder is the current one
    r = cli("compare", str(tmp_path / "npu_out.npy"), str(tmp_path / "golden.npy"), "--plot", cwd=tmp_path)
    assert "plots: ./npu_out-heatmap.png, ./npu_out-hist.png" in r.stdout
    assert (tmp_path / "npu_out-heatmap.png").exists()


def test_integer_outputs_get_the_heatmap_only(tmp_path):
    g = np.arange(2 * 2 * 3 * 3, dtype=np.int64).reshape(2, 2, 3, 3)
    a = g.copy()
    a[0, 1, 2, 2] = 0
    np.save(tmp_path / "idx.npy", a)
    np.save(tmp_path / "g.npy", g)
    r = cli("compare", str(tmp_path / "idx.npy"), str(tmp_path / "g.npy"), "--plot", str(tmp_path / "p"), "--json")
    assert json.loads(r.stdout)["plots"] == [str(tmp_path / "p" / "idx-heatmap.png")]


def test_missing_matplotlib_is_named_before_anything_is_written(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(4, np.float32))
    r = cli("compare", str(tmp_path / "a.npy"), str(tmp_path / "a.npy"), "--plot", str(tmp_path / "p"),
            block_matplotlib=True)
    assert r.returncode == 2 and "--plot needs matplotlib" in r.stderr and r.stdout == ""
    assert not (tmp_path / "p").exists()
    # without --plot matplotlib is not needed
    r = cli("compare", str(tmp_path / "a.npy"), str(tmp_path / "a.npy"), block_matplotlib=True)
    assert r.returncode == 0 and "PASS" in r.stdout


def test_suite_compare_plots_every_output_and_the_report_links_them(tmp_path):
    cases = tmp_path / "cases.csv"
    cases.write_text("name,op,shape,dtype,kernel,stride,seed\n"
                     "mp a,max-pool2d,\"1,2,6,6\",float32,2,2,1\n"
                     "mp-b,max-pool2d,\"2,1,4,4\",float16,2,2,2\n")
    assert cli("golden", "--suite", str(cases), "--out-dir", str(tmp_path / "g")).returncode == 0
    manifest = suite.read_manifest(str(tmp_path / "g"))
    for entry in manifest["cases"]:
        d = tmp_path / "d" / entry["case"]["name"]
        d.mkdir(parents=True)
        for name, meta in entry["outputs"].items():
            arr = suite.load_array(str(tmp_path / "g" / meta["file"]))
            np.save(d / f"{name}.npy", arr)
    r = cli("compare", "--suite", str(tmp_path / "d"), str(tmp_path / "g"), "--report", str(tmp_path / "rep"),
            "--plot")
    assert r.returncode == 0, r.stdout + r.stderr
    pics = sorted(os.listdir(tmp_path / "rep-plots"))
    names = [e["case"]["name"] for e in manifest["cases"]]
    # the case name's space becomes "_": every file stays in the plot folder
    assert pics == sorted(f"{n.replace(' ', '_')}-{o}-{kind}.png" for n in names for o, kind in
                          [("out", "heatmap"), ("out", "hist"), ("indices", "heatmap")])
    md = (tmp_path / "rep.md").read_text()
    assert "## Plots" in md and "(rep-plots/mp-b-out-hist.png)" in md and "(rep-plots/mp_a-indices-heatmap.png)" in md
