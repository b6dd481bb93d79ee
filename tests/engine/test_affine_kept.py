"""`Affine.kept`: the progressions arithmetic on a batched loop's index makes, one object per (start, step, rows) kept
for the next run; the loop index itself one per batch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from regsim._src.engine import per_iteration
from regsim._src.engine.per_iteration import Affine, Unbatchable

BOUND = 1 << 62


@given(st.integers(-(1 << 40), 1 << 40), st.integers(-(1 << 20), 1 << 20), st.integers(1, 64), st.integers(-1000, 1000))
def test_products_and_sums_are_the_rows_python_ints_give_and_kept(start: int, step: int, rows: int, k: int) -> None:
    index = Affine.progression(start, step, rows)
    for made, want in (
        (index * k, [(start + step * b) * k for b in range(rows)]),
        (index + k, [start + step * b + k for b in range(rows)]),
    ):
        assert [int(v) for v in made.values] == want  # (per-row Python ints: the oracle)
        assert not made.values.flags.writeable  # (shared by every run that makes it: never written in place)
    assert index * k is index * k and index + k is index + k  # (one object per progression, kept)
    assert Affine.kept(start * k, step * k, rows) is index * k


def test_the_index_is_one_per_batch_and_writing_a_kept_progression_raises() -> None:
    assert Affine.progression(0, 1, 4) is not Affine.progression(0, 1, 4)  # (the iteration stack tells batches apart)
    kept = Affine.kept(3, 2, 4)
    with pytest.raises(ValueError, match="read-only"):
        kept.values[0] = 7
    assert list(kept.values) == [3, 5, 7, 9]


def test_beyond_the_limit_is_unbatchable_and_not_kept() -> None:
    before = dict(per_iteration._KEPT)
    with pytest.raises(Unbatchable):
        Affine.progression(0, 1, 2) * (BOUND + 1)
    assert per_iteration._KEPT == before


def test_the_store_is_bounded() -> None:
    per_iteration._KEPT.clear()
    for start in range(per_iteration.KEPT + 3):
        Affine.kept(start, 1, 2)
    assert 0 < len(per_iteration._KEPT) <= per_iteration.KEPT
    assert list(Affine.kept(5, 1, 2).values) == list(np.arange(5, 7))
