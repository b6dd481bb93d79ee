"""The UB write journal (`Journal`): whatever writes a journalled UB sees while it is open, `restore()` puts back
every byte, every written flag (the flags dropped once every byte is written included) and the core's special
registers exactly; each byte is saved at most once, and only bytes written or read ahead within the write's
limit are saved (the cost of the writes, not of the UB)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim._src.model.memory import AHEAD, Journal


def state(ub: rs.UnifiedBuffer) -> tuple[Any, ...]:
    """The UB's bytes, written flags (None: every byte written, the flags dropped), summary counter and special
    registers, read without making per-byte flags of a UB that keeps ranges."""
    s = ub.storage
    return s.data.copy(), s.flags(0, s.data.size) if s.partial() else None, s.until, ub.core.snapshot()


def assert_state(ub: rs.UnifiedBuffer, want: tuple[Any, ...]) -> None:
    data, valid, until, core = state(ub)
    assert np.array_equal(data, want[0]), "UB bytes"
    assert (valid is None) == (want[1] is None) and (valid is None or np.array_equal(valid, want[1])), "written flags"
    assert until == want[2] and core == want[3], "summary counter, special registers"


writes = st.lists(st.tuples(st.integers(0, 4095), st.integers(1, 600), st.integers(0, 4096 + 64)), max_size=12)


@given(
    written=st.lists(st.tuples(st.integers(0, 4095), st.integers(1, 2048)), max_size=4),
    writes=writes,
    inner=st.none() | writes,
    fill_all=st.booleans(),
    per_byte=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_restore_puts_back_every_byte_and_flag(
    written: list[tuple[int, int]],
    writes: list[tuple[int, int, int]],
    inner: list[tuple[int, int, int]] | None,
    fill_all: bool,
    per_byte: bool,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    ub = rs.UnifiedBuffer(4096)
    oracle = np.zeros(4096, np.bool_)  # the bytes written before the journal opens
    for lo, n in written:  # some bytes written before the journal opens, the others never
        ub.write(lo, rng.integers(0, 256, min(n, 4096 - lo), dtype=np.uint8))
        oracle[lo : lo + n] = True
    if per_byte:  # the UB's per-byte flags made (as past its range limit); else it keeps ranges throughout
        ub.storage.valid  # noqa: B018
    ranged = ub.storage.starts is not None
    ub.core.vector_mask, ub.core.cmp_mask = (int(rng.integers(2**63)), 7), int(rng.integers(2**63))
    before = state(ub)
    journal = Journal(ub)

    def run(ws: list[tuple[int, int, int]]) -> int:
        """Each write: its bytes recorded (with a read-ahead up to `limit`), then new bytes; returns the bytes asked."""
        for lo, n, limit in ws:
            hi = min(lo + n, 4096)
            assert ub.journal is not None
            ub.journal.record(lo, hi, limit)
            ub.storage.data[lo:hi] = rng.integers(0, 256, hi - lo, dtype=np.uint8)
            ub.storage.mark_stored(lo, hi)
        return sum(min(lo + n, 4096) - lo + AHEAD for lo, n, _ in ws)

    asked = run(writes)
    if inner is not None:  # a journal opened inside: it puts back its own start, the outer one still the first
        middle = state(ub)
        nested = Journal(ub)
        asked += run(inner)
        nested.restore()
        nested.close()
        assert_state(ub, middle)
    if fill_all:  # every byte written: the flags are dropped, and must come back
        ub.write(0, rng.integers(0, 256, 4096, dtype=np.uint8))
        asked += 4096
    ub.core.vector_mask, ub.core.cmp_mask, ub.core.ctrl = (1, 2), 3, 4
    journal.restore()
    journal.close()
    assert ub.journal is None
    assert_state(ub, before)
    assert ub.storage.starts is not None or not ranged, "a UB keeping ranges keeps them through a rollback"
    flags = ub.storage.flags(0, 4096)
    assert (flags is None and oracle.all()) or (flags is not None and flags.tolist() == oracle.tolist())
    starts = [lo for lo, _, _ in journal.saved]
    ends = [lo + data.size for lo, data, _ in journal.saved]
    assert journal.copied == sum(e - s for s, e in zip(starts, ends, strict=True)) <= min(asked, 4096)
    spans = sorted(zip(starts, ends, strict=True))
    assert all(a[1] <= b[0] for a, b in pairwise(spans)), "a byte saved twice"


def test_a_write_outside_any_journal_is_not_recorded() -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.int32, 8)
    journal = Journal(ub)
    t.set([1, 2, 3])
    journal.close()
    t.set([4, 5, 6])
    journal.restore()  # (puts back what it saw: the first write's bytes, which were never written)
    assert journal.copied == 12
    assert t.numpy()[:3].tolist() == [0, 0, 0] and not ub.storage.valid[:12].any()  # type: ignore[index]
