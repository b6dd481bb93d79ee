"""The whole-kernel code of the docs runs: the README's kernel tour prints what it says, and the example of
docs/api.md's "Whole kernels" section adds as it should."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(encoding="utf-8"), re.S)


def test_the_readme_kernel_tour_prints_what_it_says(capsys: pytest.CaptureFixture[str], loops: str) -> None:
    (code,) = [b for b in _blocks("README.md") if "@rs.kernel" in b]
    claimed = re.search(r"print\(z\[:4\]\)\s+# \[(.*?)\]", code)
    assert claimed is not None, "the kernel tour's print line lost its comment"
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == f"[{claimed.group(1)}]"


def test_the_api_page_kernel_adds(loops: str) -> None:
    (code,) = [b for b in _blocks("docs/api.md") if "@rs.kernel" in b]
    scope: dict[str, object] = {}
    exec(compile(code, "api.md", "exec"), scope)
    assert np.array_equal(scope["z"], scope["x"] + scope["y"])  # type: ignore[operator]
