"""docs/tutorial.md runs as written: its code blocks, in order, in one fresh folder.

A ```python block whose first line is `# NAME.py` is saved as that file; any other ```python
block is executed (with the folder first on sys.path, so it imports the saved files); each
`regsim ...` line of a ```sh block runs the command, which must exit 0 and print what the text
after the block says it prints.
"""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from regsim._src import cli

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"
BLOCK = re.compile(r"```(python|sh|cpp)\n(.*?)```(?:\n\nprints `([^`]*)`)?", re.S)
FILE_HEADER = re.compile(r"# ([\w.]+\.py)\n")


def test_the_tutorial_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert [kind for kind, _, _ in blocks].count("python") >= 3 and any(kind == "sh" for kind, _, _ in blocks)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    saved: list[str] = []
    try:
        for n, (kind, code, claimed) in enumerate(blocks):
            header = FILE_HEADER.match(code)
            if kind == "python" and header:
                (tmp_path / header[1]).write_text(code, encoding="utf-8")
                saved.append(header[1].removesuffix(".py"))
            elif kind == "python":
                exec(compile(code, f"{TUTORIAL.name} block {n}", "exec"), {"__name__": f"tutorial_block_{n}"})
            elif kind == "sh":
                for line in filter(None, code.splitlines()):
                    argv = shlex.split(line)
                    assert argv[0] == "regsim", line
                    capsys.readouterr()
                    assert cli.main(argv[1:]) == 0, capsys.readouterr().out
                    if claimed:
                        assert capsys.readouterr().out.splitlines()[0] == claimed
    finally:
        for name in saved:
            sys.modules.pop(name, None)
    assert saved == ["my_add"]
