"""A loop whose batched attempt finds its iterations dependent through the UB: its site predicts the hazard for its next
runs (in order without an attempt, 1 run, then 2, 4, ... up to HAZARD_WAIT; a batched run forgets it; "auto" mode
only), and a store whose rows meet an earlier access's for certain stops the attempt at once. Every run's bits are
checked against an oracle of Python ints (the iterations in order, each lane wrapped to int32 once), and what
`rs.explain` says against the policy (docs/decisions/loops.md#hazard-prediction).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.vf import addresses, batched, loops
from regsim._src.vf.loops import HAZARD_WAIT, forget_hazards
from tests.loop_support import run_both

LANES = 64  #: int32 lanes a register
SIZE = 64 * LANES  #: int32 elements of the test tensor
FAILED, SKIPPED, BATCHED = "attempt failed", "skipped", "batched"


@rs.simd_vf
def doubled(src: rs.UbPtr[rs.int32], dst: rs.UbPtr[rs.int32], n: int) -> None:
    """Row i of dst = 2 * row i of src (dst one row after src: each iteration loads what the one before stored)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, src + i * LANES)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(dst + i * LANES, x, m)


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def doubled_oracle(start: list[int], src: int, dst: int, n: int) -> list[int]:
    out = list(start)
    for b in range(n):
        row = out[src + b * LANES : src + (b + 1) * LANES]
        out[dst + b * LANES : dst + (b + 1) * LANES] = [wrap(2 * v) for v in row]
    return out


class World:
    """One int32 tensor filling its UB (random values), `doubled` run over it, each run's bits checked."""

    def __init__(self, seed: int) -> None:
        self.ub = rs.UnifiedBuffer(SIZE * 4)
        self.t = self.ub.alloc(rs.int32, SIZE)
        self.t.set(np.random.default_rng(seed).integers(-(2**31), 2**31, SIZE, dtype=np.int64).astype(np.int32))

    def run(self, dst: int, n: int = 4, explain: bool = True) -> str:
        """`doubled` from row 0 to element offset `dst` (LANES: dependent; 0: in place; far: apart); what rs.explain
        says of its loop ("" unexplained)."""
        start = [int(v) for v in self.t.numpy()]
        p = self.t.GetPhyAddr()
        text = rs.explain(doubled, p, p + dst, n) if explain else ""
        if not explain:
            doubled(p, p + dst, n)
        assert [int(v) for v in self.t.numpy()] == doubled_oracle(start, 0, dst, n)
        return text


def kind(text: str) -> str:
    if "in order without a batched attempt" in text:
        return SKIPPED
    if "sequential" in text and batched.READS_ANOTHERS in text:
        return FAILED
    assert "batched (" in text, text
    return BATCHED


def expected_attempts(runs: int) -> list[int]:
    """The runs (0-based) of an always dependent loop that attempt: 0, then after 1, 2, 4, ... HAZARD_WAIT runs."""
    out, wait, at = [], 0, 0
    while at < runs:
        out.append(at)
        wait = min(2 * wait, HAZARD_WAIT) if wait else 1
        at += wait + 1
    return out


def test_a_dependent_loop_attempts_after_1_2_4_runs_and_so_on_and_explain_says_when() -> None:
    world = World(1)
    texts = [world.run(LANES) for _ in range(80)]
    attempts = expected_attempts(80)
    assert attempts[:8] == [0, 2, 5, 10, 19, 36, 69, 102][: len(attempts)]
    assert [kind(t) for t in texts] == [FAILED if r in attempts else SKIPPED for r in range(80)], texts
    for j, r in enumerate(attempts):  # what each failed attempt predicts: 1, 2, 4, ... runs in order
        wait = min(2**j, HAZARD_WAIT)
        said = "the next run goes" if wait == 1 else f"the next {wait} runs go"
        assert f"(so {said} in order without an attempt)" in texts[r], texts[r]
    for r, text in enumerate(texts):
        if r in attempts:
            continue
        nxt = min(a for a in [*attempts, 10**9] if a > r)
        assert batched.READS_ANOTHERS in text, text  # (the hazard it predicts)
        more = re.search(r"; (\d+) more in order, then it attempts again$", text)
        said = r + 1 + (0 if more is None else int(more.group(1)))  # the run it says attempts next
        assert more is not None or text.endswith("the next run attempts again"), text
        assert nxt == 10**9 or said == nxt, (r, text)


def test_the_policy_is_the_same_unexplained(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs outside rs.explain skip and attempt alike: the attempts are the batched backends made and the looks at the
    addresses that found the hazard (this loop's every attempt is such a look: no backend is made)."""
    made: list[int] = []
    judged: list[str] = []

    class Counting(batched.BatchedBackend):
        def __init__(self, *args: Any) -> None:
            made.append(1)
            super().__init__(*args)

    looked = addresses.judge

    def judge(*args: Any) -> str:
        judged.append(looked(*args))
        return judged[-1]

    monkeypatch.setattr(loops, "BatchedBackend", Counting)
    monkeypatch.setattr(addresses, "judge", judge)
    world = World(2)
    for _ in range(80):
        world.run(LANES, explain=False)
    assert made == [] and judged == [batched.READS_ANOTHERS] * len(expected_attempts(80))


def test_a_batched_run_forgets_the_hazard_and_a_one_off_hazard_costs_one_run() -> None:
    """Apart / in place batch; a dependent call (in place shifted by a row, once) sends the next run in order, the one
    after attempts and batches, which resets the wait: the next hazard buys 1 run again."""
    world = World(3)
    far = 32 * LANES
    calls = [far, LANES, far, 0, LANES, LANES, LANES, far, far, far, LANES, far, far]
    want = [BATCHED, FAILED, SKIPPED, BATCHED, FAILED, SKIPPED, FAILED, SKIPPED, SKIPPED, BATCHED, FAILED, SKIPPED]
    want.append(BATCHED)
    assert [kind(world.run(dst)) for dst in calls] == want


def test_a_new_trip_count_or_signature_keeps_the_prediction_and_forget_hazards_drops_it() -> None:
    world = World(4)
    assert kind(world.run(LANES, n=4)) == FAILED
    assert kind(world.run(LANES, n=7)) == SKIPPED  # (another trip count: the int n in the static signature too)
    assert kind(world.run(LANES, n=5)) == FAILED
    assert kind(world.run(LANES, n=5)) == SKIPPED
    forget_hazards()
    assert kind(world.run(LANES, n=5)) == FAILED


def test_forced_batched_still_attempts_and_raises_and_predicts_nothing() -> None:
    world = World(5)
    before = world.t.numpy().copy()
    p = world.t.GetPhyAddr()
    for _ in range(3):
        with rs.configure(loops="batched"), pytest.raises(rs.errors.VfContextError, match=batched.READS_ANOTHERS):
            doubled(p, p + LANES, 4)
        assert np.array_equal(world.t.numpy(), before)  # (the attempt rolled back, nothing run in order)
    assert kind(world.run(LANES)) == FAILED  # (the auto run after them attempts: they left no prediction)


def test_sequential_runs_neither_attempt_nor_count_as_predicted_runs() -> None:
    world = World(6)
    assert kind(world.run(LANES)) == FAILED
    for _ in range(3):
        with rs.configure(loops="sequential"):
            assert 'sequential (4 iterations): loops="sequential"' in world.run(LANES)
    assert kind(world.run(LANES)) == SKIPPED
    assert kind(world.run(LANES)) == FAILED


# --- the early exit -------------------------------------------------------------------------------------------------


@rs.simd_vf
def two_stores(p: rs.UbPtr[rs.int32], q: rs.UbPtr[rs.int32], n: int, load: int, store: int, gap: int) -> None:
    """Row i: x = p[i·load ...] doubled, stored at p + i·store + gap; x·3 stored at q + i·LANES (after the first)."""
    x, y = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * load)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + i * store + gap, x, m)
        Reg.Muls(y, x, 3, m)
        Reg.StoreAlign(q + i * LANES, y, m)


@rs.simd_vf
def masked_store(p: rs.UbPtr[rs.int32], n: int, active: int) -> None:
    """Row i: loads row i, stores its double from half a row on with `active` lanes on (its box reaches into row i + 1,
    whose load it meets only if more than half the lanes are on)."""
    x = Reg.RegTensor(rs.int32)
    m = Reg.UpdateMask(rs.int32, rs.Ref(active))
    every = Reg.CreateMask(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * LANES)
        Reg.Add(x, x, x, every)
        Reg.StoreAlign(p + i * LANES + LANES // 2, x, m)


@rs.simd_vf
def reread(p: rs.UbPtr[rs.int32]) -> None:
    x = Reg.RegTensor(rs.int32)
    Reg.LoadAlign(x, p)
    Reg.Add(x, x, x, Reg.CreateMask(rs.int32))


def two_stores_oracle(mem: list[int], q: int, n: int, load: int, store: int, gap: int) -> list[int]:
    out = list(mem)
    for b in range(n):
        x = [wrap(2 * v) for v in out[b * load : b * load + LANES]]
        out[b * store + gap : b * store + gap + LANES] = x
        out[q + b * LANES : q + (b + 1) * LANES] = [wrap(3 * v) for v in x]
    return out


def masked_oracle(mem: list[int], n: int, active: int) -> list[int]:
    out = list(mem)
    for b in range(n):
        x = [wrap(2 * v) for v in out[b * LANES : (b + 1) * LANES]]
        at = b * LANES + LANES // 2
        out[at : at + active] = x[:active]
    return out


Q = 48 * LANES  #: where two_stores' second store goes (its q)


def world(call: Callable[[Any], None], written: int = SIZE, seed: int = 0) -> Callable[[], tuple[rs.UnifiedBuffer, Any]]:
    """A `make` for run_both: a fresh UB whose tensor has its first `written` elements set, `call(p)` run on it; the
    tensor's values after it as the result."""

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(SIZE * 4)
        t = ub.alloc(rs.int32, SIZE)
        t.set(np.random.default_rng(seed).integers(-(2**31), 2**31, written, dtype=np.int64).astype(np.int32))

        def run() -> list[int]:
            call(t.GetPhyAddr())
            return [int(v) for v in t.numpy()]

        return ub, run

    return make


def start(seed: int) -> list[int]:
    return [int(v) for v in np.random.default_rng(seed).integers(-(2**31), 2**31, SIZE, dtype=np.int64).astype(np.int32)]


@pytest.fixture
def final_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many batched attempts reached the loop's end's hazard check."""
    calls: list[int] = []
    original = batched.BatchedBackend.check_independent

    def counting(self: batched.BatchedBackend) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(batched.BatchedBackend, "check_independent", counting)
    return calls


@pytest.mark.parametrize(
    ("load", "store", "gap", "why"),
    [
        (LANES, LANES, LANES, batched.READS_ANOTHERS),  # row i stores where row i + 1 loads
        (LANES, LANES, 3 * LANES, batched.READS_ANOTHERS),  # ... row i + 3 loads (k = 3 of rows 0..5)
        (LANES, LANES, -LANES + 8 * LANES, batched.READS_ANOTHERS),  # row 0 stores where row 7 loads (the last)
        (LANES, LANES // 2, 40 * LANES, batched.WRITTEN_TWICE),  # rows half a row apart: the store's own overlap
    ],
    ids=["next row", "3 rows on", "the last row", "written twice"],
)
def test_a_certain_hazard_stops_the_attempt_at_the_store(
    load: int, store: int, gap: int, why: str, final_checks: list[int]
) -> None:
    n = 8
    make = world(lambda p: two_stores(p, p + Q, n, load, store, gap), seed=gap)
    decisions, got = run_both(make)
    assert got == two_stores_oracle(start(gap), Q, n, load, store, gap)
    assert [(d.how, d.iterations) for d in decisions] == [("sequential", n)] and why in decisions[0].why, decisions
    assert final_checks == []  # (stopped at the store: the Muls and the second store never ran batched)


@pytest.mark.parametrize(
    ("load", "store", "gap", "how"),
    [
        (LANES, LANES, 0, "batched"),  # in place: the boxes overlap, a row meets its own row only
        (2 * LANES, 2 * LANES, LANES, "batched"),  # interleaved: each store between its load and the next
        (2 * LANES, 4 * LANES, LANES, "batched"),  # steps that differ, rows apart: the end's exact check
        (LANES, LANES, 8 * LANES, "batched"),  # just past the last row's load: no row meets another
        (2 * LANES, 3 * LANES, LANES, "sequential"),  # steps that differ and rows that meet: the end's check finds it
    ],
    ids=["in place", "interleaved", "other steps apart", "past the last row", "other steps meeting"],
)
def test_boxes_that_overlap_but_rows_that_do_not_meet_still_batch(load: int, store: int, gap: int, how: str) -> None:
    n = 8
    make = world(lambda p: two_stores(p, p + Q, n, load, store, gap), seed=7 + gap + store)
    decisions, got = run_both(make)
    assert got == two_stores_oracle(start(7 + gap + store), Q, n, load, store, gap)
    assert [(d.how, d.iterations) for d in decisions] == [(how, n)], [str(d) for d in decisions]


@pytest.mark.parametrize(("active", "how"), [(LANES // 2, "batched"), (LANES // 2 + 8, "sequential")])
def test_a_masked_store_is_judged_by_its_active_bytes(active: int, how: str, final_checks: list[int]) -> None:
    """Its box (every lane) reaches into the next row's load; its active lanes do only past half a row: the early
    check leaves it (its box is not exact) to the end's exact check."""
    n = 8
    decisions, got = run_both(world(lambda p: masked_store(p, n, active), seed=active))
    assert got == masked_oracle(start(active), n, active)
    assert [(d.how, d.iterations) for d in decisions] == [(how, n)], [str(d) for d in decisions]
    assert len(final_checks) == 1


def test_an_early_exit_leaves_the_in_order_flags_errors_and_provenance(final_checks: list[int]) -> None:
    """Half the tensor never written, the loop stopped at its store's hazard: the written flags, and the message
    naming which store and iteration last wrote beside a never-written row read after it, are the in-order run's."""
    n = 8

    def call(p: Any) -> None:
        two_stores(p, p + Q, n, LANES, LANES, LANES)  # (row i stores row i + 1, which iteration i + 1 loads)
        reread(p + Q + n * LANES)  # (the row after the second store's: never written)

    decisions, _ = run_both(world(call, written=16 * LANES, seed=9))  # (raises the same error in both modes)
    assert [d.how for d in decisions] == ["sequential"] and batched.READS_ANOTHERS in decisions[0].why
    assert final_checks == []
    ub, run = world(call, written=16 * LANES, seed=9)()
    forget_hazards()  # (its attempt made again: stopped at the store)
    with pytest.raises(rs.errors.UninitializedReadError, match=r"iteration 7 \(a mask of 64 of 64 lanes\)"):
        run()
    mem = start(9)[: 16 * LANES]
    want = two_stores_oracle(mem + [0] * (SIZE - 16 * LANES), Q, n, LANES, LANES, LANES)
    got = ub.storage.data.view(np.int32)
    flags = ub.storage.valid
    written = set(range(16 * LANES)) | set(range(Q, Q + n * LANES))
    assert flags is not None
    for e in range(SIZE):
        assert bool(flags[4 * e]) == (e in written), e
        if e in written:
            assert int(got[e]) == want[e], e
    assert final_checks == []


@rs.simd_vf
def store_then_load(p: rs.UbPtr[rs.int32], q: rs.UbPtr[rs.int32], n: int) -> None:
    """Row i: q's row i stored to p's row i + 1, then p's row i (iteration i - 1's store) loaded, doubled, stored to
    q's row 8 + i."""
    x, y = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    for i in range(n):
        Reg.LoadAlign(x, q + i * LANES)
        Reg.StoreAlign(p + (i + 1) * LANES, x, m)
        Reg.LoadAlign(y, p + i * LANES)
        Reg.Add(y, y, y, m)
        Reg.StoreAlign(q + (8 + i) * LANES, y, m)


def test_a_load_meeting_a_waiting_store_for_certain_stops_before_the_store_is_made(
    final_checks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load of row i meets iteration i - 1's store, which waits: the attempt stops at the load, before it makes
    that store (its undo copy) to read it."""
    copies: list[int] = []
    original = batched.BatchedBackend._write

    def counting(self: batched.BatchedBackend, p: Any, undo: bool) -> None:
        copies.append(undo)
        original(self, p, undo)

    monkeypatch.setattr(batched.BatchedBackend, "_write", counting)
    n = 8
    decisions, got = run_both(world(lambda p: store_then_load(p, p + Q, n), seed=11))
    want = start(11)
    for b in range(n):
        want[(b + 1) * LANES : (b + 2) * LANES] = want[Q + b * LANES : Q + (b + 1) * LANES]
        want[Q + (8 + b) * LANES : Q + (9 + b) * LANES] = [wrap(2 * v) for v in want[b * LANES : (b + 1) * LANES]]
    assert got == want
    assert [d.how for d in decisions] == ["sequential"] and batched.READS_ANOTHERS in decisions[0].why, decisions
    assert final_checks == [] and copies == []
