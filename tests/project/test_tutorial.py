"""docs/tutorial.md runs as written: its code blocks, in order, in one fresh folder.

Every ```python block starts with `# NAME.py`, the file a reader saves it as (each step names its
file). Each line of a ```sh block is a command the reader types, run once here as there:
`regsim ...` (must exit 0 and print first the line the text after the block says it prints),
`pytest FILES` (in a child process, in the folder: must pass, as the text says), `mypy --strict
FILES` (must find no issue). Every saved test file is run by exactly one `pytest` line, so no
tutorial test runs twice (a test file that also called its tests at import would run them twice).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from mypy_support import ROOT, run_mypy

from regsim._src.frontends import cli

TUTORIAL = ROOT / "docs" / "tutorial.md"
#: a block, and the claim of the paragraph after it: "prints `...`" or "passes (`...`)"
BLOCK = re.compile(r"```(python|sh|cpp)\n(.*?)```(?:\n\n[^`]*?(?:prints|passes \()`([^`]*)`)?", re.S)
FILE_HEADER = re.compile(r"# ([\w.]+\.py)\n")


def test_the_tutorial_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mypy_options: list[str]
) -> None:
    blocks = BLOCK.findall(TUTORIAL.read_text(encoding="utf-8"))
    assert [kind for kind, _, _ in blocks].count("python") >= 3 and any(kind == "sh" for kind, _, _ in blocks)
    monkeypatch.chdir(tmp_path)
    saved: list[str] = []
    tested: list[str] = []
    for kind, code, claimed in blocks:
        if kind == "python":
            header = FILE_HEADER.match(code)
            assert header, f"a tutorial step's Python block names no file:\n{code[:200]}"
            (tmp_path / header[1]).write_text(code, encoding="utf-8")
            saved.append(header[1])
        elif kind == "sh":
            for line in filter(None, code.splitlines()):
                argv = shlex.split(line)
                if argv[0] == "regsim":
                    capsys.readouterr()
                    assert cli.main(argv[1:]) == 0, capsys.readouterr().out
                    if claimed:
                        assert capsys.readouterr().out.splitlines()[0] == claimed
                elif argv[0] == "pytest":
                    tested += argv[1:]
                    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
                    run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv[1:]]
                    done = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
                    assert done.returncode == 0 and claimed in done.stdout, done.stdout + done.stderr
                else:
                    assert argv[:2] == ["mypy", "--strict"], line
                    mypy = run_mypy(mypy_options, [tmp_path / name for name in argv[2:]])
                    assert mypy.status == 0 and not mypy.errors(), mypy.stdout
    assert saved == ["my_add.py", "test_my_add.py", "test_carry.py"]
    assert sorted(tested) == sorted(name for name in saved if name.startswith("test_")), tested
