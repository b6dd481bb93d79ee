"""A C++ VF run by regsim.cpp against its hand port: the time ratio (the issue asks for at most 3x).

For each example port with a C++ twin (regsim.testing.cpp_twins; the C++ its docstring quotes, or
with --devkit the unmodified example file), the port's host code is run once to record the
arguments of its VF calls; then the Python port's VF and the C++ VF (lowered once, cached) are
timed on those arguments, alternately, best of --repeat runs each, in this process. The seed
AddCarryVF (tests/cpp/add_carry.asc against vf_examples/add_carry_vf.py) is also timed on a long
batched loop. Run: `python bench/bench_cpp.py [--devkit PATH]`.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import regsim as rs
from regsim.testing import cpp_twins
from vf_examples import add_carry_vf

HERE = Path(__file__).resolve().parent.parent


def best_of(runs: int, f: Callable[[], None]) -> float:
    """The best CPU time of `runs` runs (this process's: other processes on a busy machine disturb it far less than
    wall time), the garbage collector off while timing (as timeit does: a collection, some 16 ms here, would land
    in whichever side's run it happened to fall)."""
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            t = time.process_time()
            f()
            best = min(best, time.process_time() - t)
        finally:
            gc.enable()
    return best


def recorded_calls(module: Any, attr: str, host: Callable[[], object]) -> list[tuple[Any, ...]]:
    """The arguments of each call the host code `host` makes to the VF `module.attr`."""
    original = getattr(module, attr)
    calls: list[tuple[Any, ...]] = []

    def body(*args: Any) -> None:
        calls.append(tuple(a + 0 if isinstance(a, rs.UbPtr) else a for a in args))  # before a post-update moves them
        original.__regsim_vf_body__(*args)

    class _Rec:
        __regsim_vf_body__ = staticmethod(body)

    setattr(module, attr, _Rec())
    try:
        host()
    finally:
        setattr(module, attr, original)
    return calls


def ratio(runs: list[tuple[Any, tuple[Any, ...], Any, tuple[Any, ...]]], repeat: int) -> tuple[float, float]:
    """The Python VFs' and the C++ VFs' times over the recorded calls, each run a (Python VF, its arguments, C++ VF,
    its arguments): each call timed alone, best of `repeat` (alternating sides), and the bests summed, so a
    preemption of this process by a busy machine's scheduler (some ms) lands in one discarded sample, not in the
    total."""
    tp = tc = 0.0
    for py, pa, cpp, ca in runs:
        bp = bc = float("inf")
        for _ in range(repeat):
            bp = min(bp, best_of(1, lambda py=py, pa=pa: rs.asc_vf_call(py, *pa)))  # type: ignore[misc]
            bc = min(bc, best_of(1, lambda cpp=cpp, ca=ca: rs.asc_vf_call(cpp, *ca)))  # type: ignore[misc]
        tp += bp
        tc += bc
    return tp, tc


def twin_ratio(twin: cpp_twins.Twin, mod: Any, repeat: int) -> tuple[float, float]:
    """The port's VF against its C++ twin on the calls the port's host code makes (those the C++ VF takes: a port
    call with more arguments than the example's VF has runs the port's own variant, untimed)."""
    module = cpp_twins.port(twin)
    calls = recorded_calls(module, twin.attr, lambda: module.run(0))
    py = getattr(module, twin.attr)
    runs = []
    for args in calls:
        found = cpp_twins.cpp_call(twin, mod, args)  # (lowered before timing)
        if found is not None:
            runs.append((py, args, *found))
    return ratio(runs, repeat)


def add_carry_ratio(count: int, repeat: int) -> tuple[float, float]:
    """The seed AddCarryVF on a long batched loop (the port's host code, `kernel`, on `count` elements)."""
    cpp = rs.cpp.load(HERE / "tests" / "cpp" / "add_carry.asc").instantiate("AddCarryVF", T=rs.uint32).vf
    calls = recorded_calls(add_carry_vf, "add_vf", lambda: add_carry_vf.kernel(*add_carry_vf.inputs(0, count)))
    return ratio([(add_carry_vf.add_vf, args, cpp, args) for args in calls], repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--devkit", type=Path, help="an asc-devkit checkout: time its unmodified example files")
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    rows: list[tuple[str, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for twin in cpp_twins.TWINS:
            if a.devkit is None and not twin.quoted:
                continue
            mod = cpp_twins.load_twin(twin, a.devkit, Path(tmp))
            for loops in ("auto", "sequential"):
                with rs.configure(loops=loops):
                    tp, tc = twin_ratio(twin, mod, a.repeat)
                rows.append((f"{twin.port}.{twin.attr} [{loops}]", tp, tc))
    for loops in ("auto", "sequential"):
        with rs.configure(loops=loops):  # type: ignore[arg-type]
            tp, tc = add_carry_ratio(12 * 1024, max(3, a.repeat // 2))
        rows.append((f"add_carry AddCarryVF, 12288 elements [{loops}]", tp, tc))
    width = max(len(r[0]) for r in rows)
    print(f"{'VF':{width}}  {'port ms':>9}  {'C++ ms':>9}  ratio")
    for name, tp, tc in rows:
        print(f"{name:{width}}  {tp * 1e3:9.3f}  {tc * 1e3:9.3f}  {tc / tp:5.2f}")
    ratios = np.array([tc / tp for _, tp, tc in rows])
    print(f"ratio C++ / port: median {np.median(ratios):.2f}, max {ratios.max():.2f} over {len(rows)} runs")


if __name__ == "__main__":
    main()
