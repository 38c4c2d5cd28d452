"""The Python code blocks of docs/pytorch.md run as written."""
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "pytorch.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_block_runs(i):
    assert len(BLOCKS) == 2
    exec(compile(BLOCKS[i], f"{DOC.name}[{i}]", "exec"), {})
