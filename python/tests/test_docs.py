# SPDX-License-Identifier: Apache-2.0
"""The code blocks of the docs run as written: docs/pytorch.md's Python, docs/golden.md's worked example."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
BLOCKS = re.findall(r"```python\n(.*?)```", (DOCS / "pytorch.md").read_text(), re.S)


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_block_runs(i):
    assert len(BLOCKS) == 4
    exec(compile(BLOCKS[i], f"pytorch.md[{i}]", "exec"), {})


def test_golden_worked_example(tmp_path):
    blocks = re.findall(r"```sh\n(.*?)```", (DOCS / "golden.md").read_text(), re.S)
    assert len(blocks) == 2
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    r = subprocess.run(["bash", "-c", "set -e\n" + "\n".join(blocks)], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "3 of 4 cases passed" in r.stdout and "compare exited 1" in r.stdout
    assert "FAIL stem-bwd" in r.stdout and "beyond the error cap" in r.stdout
    assert "4 of 4 cases bitwise identical" in r.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["summary"]["failed_cases"] == ["stem-bwd"]
    rows = [line for line in (tmp_path / "report.md").read_text().splitlines() if line.startswith("| stem")]
    assert rows[0].startswith("| stem-bwd |") and "**FAIL**" in rows[0]
