"""Shared test configuration: Hypothesis profiles and small fixtures.

Profiles (select with HYPOTHESIS_PROFILE=…): "ci" (default, keeps the suite fast), "dev" (fewer
examples while iterating), "thorough" (many examples, for a nightly run).
"""

from __future__ import annotations

import gc
import os
import runpy
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    import regsim as rs
    from regsim._src.model.core import Core

# (regsim is imported by the fixtures, not here: under xdist the controller process loads this file too, before it
# starts the workers, and runs no test; importing regsim there delayed every worker's start by ~0.8 s)

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("ci", max_examples=60, **_COMMON)
settings.register_profile("dev", max_examples=15, **_COMMON)
settings.register_profile("thorough", max_examples=1000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


#: the project's checks (tests/project): child processes (pip, mypy, a nested pytest, the examples), seconds a test
_CHILD_PROCESS_CHECKS = Path(__file__).parent / "project"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The project's checks first, the rest in pytest's order: last (in name order) one of them could still be
    running seconds after the other xdist workers ran out of tests."""
    items.sort(key=lambda item: not item.path.is_relative_to(_CHILD_PROCESS_CHECKS))  # (a stable sort)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """The session's heap frozen after one full collection: what the tests left in reference cycles is collected (a
    finalizer's exception still reaches pytest's unraisable-exception check, which runs after this hook), and what
    stays is not walked again by that check's five further collections nor by the interpreter's at exit. With a
    worker's heap at the end of the suite each walk took about a second, and xdist waits for its workers to end."""
    gc.collect()
    gc.freeze()


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cyclic garbage collector off for the test: what it keeps alive, only reference cycles can (the UB lifetime
    tests: what the test makes and drops must be freed by reference counting alone). No collection first: garbage
    left by earlier tests is none of the test's objects, and a full collection of a worker's heap late in the run
    costs about half a second."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.fixture(autouse=True)
def batch_small_loops() -> Iterator[None]:
    """The suite batches every loop that can be (`batch_min_iterations=2`), small ones included, so the
    batched path is what the default mode runs in its tests (by default loops under 16 iterations run
    in order, where that is cheaper); and every loop site starts with no hazard predicted (what an earlier test's
    attempts found does not send this test's loops in order: `forget_hazards`)."""
    import regsim as rs
    from regsim._src.vf.loops import forget_hazards

    forget_hazards()
    with rs.configure(batch_min_iterations=2):
        yield


@pytest.fixture(autouse=True)
def fresh_core() -> Iterator[Core]:
    """Every test starts on a core of its own (fresh special registers: CTRL at its launch value, the
    vector mask all ones, ...), as a kernel launch gives each block one; whatever it leaves is dropped."""
    from regsim._src.model.core import _CORE, Core, use_core

    core = Core()
    token = use_core(core)
    yield core
    _CORE.reset(token)


@pytest.fixture
def ub() -> rs.UnifiedBuffer:
    """A fresh, never-written Unified Buffer of the default 248 KiB."""
    import regsim as rs

    return rs.UnifiedBuffer()


@pytest.fixture(scope="session")
def mypy_options(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """mypy's options for the session: one config and one cache for every test that runs mypy; under xdist, for
    every worker of the run (their temporary folders' parent is the run's; mypy_support.run_mypy takes turns)."""
    from mypy_support import options

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER") and sys.platform != "win32":
        base = base.parent
    return options(base / "mypy")


@pytest.fixture
def python_m_regsim(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`python -m regsim ARGS` run in this process: regsim/__main__.py executed as `__main__` (runpy) with ARGS as
    its command line; returns its exit status, stdout and stderr as `subprocess.run` would (`check=True`: raises if
    the status is not 0). A child interpreter
    would spend a second starting and importing regsim for each command; test_examples.py runs `python -m` in a
    child once, for the entry point itself."""

    def run(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        with monkeypatch.context() as m:
            m.setattr(sys, "argv", ["regsim", *args])
            try:
                runpy.run_module("regsim", run_name="__main__", alter_sys=True)
                status = 0
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 1
        out = capsys.readouterr()
        done = subprocess.CompletedProcess([sys.executable, "-m", "regsim", *args], status, out.out, out.err)
        if check:
            done.check_returncode()
        return done

    return run
