"""A storage's written flags: `all_written` against numpy's `all` of the flags, over short and long ranges."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from regsim._src.model.registers import Storage


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
