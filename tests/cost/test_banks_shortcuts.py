"""The bank model's shortcuts against the per-row oracle of test_banks (which counts every 32 B row of every group of
every row): beats whose every access is one stripe of the bank groups (256 B from a multiple of 256 B: a register's
load or store at an aligned address), judged by `_few` from group 0's cells (every group's alike); listed beats whose
rows all make the row before's accesses moved as much (an in-order loop walking its tensors), judged as one class
when the move is by whole 32 B rows, row by row when not."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_banks import beat_oracle, same

from regsim._src.cost import banks

GEO = banks.Geometry()
STRIPE = GEO.row * GEO.groups


def _kinds(bits: list[int]) -> list[set[str]]:
    return [{banks.KINDS[k] for k in range(3) if b >> k & 1} for b in bits]


@settings(max_examples=120, deadline=None)
@given(
    rows=st.integers(1, 4),
    accesses=st.lists(st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 40), st.integers(0, 3)), min_size=1, max_size=9),
)
def test_striped_beats_are_the_oracles(rows: int, accesses: list[tuple[int, bool, int, int]]) -> None:
    """Stripes of either bank, read and written, some read or written twice in a row (one access), rows without any:
    each row's cycles and kinds and the first row's examples as the oracle gives them, by `_few` and by `beat`."""
    made = [(i, w, s * STRIPE, (s + 1) * STRIPE, r % rows) for i, w, s, r in accesses]
    cycles, kinds, examples = beat_oracle(made, rows)
    lists: list[list[Any]] = [[m[k] for m in made] for k in range(5)]
    few = banks._few(GEO, *lists, rows)
    assert few is not None
    assert few[0] == cycles and _kinds(few[1]) == kinds and few[2] == examples
    arrays = [np.array(x, np.bool_ if k == 1 else np.int64) for k, x in enumerate(lists)]
    same(banks.beat(GEO, *arrays, rows=rows), cycles, kinds, examples)


def test_the_sample_case_6_beat() -> None:
    """The bank_conflict_3510 sample's case 6 (x at 0x0, y at 0x5000, z at 0xA000: one bank of every group): its beat's
    two loads and store are a read-read and a read-write conflict in every group, 3 cycles (two reads and a write of
    one bank)."""
    made = [(0, False, 0x0, 0x100, 0), (1, False, 0x5000, 0x5100, 0), (2, True, 0xA000, 0xA100, 0)]
    few = banks._few(GEO, *[[m[k] for m in made] for k in range(5)], 1)
    assert few is not None and few[:2] == ([3], [0b011])
    assert (few[0], _kinds(few[1]), few[2]) == tuple(beat_oracle(made, 1))


@settings(max_examples=80, deadline=None)
@given(
    calls=st.lists(
        st.tuples(st.integers(0, 2), st.booleans(), st.integers(0, 60), st.sampled_from([8, 32, 40, 256])), min_size=1, max_size=5
    ),
    rows=st.integers(2, 6),
    step=st.sampled_from([0, 8, 16, 32, 64, 96, 256, 264]),
    bent=st.integers(-1, 5),
    flipped=st.integers(-1, 5),
    wide=st.integers(-1, 5),
)
def test_rows_moved_alike_are_one_class(
    calls: list[tuple[int, bool, int, int]], rows: int, step: int, bent: int, flipped: int, wide: int
) -> None:
    """Rows each making the row before's accesses moved `step` bytes (whole 32 B rows or not; one row, `bent`, moved 8 B
    more, one, `flipped`, writing what the others read and reading what they write, and one, `wide`, making each
    access 32 B wider, when in range):
    `kept_listed_beat` gives the oracle's cycles, kinds and examples, and their totals (summed as it is made)."""
    made = []
    for r in range(rows):
        for i, w, a, size in calls:
            start = a * 8 + r * step + (8 if r == bent else 0)
            made.append((i, w != (r == flipped), start, start + size + (32 if r == wide else 0), r))
    banks._BEATS.clear()
    got = banks.kept_listed_beat(GEO, *[[m[k] for m in made] for k in range(5)], rows=rows)
    cycles, kinds, examples = beat_oracle(made, rows)
    assert banks.totals(got) == (sum(cycles), rows, tuple(sum(kind in row for row in kinds) for kind in banks.KINDS))
    same(got, cycles, kinds, examples)
