"""Runs the programs of tests/progen.py in both loop modes, and their C++ twins, and compares.

`check_python(p)`: the program's module is written to a temporary directory and imported (so
`inspect.getsource` works and the loop rewrite applies); its kernel runs with
`rs.configure(loops="sequential")` and, through `rs.explain`, in the default mode, each on a fresh
UB from the module's `setup()`. The two runs must agree on the UB bytes, the UB written flags,
the host's `rs.Ref` counter, and any error (class, message, and the partial UB state, which the
bytes and flags already cover); the kernel itself stores its counters' values and its pointers'
positions to `info` at the end. A sequential run that raises anything but an `rs.errors` class is a
failure too (a stray exception), as is an `rs.explain` that fails where the run does not.

`check_cpp(ps)`: the programs' C++ twins, one file parsed once, each lowered and run in both modes
(compared as above) and against the Python twin's sequential run (bytes, flags, counter, error
class). `shrink(verdict)` minimises a failing program (while it fails the same way).
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import linecache
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import progen
from cpp_source_support import cpp_source
from progen import PARAMS, Program, cpp_file, python_source

import regsim as rs

_DIR: Path | None = None
_COUNT = itertools.count()


def _tmpdir() -> Path:
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="regsim-progen-"))
        atexit.register(shutil.rmtree, _DIR, True)
    return _DIR


def load_module(source: str, stem: str) -> tuple[ModuleType, Path]:
    """Import `source` from a new file (a new name each time: linecache keys source by file name)."""
    path = _tmpdir() / f"{stem}_{next(_COUNT)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def forget(path: Path) -> None:
    linecache.cache.pop(str(path), None)
    path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Outcome:
    """What one run leaves: the UB bytes and written flags, the host counter, the error."""

    data: bytes
    written: bytes
    total: int
    error: tuple[str, str] | None
    regsim_error: bool  #: the error is an rs.errors class (else a stray Python exception)
    explain: str = ""


def run(kernel: Callable[..., None], setup: Callable[[], tuple[rs.UnifiedBuffer, tuple[Any, ...]]], mode: str) -> Outcome:
    ub, args = setup()
    total = args[PARAMS.index("total")]
    error: tuple[str, str] | None = None
    regsim_error = True
    explain = ""
    with rs.configure(loops=mode, batch_min_iterations=2):  # type: ignore[arg-type]  # (batch every loop that can be)
        try:
            if mode == "sequential":
                kernel(*args)
            else:
                explain = rs.explain(kernel, *args)
        except Exception as e:
            error = (type(e).__name__, str(e))
            regsim_error = isinstance(e, rs.errors.RegsimError)
    st = ub.storage
    written = np.ones(st.data.size, np.bool_) if st.valid is None else st.valid
    return Outcome(st.data.tobytes(), written.tobytes(), int(total.value), error, regsim_error, explain)


def _layout(setup: Callable[[], tuple[rs.UnifiedBuffer, tuple[Any, ...]]]) -> list[tuple[str, int, int]]:
    _, args = setup()
    return [(name, a.lo, a.hi) for name, a in zip(PARAMS, args, strict=False) if isinstance(a, rs.UbPtr)]


def _where(a: bytes, b: bytes, layout: list[tuple[str, int, int]]) -> str:
    diff = np.flatnonzero(np.frombuffer(a, np.uint8) != np.frombuffer(b, np.uint8))
    parts = []
    for name, lo, hi in layout:
        inside = diff[(diff >= lo) & (diff < hi)]
        if inside.size:
            parts.append(f"{name} {inside.size} bytes from byte {int(inside[0]) - lo}")
    return ", ".join(parts) or f"{diff.size} bytes outside the tensors"


def differences(a: Outcome, b: Outcome, layout: list[tuple[str, int, int]], *, message: bool = True) -> list[str]:
    """What differs between two runs, in words ([] when they agree)."""
    out = []
    ea, eb = a.error, b.error
    if (ea and ea[0]) != (eb and eb[0]):
        out.append(f"error class: {ea[0] if ea else None} vs {eb[0] if eb else None}")
    elif message and ea != eb:
        out.append("error message")
    if a.data != b.data:
        out.append(f"UB bytes ({_where(a.data, b.data, layout)})")
    if a.written != b.written:
        out.append(f"UB written flags ({_where(a.written, b.written, layout)})")
    if a.total != b.total:
        out.append(f"host counter: {a.total} vs {b.total}")
    return out


@dataclass
class Verdict:
    """One program's check: `diffs` empty when every comparison agreed."""

    program: Program
    diffs: list[str] = field(default_factory=list)
    what: str = "python"  #: "python", "cpp" or "cpp-vs-python"
    sequential: Outcome | None = None
    default: Outcome | None = None
    notes: list[str] = field(default_factory=list)  #: not mismatches: what rs.explain says that is not so

    @property
    def failed(self) -> bool:
        return bool(self.diffs)

    def signature(self) -> str:
        """The kind of failure, for grouping: which comparison and which fields differ."""
        return self.what + ": " + "; ".join(sorted(d.split(" (")[0].split(":")[0] for d in self.diffs))

    def report(self) -> str:
        seq, dft = self.sequential, self.default
        lines = [f"seed {self.program.seed} ({self.what}): " + "; ".join(self.diffs)]
        for name, o in (("sequential", seq), ("default", dft)):
            if o is not None and o.error:
                lines.append(f"  {name} raised {o.error[0]}: {o.error[1][:300]}")
        if dft is not None and dft.explain:
            lines += ["  " + line for line in dft.explain.splitlines()]
        return "\n".join(lines)


def _compare(p: Program, what: str, seq: Outcome, dft: Outcome, layout: list[tuple[str, int, int]]) -> Verdict:
    diffs = differences(seq, dft, layout)
    if seq.error and not seq.regsim_error:
        diffs.append(f"stray exception in the sequential run: {seq.error[0]}: {seq.error[1][:200]}")
    return Verdict(p, diffs, what, seq, dft, untrue_explanations(seq, dft))


_RAISED = re.compile(r"a call raised (\w+) in some iteration: running in order to raise it there")


def untrue_explanations(seq: Outcome, dft: Outcome) -> list[str]:
    """`rs.explain` lines saying a batched attempt raised an error the in-order run would raise,
    where the in-order run raised nothing (a batched attempt failing where no iteration does)."""
    if seq.error:
        return []
    return [f"rs.explain: {line.strip()}" for line in dft.explain.splitlines() if _RAISED.search(line)]


def check_python(p: Program) -> Verdict:
    module, path = load_module(python_source(p), f"prog_{p.uid}")
    try:
        seq = run(module.kernel, module.setup, "sequential")
        dft = run(module.kernel, module.setup, "auto")
        return _compare(p, "python", seq, dft, _layout(module.setup))
    finally:
        forget(path)


def check_cpp(ps: Sequence[Program]) -> list[Verdict]:
    """Each program's C++ twin, from one file: both modes, and against the Python twin."""
    try:
        mod = rs.cpp.load(cpp_source("progs.asc", cpp_file(ps)))  # (the same programs: the same file, one parse kept)
    except rs.cpp.CppError as e:
        return [Verdict(p, [f"C++ parse: {str(e)[:300]}"], "cpp") for p in ps]
    out: list[Verdict] = []
    for p in ps:
        out += _check_one_cpp(mod, p)
    return out


def _check_one_cpp(mod: Any, p: Program) -> list[Verdict]:
    module, pypath = load_module(python_source(p), f"prog_{p.uid}")
    try:
        layout = _layout(module.setup)
        try:
            vf = mod.instantiate(p.cpp_name("kernel"), T=getattr(rs, p.dtype.name)).vf
        except Exception as e:  # a front-end refusal of a program the Python twin runs is a finding
            py = run(module.kernel, module.setup, "sequential")
            return [Verdict(p, [f"C++ lowering: {type(e).__name__}: {str(e)[:300]}"], "cpp-vs-python", py, None)]
        seq = run(vf, module.setup, "sequential")
        dft = run(vf, module.setup, "auto")
        py = run(module.kernel, module.setup, "sequential")
        return [
            _compare(p, "cpp", seq, dft, layout),
            Verdict(p, differences(py, seq, layout, message=False), "cpp-vs-python", py, seq),
        ]
    finally:
        forget(pypath)


def still_fails(v: Verdict) -> Callable[[Program], bool]:
    """A test for `progen.shrink`: the smaller program fails the same comparison the same way."""
    want = v.signature()

    def test(q: Program) -> bool:
        if v.what != "python":
            return any(r.signature() == want for r in check_cpp([q]))
        try:
            return check_python(q).signature() == want
        except SyntaxError:  # (a loop unwrapped around its `break`)
            return False

    return test


def shrink(v: Verdict, budget: int = 400) -> Program:
    """`v`'s program, minimised while it fails the same comparison the same way."""
    return progen.shrink(v.program, still_fails(v), budget)
