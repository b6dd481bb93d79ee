"""The typing tests (numpy's and attrs' style of typing tests): `mypy --strict` must accept `typings/pass/` and reject
every marked line of `typings/fail/`, with the marked error code, and nothing else.

A failing line in `typings/fail/*.py` ends with `# E: <code>` (several codes: `# E: call-arg, arg-type`).
For each fail file, the set of (line, code) mypy reports must equal the set of markers: a
misuse mypy stops catching and an error on an unmarked line are both failures.

mypy runs in a child process (mypy_support.run_mypy) with its own minimal config (so neither pyproject.toml's
`[tool.mypy]` nor unrelated files are picked up) and a cache directory private to this test
session: the pass run fills it with numpy's and regsim's stubs, the fail run reuses them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("mypy.api")

from mypy_support import ROOT, MypyRun, run_mypy

PASS_DIR = ROOT / "typings" / "pass"
FAIL_DIR = ROOT / "typings" / "fail"
PASS_FILES = sorted(PASS_DIR.glob("*.py"))
FAIL_FILES = sorted(FAIL_DIR.glob("*.py"))

#: `# E: code` or `# E: code-a, code-b` at the end of a line
MARKER = re.compile(r"#\s*E:\s*(?P<codes>[a-z][a-z-]*(?:\s*,\s*[a-z][a-z-]*)*)\s*$")


@pytest.fixture(scope="module")
def pass_run(mypy_options: list[str]) -> MypyRun:
    return run_mypy(mypy_options, PASS_FILES)


@pytest.fixture(scope="module")
def fail_run(mypy_options: list[str], pass_run: MypyRun) -> MypyRun:
    # Depends on pass_run only to reuse the cache it filled (the two directories hold files of
    # the same module names, so they cannot be checked in one mypy run).
    return run_mypy(mypy_options, FAIL_FILES)


def expected_errors(path: Path) -> set[tuple[int, str]]:
    """The (line, code) pairs marked `# E: code` in `path`."""
    expected = set()
    for lineno, text in enumerate(path.read_text().splitlines(), start=1):
        m = MARKER.search(text)
        if m:
            expected |= {(lineno, code.strip()) for code in m["codes"].split(",")}
    return expected


def _show(path: Path, pairs: set[tuple[int, str]], source: list[str]) -> str:
    return "\n".join(f"  {path.name}:{line}: [{code}]  {source[line - 1].strip()}" for line, code in sorted(pairs))


def test_typing_files_exist() -> None:
    assert PASS_FILES, f"no typing pass files in {PASS_DIR}"
    assert FAIL_FILES, f"no typing fail files in {FAIL_DIR}"
    for path in PASS_FILES:
        assert not expected_errors(path), f"{path.name}: a pass file must not carry `# E:` markers"
    for path in FAIL_FILES:
        assert expected_errors(path), f"{path.name}: a fail file needs at least one `# E: <code>` marker"


def test_pass_files_type_check(pass_run: MypyRun) -> None:
    assert pass_run.status == 0 and not pass_run.errors(), (
        "mypy --strict rejected code in typings/pass/ that must type-check:\n" + pass_run.stdout
    )


@pytest.mark.parametrize("path", FAIL_FILES, ids=lambda p: p.name)
def test_fail_file_errors_match_markers(fail_run: MypyRun, path: Path) -> None:
    source = path.read_text().splitlines()
    expected = expected_errors(path)
    reported = {(line, code) for file, line, code, _ in fail_run.errors() if file == path.resolve()}
    missing, unexpected = expected - reported, reported - expected
    if missing or unexpected:
        report = [f"mypy's errors in typings/fail/{path.name} differ from its `# E:` markers."]
        if missing:
            report += [
                "Marked but not reported (a misuse mypy no longer catches, or another code):",
                _show(path, missing, source),
            ]
        if unexpected:
            report += ["Reported but not marked:", _show(path, unexpected, source)]
        report += ["mypy output for this file:", *fail_run.lines_for(path.resolve())]
        pytest.fail("\n".join(report), pytrace=False)


def test_fail_run_has_no_errors_elsewhere(fail_run: MypyRun) -> None:
    """Errors outside the fail files (e.g. in regsim itself) would otherwise go unnoticed."""
    fail_files = {p.resolve() for p in FAIL_FILES}
    stray = [f"{file}:{line}: [{code}] {message}" for file, line, code, message in fail_run.errors() if file not in fail_files]
    assert not stray, "mypy reported errors outside typings/fail/:\n" + "\n".join(stray)


def test_the_typing_page_shows_what_mypy_says(mypy_options: list[str], pass_run: MypyRun, tmp_path: Path) -> None:
    """docs/typing.md explains mypy's messages on an example block whose `# E:` lines mypy must flag as marked."""
    (code,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "typing.md").read_text(encoding="utf-8"), re.S)
    path = tmp_path / "typing_page.py"
    path.write_text(code)
    run = run_mypy(mypy_options, [path])
    reported = {(line, code) for file, line, code, _ in run.errors() if file == path.resolve()}
    assert reported == expected_errors(path), run.stdout


# --- what the registry refuses, mypy refuses -------------------------------------------------------
def _refused_calls() -> list[str]:
    """One call per (elementwise op, dtype its spec refuses) and per (op, merge mode it refuses),
    generated from the op registry: the faces' type variables and Literal modes must reject each."""
    from regsim._src.engine.executors import Elementwise
    from regsim._src.engine.spec import REGISTRY, Kind, OneOf
    from regsim._src.model.dtypes import ALL_DTYPES
    from regsim._src.model.enums import MaskMergeMode

    calls = []
    for spec in REGISTRY.specs.values():
        if spec.unmodelled or not isinstance(spec.executor, Elementwise):
            continue
        rule = next(o.dtypes for o in spec.operands if o.kind is Kind.REG and isinstance(o.dtypes, OneOf))

        def call(dtype: str, mode: str = "", spec=spec) -> str:
            args = [f"Reg.RegTensor(rs.{dtype})" if o.kind is Kind.REG else "m" for o in spec.positional]
            return f"Reg.{spec.name}({', '.join(args)}{', mode=Reg.MaskMergeMode.' + mode if mode else ''})"

        calls += [call(d.name) for d in ALL_DTYPES if d not in rule.dtypes]
        if spec.modes:
            accepted = next(d for d in ALL_DTYPES if d in rule.dtypes).name
            calls += [call(accepted, m.name) for m in MaskMergeMode if m not in spec.modes]
    return calls


def test_mypy_refuses_what_the_registry_refuses(mypy_options: list[str], pass_run: MypyRun, tmp_path: Path) -> None:
    calls = _refused_calls()
    assert len(calls) > 20, calls
    header = ["import regsim as rs", "from regsim import Reg", "", "with rs.VEC_SCOPE():", "    m = Reg.CreateMask(rs.uint8)"]
    path = tmp_path / "refused_by_the_registry.py"
    path.write_text("\n".join([*header, *("    " + c for c in calls)]) + "\n")
    run = run_mypy(mypy_options, [path])
    flagged = {line for file, line, _, _ in run.errors() if file == path.resolve()}
    accepted = [c for i, c in enumerate(calls, start=len(header) + 1) if i not in flagged]
    assert not accepted, "mypy accepts calls the op registry refuses:\n" + "\n".join(accepted)
