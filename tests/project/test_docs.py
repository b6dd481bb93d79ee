"""The docs: ops.md matches the op table, the README tour runs, README keeps its quick start and
links every doc, relative links resolve, and nothing cites a file outside the repository."""

import re
from pathlib import Path

import pytest

import regsim as rs

ROOT = Path(__file__).resolve().parents[2]


def test_ops_md_is_generated_from_the_table() -> None:
    assert (ROOT / "docs" / "ops.md").read_text(encoding="utf-8") == rs.registry.markdown(), (
        "docs/ops.md is stale: regenerate it from the op registry (command in its header)"
    )


def test_readme_tour_runs_and_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", readme, re.S)[0]  # (the VF tour; tests/kernel runs the kernel tour)
    claimed = re.search(r"print\(dst0\.numpy\(\)\[:4\]\)\s+# \[(.*?)\]", code)
    assert claimed is not None, "the tour's print line lost its comment"
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert re.findall(r"\d+", printed) == claimed.group(1).split()


QUICK_START = (
    "pip install -e . && regsim examples",
    'pip install -e ".[test]" && ruff check . && mypy --strict regsim vf_examples bench && pytest',
)


def test_readme_keeps_its_quick_start_and_links_every_doc() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
    assert tuple(blocks[:2]) == QUICK_START
    assert QUICK_START[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for doc in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{doc.name})" in readme, f"README does not link docs/{doc.name}"


def test_relative_links_in_the_docs_resolve() -> None:
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links {target}, which does not exist"


def test_nothing_cites_files_outside_the_repository() -> None:
    """The project says things in its own docs and cites public Ascend C pages by name."""
    outside = ["CONTRACT" + ".md", "semantics" + ".md", "STYLE" + ".md", "reg_api" + "_950", "../" + "shared", "seeds" + "/"]
    files = [p for p in ROOT.rglob("*") if p.is_file() and p.suffix in {".py", ".md", ".toml", ".txt", ""}]
    files = [p for p in files if not any(part.startswith(".") and part != ".ci" for part in p.relative_to(ROOT).parts)]
    found = [
        f"{p.relative_to(ROOT)}: {name}"
        for p in files
        for name in outside
        if name in p.read_text(encoding="utf-8", errors="replace")
    ]
    assert not found, "references to files outside the repository:\n" + "\n".join(found)
