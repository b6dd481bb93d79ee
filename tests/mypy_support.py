"""Running mypy from the tests: `python -m mypy` in a child process, with its own minimal config (so neither
pyproject.toml's `[tool.mypy]` nor unrelated files are picked up) and a cache directory shared by the test session
(conftest.py's `mypy_options` fixture): the first run fills it with numpy's and regsim's stubs, the others reuse
them (tests/project/test_typing.py, tests/project/test_tutorial.py, ...). xdist's workers share the folder and take
turns (a lock file), so the run fills the cache once, not once in each worker.

A child, not `mypy.api.run`: a run in the test process leaves its whole build (about a million objects after a
first, uncached run) alive until the next run, and every later full garbage collection of the process walks
them (a second each); a warm run in a child costs about a tenth of a second more than in process."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MYPY_CONFIG = """\
[mypy]
python_version = 3.11
strict = True
"""

#: `path:line: error: message  [code]` (mypy's one-line format, no column numbers)
ERROR = re.compile(r"^(?P<path>.+?):(?P<line>\d+): error: (?P<message>.*?)(?:\s+\[(?P<code>[a-z-]+)\])?$")
NOTE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): note: ")


@dataclass(frozen=True)
class MypyRun:
    stdout: str
    stderr: str
    status: int

    def lines_for(self, path: Path) -> list[str]:
        """mypy's error and note lines about `path`."""
        return [line for line in self.stdout.splitlines() if _path_of(line) == path]

    def errors(self) -> list[tuple[Path, int, str, str]]:
        """(file, line, code, message) of every error (code 'unknown' if mypy gave none)."""
        found = []
        for line in self.stdout.splitlines():
            m = ERROR.match(line)
            if m:
                found.append((Path(m["path"]).resolve(), int(m["line"]), m["code"] or "unknown", m["message"]))
        return found


def _path_of(line: str) -> Path | None:
    m = ERROR.match(line) or NOTE.match(line)
    return Path(m["path"]).resolve() if m else None


@contextmanager
def _turn(folder: Path) -> Iterator[None]:
    """This process's turn at the mypy folder `folder` (processes sharing it wait for each other)."""
    if sys.platform == "win32":  # (no fcntl: conftest.py gives each process its own folder there)
        yield
        return
    import fcntl

    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def options(folder: Path) -> list[str]:
    """mypy's options, its config and cache in `folder` (made if missing; several processes may share it)."""
    folder.mkdir(exist_ok=True)
    config = folder / "mypy.ini"
    with _turn(folder):
        config.write_text(MYPY_CONFIG)
    return [
        "--config-file",
        str(config),
        "--cache-dir",
        str(folder / "cache"),
        "--strict",
        "--show-error-codes",
        "--show-absolute-path",
        "--no-error-summary",
        "--no-pretty",
        "--no-color-output",
        "--hide-error-context",
    ]


def run_mypy(options: list[str], files: list[Path]) -> MypyRun:
    # From the repository root, so `import regsim` finds this checkout; one process at a time in the cache.
    with _turn(Path(options[options.index("--cache-dir") + 1]).parent):
        done = subprocess.run(
            [sys.executable, "-m", "mypy", *options, *map(str, files)], cwd=ROOT, capture_output=True, text=True, check=False
        )
    stdout, stderr, status = done.stdout, done.stderr, done.returncode
    if status == 2 or stderr.strip():
        pytest.fail(f"mypy could not run (exit status {status}):\n{stderr}\n{stdout}")
    return MypyRun(stdout, stderr, status)
