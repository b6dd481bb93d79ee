"""Running a kernel in both loop modes and comparing everything observable (the batched-loop tests)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import regsim as rs
from regsim._src.frontends import cli
from regsim._src.vf.loops import Decision, _explaining, forget_hazards


def ub_state(ub: rs.UnifiedBuffer) -> tuple[bytes, bytes | None]:
    """A UB's bytes and written flags (None once every byte is written: the storage drops its flags then, at
    a moment each loop mode may pick differently)."""
    st = ub.storage
    return st.data.tobytes(), None if st.valid is None or st.valid.all() else st.valid.tobytes()


def run_both(make: Callable[[], tuple[rs.UnifiedBuffer, Callable[[], Any]]]) -> tuple[list[Decision], Any]:
    """Run a fresh copy of a kernel (`make()` gives its UB and a call running it) under
    `loops="sequential"` and the default mode; the UB bytes, written flags, result and error
    (class, message, partial UB state) must agree. Returns the default run's loop decisions and
    its result."""
    outcomes = []
    decisions: list[Decision] = []
    for mode in ("sequential", "auto"):
        ub, run = make()
        forget_hazards()  # (a fresh copy: no hazard an earlier run found predicted for it)
        error: tuple[type, str] | None = None
        with rs.configure(loops=mode), _explaining() as log:
            try:
                result = run()
            except rs.errors.RegsimError as e:
                error, result = (type(e), str(e)), None
        outcomes.append((ub_state(ub), error, result))
        if mode == "auto":
            decisions = list(log)
    (seq_ub, seq_err, seq_res), (bat_ub, bat_err, bat_res) = outcomes
    assert bat_err == seq_err, f"errors differ: sequential {seq_err}, batched {bat_err}"
    assert bat_ub[0] == seq_ub[0], "UB bytes differ between loop modes"
    assert bat_ub[1] == seq_ub[1], "UB written flags differ between loop modes"
    assert repr(bat_res) == repr(seq_res), f"results differ: {seq_res!r} vs {bat_res!r}"
    assert not any("regsim bug" in d.why for d in decisions), [str(d) for d in decisions]
    return decisions, bat_res


_modules = itertools.count()


def load_kernels(tmp_path: Path, source: str) -> Any:
    """`source` as a module of a file of its own (so the loop rewrite can read it)."""
    path = tmp_path / f"kernels_{next(_modules)}.py"
    path.write_text(source)
    return cli.load_file(path)


def hows(make: Callable[[], tuple[rs.UnifiedBuffer, Callable[[], Any]]]) -> tuple[list[str], Any]:
    """`run_both`, with the default run's decisions as "batched" / "sequential"."""
    decisions, result = run_both(make)
    return [d.how for d in decisions], result


def failed_attempts(monkeypatch: Any) -> list[str]:
    """The batched attempts that fail from now on (`monkeypatch`: the test's fixture), by the class of what stopped
    them."""
    from regsim._src.vf import loops

    failed: list[str] = []
    original = loops.LoopRun.failed

    def counting(self: Any, error: BaseException) -> bool:
        failed.append(type(error).__name__)
        return original(self, error)

    monkeypatch.setattr(loops.LoopRun, "failed", counting)
    return failed
