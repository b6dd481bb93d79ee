"""A storage's written flags: `all_written` against numpy's `all` of the flags, over short and long ranges; a UB's
ranges (`RangeStorage`) against a per-byte oracle, through marks, stores, questions and the switch to flags."""

from __future__ import annotations

import itertools
from typing import Any

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


@given(
    cuts=st.lists(st.integers(1, SIZE - 1), unique=True, max_size=6).map(sorted),
    marked=st.lists(st.booleans(), min_size=7, max_size=7),
    order=st.randoms(use_true_random=False),
)
def test_a_store_that_leaves_every_byte_written_drops_the_ranges(cuts: list[int], marked: list[bool], order: Any) -> None:
    """The spans between `cuts`, in a random order, each by `mark` or `mark_stored`, then one store again into bytes
    already written: the ranges (or flags) stay while a byte was never written; once every byte was, the first store
    drops them (`valid` None), even one into bytes a `mark` wrote; a `mark` alone never does."""
    spans = list(itertools.pairwise([0, *cuts, SIZE]))
    order.shuffle(spans)
    s = RangeStorage.fresh(SIZE)  # (at most 7 ranges: kept as ranges throughout)
    oracle = [False] * SIZE
    stored_since_complete = False
    for (a, b), by_mark in zip(spans, marked, strict=False):
        (s.mark if by_mark else s.mark_stored)(a, b)
        oracle[a:b] = [True] * (b - a)
        stored_since_complete = all(oracle) and (stored_since_complete or not by_mark)
        assert s.partial() is not stored_since_complete
    a, b = spans[0]
    s.mark_stored(a, (a + b) // 2 + 1)  # (bytes written already)
    assert s.partial() is not all(oracle)
    flags = s.valid
    assert (flags is None) is all(oracle) and (flags is None or flags.tolist() == oracle)


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


def _draw_at(data: st.DataObject) -> Any:
    """Some bytes of the storage: an index array (distinct bytes) or (start, shape, strides) of rows apart."""
    if data.draw(st.booleans()):
        return np.array(data.draw(st.lists(st.integers(0, SIZE - 1), unique=True, max_size=40)), np.intp)
    n = data.draw(st.integers(1, 24))
    step = data.draw(st.integers(n, 80))
    rows = data.draw(st.integers(0, 5))
    start = data.draw(st.integers(0, SIZE - n))
    rows = min(rows, (SIZE - n - start) // step + 1)
    return start, (rows, n), (step, 1)


def _oracle_index(at: Any) -> np.ndarray:
    """The byte numbers `at` names, in its shape."""
    if isinstance(at, tuple):
        start, (rows, n), (step, _) = at
        return np.asarray(start + step * np.arange(rows)[:, None] + np.arange(n), np.intp)
    return np.asarray(at)


def _flags(data: st.DataObject, n: int) -> np.ndarray:
    return np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), np.bool_)


@settings(max_examples=80)
@given(data=st.data(), kind=st.sampled_from([RangeStorage, _Few, Storage]))
def test_span_and_point_operations_answer_as_per_byte_flags(data: st.DataObject, kind: type[Storage]) -> None:
    """`flags`, `put_written`, `mark_where`, `flags_at`, `mark_at` and `put_at` (index arrays and strided rows) in random
    sequences with marks and stores, against a per-byte oracle: through ranges, the switch to flags (`_Few`) and a
    plain storage's flags alike; each answer a new array, never the storage's own."""
    s = kind.fresh(SIZE)
    oracle = np.zeros(SIZE, np.bool_)
    for _ in range(data.draw(st.integers(0, 25))):
        op = data.draw(st.sampled_from(["mark_stored", "flags", "put_written", "mark_where", "flags_at", "mark_at", "put_at"]))
        a, b = data.draw(_span)
        if op == "mark_stored":
            s.mark_stored(a, b)
            oracle[a:b] = True
        elif op == "flags":
            got = s.flags(a, b)
            assert (got is None) == bool(oracle[a:b].all())
            if got is not None:
                assert got.tolist() == oracle[a:b].tolist()
                got[...] = True  # (a new array: the storage's flags unchanged)
        elif op == "put_written":
            flags = None if data.draw(st.booleans()) else _flags(data, b - a)
            s.put_written(a, b, flags)
            oracle[a:b] = True if flags is None else flags
        elif op == "mark_where":
            flags = _flags(data, b - a)
            s.mark_where(a, flags)
            oracle[a:b] |= flags
        else:
            at = _draw_at(data)
            index = _oracle_index(at)
            if op == "flags_at":
                got = s.flags_at(at)
                if got is None:
                    assert oracle.all() and not s.partial()
                else:
                    assert got.shape == index.shape and got.tolist() == oracle[index].tolist()
                    got[...] = True
            elif op == "mark_at":
                masked = isinstance(at, tuple) and data.draw(st.booleans())  # (a strided store under a predicate)
                where = _flags(data, index.size).reshape(index.shape) if masked else None
                s.mark_at(at, where)
                oracle[index[where] if where is not None else index] = True
            else:
                flags = _flags(data, index.size).reshape(index.shape)
                s.put_at(at, flags)
                oracle[index] = flags
        missing = np.flatnonzero(~oracle)
        assert s.first_unwritten(0, SIZE) == (int(missing[0]) if missing.size else None)
        assert s.partial() or oracle.all()
        if isinstance(s, RangeStorage) and s.starts is not None:
            assert s.ends is not None and len(s.starts) <= type(s).MAX_RANGES
            runs = list(zip(s.starts, s.ends, strict=True))
            assert all(i < j for i, j in runs) and all(j < k for (_, j), (k, _) in itertools.pairwise(runs))
            covered = np.zeros(SIZE, np.bool_)
            for p, q in runs:
                covered[p:q] = True
            assert covered.tolist() == oracle.tolist()


def test_a_ub_stays_in_ranges_through_span_and_point_operations() -> None:
    """The operations a UB's loads, stores, scatters and rollbacks use keep its ranges (no per-byte flags made)."""
    s = RangeStorage.fresh(SIZE)
    s.mark_stored(0, 64)
    assert s.flags(0, 64) is None and s.flags(60, 70) is not None
    s.mark_where(100, np.array([True, False, True]))
    s.mark_at(np.array([200, 201, 300], np.intp))
    s.mark_at((400, (2, 4), (8, 1)), np.array([[True] * 4, [False, True, True, False]]))
    assert s.flags_at(np.array([0, 1, 99, 100, 101], np.intp)).tolist() == [True, True, False, True, False]  # type: ignore[union-attr]
    s.put_at((400, (2, 4), (8, 1)), np.zeros((2, 4), np.bool_))
    s.put_written(0, 64, np.zeros(64, np.bool_))
    assert s.starts == [100, 102, 200, 300] and s.ends == [101, 103, 202, 301]
    s.put_written(0, SIZE, None)
    assert s.starts == [0] and s.ends == [SIZE]
