"""The C++ twins of the random programs (tests/progen.py) through `rs.cpp`: each lowered from one
file parsed once, run with `loops="sequential"` and in the default mode (identical UB bytes, written
flags, counter and error), and against its Python twin's sequential run (bytes, flags, counter,
error class)."""

from __future__ import annotations

import pytest

pytest.importorskip("clang.cindex")

from progen import cpp_source, program
from progen_check import Verdict, check_cpp

SEEDS = [*range(100), 3934, 4867]  #: (3934, 4867: see KNOWN in test_progen.py)


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[int, str], Verdict]:
    return {(v.program.seed, v.what): v for v in check_cpp([program(s) for s in SEEDS])}


def _explain(v: Verdict) -> str:
    return f"{v.report()}\n--- the C++ ---\n{cpp_source(v.program)}"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cpp_program_gives_the_same_results_in_both_loop_modes(seed: int, verdicts: dict[tuple[int, str], Verdict]) -> None:
    v = verdicts.get((seed, "cpp"))
    assert v is not None, _explain(verdicts[seed, "cpp-vs-python"])  # it did not lower
    assert not v.failed, _explain(v)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cpp_program_gives_its_python_twins_results(seed: int, verdicts: dict[tuple[int, str], Verdict]) -> None:
    v = verdicts[seed, "cpp-vs-python"]
    assert not v.failed, _explain(v)
