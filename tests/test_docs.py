"""The generated documentation matches the op table it is generated from."""

from pathlib import Path

from regsim._src.table import markdown

ROOT = Path(__file__).resolve().parents[1]


def test_ops_md_is_generated_from_the_table() -> None:
    assert (ROOT / "docs" / "ops.md").read_text(encoding="utf-8") == markdown(), (
        "docs/ops.md is stale: regenerate it from regsim/_src/table.py (command in its header)"
    )
