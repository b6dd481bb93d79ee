"""A batched access known by its exact box and no `make`: its spans, made when first asked for, are each row's bytes
[start + b·step, + width) (per-row Python ints the oracle), as the closure the load and the store passed before gave."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from regsim._src.vf.batched import Access


@given(st.integers(0, 1 << 20), st.integers(-4096, 4096), st.integers(1, 512), st.integers(1, 64), st.booleans())
def test_spans_from_the_box_are_each_rows_bytes(start: int, step: int, width: int, rows: int, write: bool) -> None:
    a = Access(7, write, None, (start, step, width), True, None, rows)
    lo, hi, used = a.spans
    assert [int(v) for v in lo] == [start + b * step for b in range(rows)]
    assert [int(v) for v in hi] == [start + b * step + width for b in range(rows)]
    assert [int(v) for v in used] == list(range(rows))
    assert a.spans is a.spans  # (made once)
