"""`engine/backend.gathered`, the one gather of UB bytes both backends use, against a per-lane oracle: each
active lane's `unit` bytes at its address and their written flags, inactive lanes zero and counted as written
(every lane active or not), for any address layout a loop hands it (C order, Fortran order, broadcast rows) and
aligned or unaligned addresses; from a register-like storage (per-byte flags) and from a UB's (ranges)."""

from __future__ import annotations

from itertools import groupby
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from regsim._src.engine.backend import gathered
from regsim._src.model.registers import RangeStorage, Storage


def storage(data: np.ndarray, valid: np.ndarray | None, ranged: bool) -> Storage:
    """A storage of `data` whose bytes `valid` says were written (None: all): per-byte flags, or a UB's ranges."""
    if not ranged:
        return Storage(data, valid)
    s = RangeStorage.fresh(data.size)
    s.data[...] = data
    at = 0
    for written, run in groupby(np.ones(data.size, np.bool_) if valid is None else valid):
        n = len(list(run))
        if written:
            s.mark_stored(at, at + n)
        at += n
    return s


@settings(max_examples=200, deadline=None)
@given(
    unit=st.sampled_from([1, 2, 4, 8]),
    rows=st.integers(1, 4),
    lanes=st.integers(1, 9),
    layout=st.sampled_from(["C", "F", "broadcast"]),
    aligned=st.booleans(),
    tracked=st.booleans(),
    every=st.booleans(),
    ranged=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_gathered_reads_each_active_lanes_bytes(
    unit: int, rows: int, lanes: int, layout: str, aligned: bool, tracked: bool, every: bool, ranged: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    size = 256
    data = rng.integers(0, 256, size, dtype=np.uint8)
    valid = rng.random(size) < 0.9 if tracked else None
    top = size // unit if aligned else size - unit + 1
    addrs: Any = rng.integers(0, top, (rows, lanes)) * (unit if aligned else 1)
    if layout == "F":
        addrs = np.asfortranarray(addrs)
    elif layout == "broadcast":
        addrs = np.broadcast_to(addrs[:1], (rows, lanes))
    active = np.ones((rows, lanes), bool) if every else rng.random((rows, lanes)) < 0.7
    raw, flags = gathered(storage(data, valid, ranged), addrs, unit, active)
    for r in range(rows):
        for k in range(lanes):
            a = int(addrs[r, k])
            on = bool(active[r, k])
            want = [int(data[a + j]) if on else 0 for j in range(unit)]
            assert [int(b) for b in raw[r, k]] == want, (r, k)
            ok = [not on or valid is None or bool(valid[a + j]) for j in range(unit)]
            assert (flags is None and all(ok)) or (flags is not None and [bool(f) for f in flags[r, k]] == ok), (r, k)
