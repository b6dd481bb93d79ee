"""A traced call in a batched loop runs its signature's per-signature call, the one a loop with no trace runs
(`trace._planned`: LoadAlign's and StoreAlign's plain paths, elementwise ops unbound), not the executor's generic
run; an exact box's rows are kept as the box (`trace.BoxRows`), their arrays made when read. A traced elementwise op
in order runs its in-order closure, the one a VF with no trace runs, its predicate's active lanes noted before it.

The oracle is the generic run (every batched call through the executor's `run` on its bound operands): the records
(API, operands, line, active lanes, UB ranges, rows, iterations, each access's rows and boxes, a gather's lanes) and
the profiles made of them must be identical, in both loop modes; and the rows of the sample's loads and stores are
those its source gives (each iteration's pointer plus 64 floats an iteration, computed here in Python ints).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.cost import banks
from regsim._src.engine.per_iteration import Affine
from regsim._src.vf import trace as tracing
from vf_examples import bank_conflict_3510 as bc

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@rs.simd_vf
def tail_add(d: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.uint32], b: rs.UbPtr[rs.uint32], count: int, trips: int) -> None:
    """UpdateMask's tail: the last row's store masked (its box only bounds its bytes), a MaskReg store a row."""
    x, y, z = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    carry = Reg.CreateMask(rs.uint8)
    n = rs.Ref(count)
    for i in range(trips):
        mask = Reg.UpdateMask(rs.uint32, n)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(carry, z, x, y, mask)
        Reg.StoreAlign(d.reinterpret(rs.uint32) + 64 * trips + i * 8, carry, dist=Reg.MaskDist.DIST_NORM)
        Reg.StoreAlign(d + i * 64, z, mask)


@rs.simd_vf
def post_select(x: rs.UbPtr[rs.uint32], y: rs.UbPtr[rs.uint32], z: rs.UbPtr[rs.uint32], trips: int) -> None:
    """Post-update loads and store, 64 elements a row (iteration 0 in order, the others batched)."""
    every = Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.ALL)
    xr, yr, zr, gt = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.CreateMask(rs.uint32)
    for _ in range(trips):
        Reg.LoadAlign(xr, x, 64, post_mode=UPDATE)
        Reg.LoadAlign(yr, y, 64, post_mode=UPDATE)
        Reg.Compare(gt, xr, yr, every, mode=Reg.CMPMODE.GT)
        Reg.Select(zr, xr, yr, gt)
        Reg.StoreAlign(z, zr, 64, every, post_mode=UPDATE)


@rs.simd_vf
def masks_in_order(x: rs.UbPtr[rs.uint32], y: rs.UbPtr[rs.uint32], z: rs.UbPtr[rs.uint32], trips: int) -> None:
    """CreateMask, Compare and Select in order (a loop too short to batch): a partial pattern, the compare's lanes
    under it, a select on them, and a select of a register written only on its mask's lanes (its closure gives way
    to `run`)."""
    first = Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.VL16)
    xr, yr, zr, gt = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.CreateMask(rs.uint32)
    for i in range(trips):
        part = Reg.RegTensor(rs.uint32)  # (written below on the compare's lanes only)
        Reg.LoadAlign(xr, x + i * 64)
        Reg.LoadAlign(yr, y + i * 64)
        Reg.Compare(gt, xr, yr, first, mode=Reg.CMPMODE.GT)
        Reg.Select(zr, xr, yr, gt)
        Reg.Add(part, xr, yr, gt, mode=Reg.MaskMergeMode.MERGING)
        Reg.Select(zr, part, zr, gt)
        Reg.StoreAlign(z + i * 64, zr, first)


def _ours(trips: int, vf: Callable[..., None]) -> Callable[[], tuple[Callable[..., None], tuple[Any, ...]]]:
    """A VF of this file on a fresh UB of three uint32 tensors (random, seeded) and its arguments."""

    def make() -> tuple[Callable[..., None], tuple[Any, ...]]:
        rng = np.random.default_rng(trips)
        ub = rs.UnifiedBuffer(size=3 * 64 * 4 * trips + 4 * 8 * trips + 256)
        a, b = (ub.alloc(rs.uint32, 64 * trips) for _ in range(2))
        d = ub.alloc(rs.uint32, 64 * trips + 8 * trips)
        for t in (a, b, d):
            t.set(rng.integers(0, 2**32, t.size, dtype=np.uint64).astype(np.uint32))
        ptrs = (d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr())
        if vf in (post_select, masks_in_order):
            return vf, (ptrs[1], ptrs[2], ptrs[0], trips)
        return vf, (*ptrs, 64 * trips - 5, trips)

    return make


def _sample(case: int) -> Callable[[], tuple[Callable[..., None], tuple[Any, ...]]]:
    def make() -> tuple[Callable[..., None], tuple[Any, ...]]:
        x, y = bc.inputs(case, np.random.default_rng(case))
        _, args, vf = bc.setup(case, x, y)
        return vf, args

    return make


@rs.simd_vf
def carry_into_mask(d: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.uint32], b: rs.UbPtr[rs.uint32], count: int, trips: int) -> None:
    """Elementwise ops in order: the carry written over its own predicate (the next op's predicate its lanes), a
    partial predicate (UpdateMask's tail), merging ops, a scalar op, one of three inputs, and a register whose
    inactive lanes were never written (the next op's closure gives way to `run`)."""
    x, y, z = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    n = rs.Ref(count)
    for i in range(trips):
        mask = Reg.UpdateMask(rs.uint32, n)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(mask, z, x, y, mask)
        Reg.Adds(z, z, 3, mask)
        Reg.Add(z, z, x, mask, mode=Reg.MaskMergeMode.MERGING)
        Reg.MulAddDst(z, x, y, mask)
        w = Reg.RegTensor(rs.uint32)
        Reg.Add(w, x, y, mask, mode=Reg.MaskMergeMode.MERGING)
        Reg.Add(z, z, w, mask)
        Reg.StoreAlign(d + i * 64, z, mask)


WORK = {
    "case 1 (unrolled)": _sample(1),
    "case 6": _sample(6),
    "case 10 (gather, scatter)": _sample(10),
    "case 12 (DataBlock)": _sample(12),
    "UpdateMask tail": _ours(20, tail_add),
    "post-update": _ours(20, post_select),
    "carry into its mask": _ours(12, carry_into_mask),
    "masks in order": _ours(4, masks_in_order),
}


@pytest.fixture(params=["sequential", "auto"])
def mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every loop in order, or batched where exact (8 iterations and more)."""
    with rs.configure(loops=request.param, batch_min_iterations=8):
        yield request.param


def _slow(plan: Any, values: Any) -> tuple[Any, str, Callable[..., Any], None]:
    """`_planned` with the generic run only (what a traced call ran before it took the plain paths: in a batched loop,
    and in order for an elementwise op)."""
    plan, shown, *_ = _PLANNED(plan, values)
    return plan, shown, lambda ctx, values, kwargs: plan.run(ctx, plan, values), None


_PLANNED = tracing._planned


def _plain(x: Any) -> Any:
    """A record's field as plain values: arrays as lists, an Affine as its rows, a span as a tuple."""
    if isinstance(x, Affine):
        return ("rows", x.values.tolist())
    if isinstance(x, np.ndarray):
        return (str(x.dtype), x.tolist())
    if isinstance(x, (list, tuple, tracing.BoxRows)):
        return tuple(_plain(v) for v in x)
    return x


def _records(make: Callable[[], tuple[Callable[..., None], tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    vf, args = make()
    with tracing.trace(detailed=True) as t:
        vf(*args)
    fields = ("api", "dtypes", "line", "active", "lanes", "reads", "writes", "rows", "family", "iteration")
    return [(*(_plain(getattr(r, f)) for f in fields), _plain(r.spans), _plain(r.boxes), _plain(r.points)) for r in t.records]


def _slowly(f: Callable[[], Any]) -> Any:
    tracing._PLANS.clear()
    try:
        with mock.patch.object(tracing, "_planned", _slow):
            return f()
    finally:
        tracing._PLANS.clear()


@pytest.mark.parametrize("name", list(WORK))
def test_traced_calls_record_as_the_generic_run(name: str, mode: str) -> None:
    """The records, and the profile, of a VF traced with the per-signature calls are the generic run's."""
    make = WORK[name]
    got = _records(make)
    want = _slowly(lambda: _records(make))
    assert got == want
    batched = [r for r in got if r[7] > 1]
    # (a scatter; a register made in the body: in order)
    in_order = ("case 10 (gather, scatter)", "carry into its mask", "masks in order")
    assert bool(batched) == (mode == "auto" and name not in in_order)

    def profile() -> rs.Profile:
        vf, args = make()
        return rs.profile(vf, *args)

    p, q = profile(), _slowly(profile)
    assert (p.counts, p.bytes, p.cycles, p.pipe_cycles) == (q.counts, q.bytes, q.cycles, q.pipe_cycles)
    assert p.bank_conflicts == q.bank_conflicts and p.vfs == q.vfs and p.spans == q.spans


def test_plain_paths_taken_and_rows_as_the_source_gives() -> None:
    """Case 6 batched: LoadAlign and StoreAlign ran their plain paths, and each record's rows are the sample's
    addresses: x, y and z at config.h's UB addresses, 256 bytes (64 floats) an iteration."""
    with rs.configure(loops="batched"):
        vf, args = _sample(6)()
        tracing._PLANS.clear()
        with tracing.trace(detailed=True) as t:
            vf(*args)
    taken = {plan.spec.key: call.__name__ for plan, _, call, _ in tracing._PLANS.values()}
    assert taken["LoadAlign"] == "call" and taken["StoreAlign"] == "call"  # (not `generic`)
    _, xa, ya, za = bc.CASES[6]
    memory = [r for r in t.records if r.spans]
    assert [(r.api, r.rows) for r in memory] == [("LoadAlign", 64), ("LoadAlign", 64), ("StoreAlign", 64)]
    for r, base in zip(memory, (xa, ya, za), strict=True):
        (span,) = r.spans
        write, lo, hi, at = span
        assert write == (r.api == "StoreAlign")
        assert lo.tolist() == [base + 256 * i for i in range(64)] and hi.tolist() == [base + 256 * i + 256 for i in range(64)]
        assert at.tolist() == list(range(64)) and r.boxes == [(base, 256, 256)]
        assert (r.writes if write else r.reads) == [(base, base + 256 * 64)]


def test_in_order_elementwise_calls_take_their_closures() -> None:
    """In order, a traced elementwise op runs its in-order closure (`binary`, the two-input one) where a VF with no
    trace runs it, and the records give each its predicate's active lanes: the sample's own count, 64 - 5 lanes in
    the last iteration's UpdateMask, and after the carry its lanes (the carry's, an independent sum in Python ints)."""
    make = WORK["carry into its mask"]
    with rs.configure(loops="sequential"):
        tracing._PLANS.clear()
        got = _records(make)
    taken = {plan.spec.key: fast[0].__name__ for plan, _, _, fast in tracing._PLANS.values() if fast is not None}
    assert taken["Adds"] == "binary" and taken["Add"] == "binary"
    _, (*_, count, trips) = make()
    rng = np.random.default_rng(trips)  # (the inputs `_ours` made, again)
    xs, ys = (rng.integers(0, 2**32, 64 * trips, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    adds = [r for r in got if r[0] == "Adds"]
    for i, r in enumerate(adds):
        live = min(64, count - 64 * i)
        carries = sum(int(xs[64 * i + k]) + int(ys[64 * i + k]) >= 2**32 for k in range(live))
        assert (r[3], r[4]) == (carries, 64)


def test_in_order_masks_compares_and_selects_take_their_closures() -> None:
    """In order, a traced CreateMask, Compare and Select run their in-order closures where a VF with no trace runs
    them, and the records give each the lanes its `run` notes: the pattern's 16 of 64, the compare's predicate's 16,
    and each select's mask's lanes, those of the 16 where x > y (counted here in Python ints)."""
    make = WORK["masks in order"]
    with rs.configure(loops="sequential"):
        tracing._PLANS.clear()
        got = _records(make)
    taken = {plan.spec.key: fast[0].__name__ for plan, _, _, fast in tracing._PLANS.values() if fast is not None}
    assert (taken["CreateMask"], taken["Compare"], taken["Select"]) == ("call", "binary", "call")
    _, (*_, trips) = make()
    rng = np.random.default_rng(trips)  # (the inputs `_ours` made, again)
    xs, ys = (rng.integers(0, 2**32, 64 * trips, dtype=np.uint64).astype(np.uint32) for _ in range(2))
    greater = [sum(int(xs[64 * i + k]) > int(ys[64 * i + k]) for k in range(16)) for i in range(trips)]
    assert [(r[3], r[4]) for r in got if r[0] == "CreateMask"] == [(16, 64), (64, 64)]
    assert [(r[3], r[4]) for r in got if r[0] == "Compare"] == [(16, 64)] * trips
    assert [(r[3], r[4]) for r in got if r[0] == "Select"] == [(n, 64) for n in greater for _ in range(2)]


@pytest.mark.parametrize("seed", range(6))
def test_beat_totals_are_their_rows_sums(seed: int) -> None:
    """A beat judged for its first rows and repeated (`affine_beat`) carries its totals, summed from the rows it
    stands for; they are its rows' arrays summed (numpy's sums), and kept beats keep them."""
    rng = np.random.default_rng(seed)
    geo = banks.Geometry()
    rows = int(rng.integers(2, 70))
    step = int(rng.choice([32, 64, 96, 256, 288, 512]))
    accesses = [(i, bool(rng.integers(2)), int(rng.integers(0, 64)) * 32, step, int(rng.choice([32, 64, 256]))) for i in range(3)]
    banks._BEATS.clear()
    result = banks.kept_affine_beat(geo, accesses, rows)
    assert result is not None and result.summed is not None
    assert result.summed == (int(result.cycles.sum()), rows, tuple(result.kinds.sum(axis=0).tolist()))
    again = banks.kept_affine_beat(geo, accesses, rows)
    assert again is not None and again.summed == result.summed
