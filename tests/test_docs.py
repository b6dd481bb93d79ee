"""The generated documentation matches the op table it is generated from."""

import re
from pathlib import Path

import pytest

from regsim._src.spec import markdown

ROOT = Path(__file__).resolve().parents[1]


def test_ops_md_is_generated_from_the_table() -> None:
    assert (ROOT / "docs" / "ops.md").read_text(encoding="utf-8") == markdown(), (
        "docs/ops.md is stale: regenerate it from the op registry (command in its header)"
    )


def test_readme_tour_runs_and_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", readme, re.S)
    claimed = re.search(r"print\(dst0\.numpy\(\)\[:4\]\)\s+# \[(.*?)\]", code)
    assert claimed is not None, "the tour's print line lost its comment"
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert re.findall(r"\d+", printed) == claimed.group(1).split()
