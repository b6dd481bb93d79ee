"""A storage's written flags: `all_written` against numpy's `all` of the flags, over short and long ranges; a UB's
ranges (`RangeStorage`) against a per-byte oracle, through marks, stores, questions and the switch to flags."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from regsim._src.model.registers import RangeStorage, Storage


@given(
    written=st.lists(st.tuples(st.integers(0, 4096), st.integers(0, 4096)), max_size=4),
    start=st.integers(0, 4096),
    length=st.integers(0, 4096),
)
def test_all_written_is_every_flag_of_the_range(written: list[tuple[int, int]], start: int, length: int) -> None:
    st_ = Storage.fresh(4096)
    for a, b in written:
        st_.mark(min(a, b), max(a, b))
    end = min(start + length, 4096)
    expected = st_.valid is None or bool(np.asarray(st_.valid)[start:end].all())
    assert st_.all_written(start, end) is expected


SIZE = 512
_span = st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(sorted)
#: a step: mark / mark_stored / write a range, ask all_written / first_unwritten of one, or look at the flags
_step = st.tuples(st.sampled_from(["mark", "mark_stored", "write", "all_written", "first_unwritten", "flags"]), _span)


def _oracle_first(oracle: list[bool], a: int, b: int) -> int | None:
    return next((i for i in range(a, b) if not oracle[i]), None)


class _Few(RangeStorage):
    """Ranges kept only up to two: the switch to per-byte flags mid-sequence."""

    __slots__ = ()
    MAX_RANGES = 2


@settings(max_examples=100)
@given(steps=st.lists(_step, max_size=30), kind=st.sampled_from([RangeStorage, _Few]))
def test_ranges_answer_as_per_byte_flags(steps: list[tuple[str, list[int]]], kind: type[RangeStorage]) -> None:
    s = kind.fresh(SIZE)
    oracle = [False] * SIZE
    for op, (a, b) in steps:
        ranged = s.starts is not None
        if op in ("mark", "mark_stored", "write"):
            if op == "write":
                s.write(a, np.full(b - a, 7, np.uint8))
            else:
                getattr(s, op)(a, b)
            oracle[a:b] = [True] * (b - a)
            assert op != "write" or s.data[a:b].tolist() == [7] * (b - a)
            if ranged and op != "mark" and all(oracle):  # (a store or a host write that completes the ranges drops them)
                assert s.valid is None
        elif op == "all_written":
            assert s.all_written(a, b) is all(oracle[a:b])
        elif op == "first_unwritten":
            assert s.first_unwritten(a, b) == next((i for i in range(a, b) if not oracle[i]), None)
        else:
            flags = s.valid
            assert (flags is None and all(oracle)) or (flags is not None and flags.tolist() == oracle)
        assert s.partial() or all(oracle)
        if s.starts is not None:  # (sorted, disjoint, not touching: each range a maximal run of written bytes)
            assert s.ends is not None and len(s.starts) <= kind.MAX_RANGES
            runs = list(zip(s.starts, s.ends, strict=True))
            assert all(i < j for i, j in runs) and all(j < k for (_, j), (k, _) in itertools.pairwise(runs))
            assert [i for i in range(SIZE) if any(p <= i < q for p, q in runs)] == [i for i in range(SIZE) if oracle[i]]


def test_flags_asked_for_are_kept_and_changes_to_them_count() -> None:
    """Asking for `valid` switches to per-byte flags; a flag cleared in place is seen by every later question."""
    s = RangeStorage.fresh(64)
    s.mark_stored(0, 32)
    flags = s.valid
    assert flags is not None and flags.tolist() == [True] * 32 + [False] * 32 and s.starts is None
    flags[5] = False
    assert not s.all_written(0, 32) and s.first_unwritten(0, 32) == 5 and s.all_written(6, 32)
    s.valid = None
    assert not s.partial() and s.all_written(0, 64) and s.first_unwritten(0, 64) is None
