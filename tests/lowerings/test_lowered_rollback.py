"""A memory-level call that fails midway changes nothing, and what the guarantee costs does not depend on the UB.

The calls' rollback is a write journal (`regsim._src.model.memory.Journal`): the bytes a call writes, saved before
its first write, and the core's special registers. Here a call made of several memory-level calls (nested calls are
part of the outermost one) writes through every kind of writer (the batched loops' stores, the in-order fast paths,
the unaligned store stream, host writes of the compare mask) and sets special registers, then fails at a random
point of its last lowering (a source element never written, at a random index); the UB's bytes, its written flags
and the core's registers must be exactly as before, in both loop modes, from a UB keeping per-byte flags or ranges
(which it keeps). And the journal of a 1,024-element Add
copies the same bytes (at most its destination's) in a 248 KiB UB as in a 64 MiB one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim._src.lowerings.checks import keep_unchanged
from regsim._src.model.memory import Journal
from regsim.errors import UninitializedReadError

A = rs.AscendC
N = 4096  #: elements of each float32 tensor (64 registers: the default mode batches its loops)


def state(ub: rs.UnifiedBuffer) -> tuple[Any, ...]:
    """The UB's bytes, written flags (None: all written) and the core's special registers (no flags made)."""
    s = ub.storage
    return s.data.copy(), s.flags(0, s.data.size), ub.core.snapshot()


def assert_state(ub: rs.UnifiedBuffer, want: tuple[Any, ...]) -> None:
    assert_state_of(state(ub), want)


def assert_state_of(got: tuple[Any, ...], want: tuple[Any, ...]) -> None:
    data, valid, core = got
    assert np.array_equal(data, want[0]), f"UB bytes {np.flatnonzero(data != want[0])[:8]} changed"
    assert (valid is None) == (want[1] is None) and (valid is None or np.array_equal(valid, want[1])), "written flags"
    assert core == want[2], f"special registers: {core} != {want[2]}"


@given(
    steps=st.lists(st.sampled_from(["Add", "Compare", "Duplicate", "CmpMask", "VectorMask"]), max_size=4),
    counts=st.lists(st.integers(1, N), min_size=5, max_size=5),
    bad=st.integers(0, N - 1),
    sequential=st.booleans(),
    ranged=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_call_failing_midway_changes_nothing(
    steps: list[str], counts: list[int], bad: int, sequential: bool, ranged: bool, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    ub = rs.UnifiedBuffer(8 * N * 4 + 1024)
    x, y, z, w, holey = (ub.alloc(rs.float32, N) for _ in range(5))
    bits, mask = ub.alloc(rs.uint8, N // 8), ub.alloc(rs.uint8, 32)
    for t in (x, y, holey):
        t.set(rng.uniform(-1, 1, N).astype(np.float32))
    z.set(rng.uniform(-1, 1, N // 2).astype(np.float32))  # (half of z written, the rest never)
    hole = holey.addr + bad * 4  # element `bad` never written: its flags cleared in place, or cut from the ranges
    if ranged:
        ub.storage.put_written(hole, hole + 4, np.zeros(4, np.bool_))
    else:
        ub.storage.valid[hole : hole + 4] = False  # type: ignore[index]
    ub.core.vector_mask, ub.core.cmp_mask, ub.core.ar = (int(rng.integers(1, 2**63)), 5), int(rng.integers(1, 2**63)), 96
    before = state(ub)
    wrote = []

    def call() -> None:
        for step, n in zip(steps, counts, strict=False):
            if step == "Add":
                A.Add(z, x, y, n)
            elif step == "Compare":
                A.Compare(bits, x, y, A.CMPMODE.GT, -(-n // 64) * 64)
            elif step == "Duplicate":
                A.Duplicate(w, np.float32(n), n)
            elif step == "CmpMask":
                A.GetCmpMask(mask)
                A.SetCmpMask(x)
            else:
                A.SetVectorMask(rs.float32, n, 0)
        wrote.append(state(ub))
        A.Add(w, x, holey, counts[-1] if counts[-1] > bad else N)  # reads element `bad` of holey: fails there

    with rs.configure(loops="sequential" if sequential else "auto"), pytest.raises(UninitializedReadError):
        keep_unchanged([x, y, z, w, holey, bits, mask], call)
    if steps:  # (the steps did change the state: there was something to put back)
        with pytest.raises(AssertionError):
            assert_state_of(wrote[0], before)
    assert_state(ub, before)
    assert ub.journal is None
    assert not ranged or ub.storage.starts is not None, "the UB's ranges kept"


@pytest.fixture
def journal_costs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The bytes each journal copied, listed as it closes."""
    copied: list[int] = []
    close = Journal.close

    def spy(self: Journal) -> None:
        copied.append(self.copied)
        close(self)

    monkeypatch.setattr(Journal, "close", spy)
    yield copied


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_the_cost_does_not_depend_on_the_ub_size(loops: str, journal_costs: list[int]) -> None:
    n = 1024
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    for size in (248 * 1024, 64 * 2**20):
        ub = rs.UnifiedBuffer(size)
        x, y, z = (ub.alloc(rs.float32, n) for _ in range(3))
        x.set(a)
        y.set(b)
        with rs.configure(loops=loops):
            journals = len(journal_costs)
            A.Add(z, x, y, n)  # (its direct path: no journal, the store its last act after every check)
            assert len(journal_costs) == journals and np.array_equal(z.numpy(), a + b)
            A.Adds(z, x, np.float32(2), n)
        assert np.array_equal(z.numpy(), a + np.float32(2))
    # (at most the destination's bytes; none where the call writes them as its last act, after every check)
    assert journal_costs[0] == journal_costs[1] <= n * 4, "the journal's copies do not depend on the UB's size"
