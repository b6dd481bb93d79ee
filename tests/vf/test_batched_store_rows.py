"""A batched store of every lane, a row an iteration, at `p + i * k`: made at once from the progression the store's
checks found (its hazard box, its note of each row's bytes in a UB with never-written bytes, one waiting store, written
as one slice where its rows lie back to back). Each run is checked against an oracle of its own (the iterations in
order over Python ints, wrapped to uint32 once a lane), against the same kernel run with `loops="sequential"` (UB
bytes, written flags, errors: `run_both`), and against what `rs.explain` says of the loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_support import run_both

import regsim as rs
from regsim import Reg

LANES = 64  #: uint32 lanes in a register


@rs.simd_vf
def doubling(p: rs.UbPtr[rs.uint32], n: int, load_step: int, store_at: int, store_step: int) -> None:
    """Row b: the register loaded from p + b·load_step, doubled, stored at p + store_at + b·store_step."""
    x = Reg.RegTensor(rs.uint32)
    m = Reg.CreateMask(rs.uint32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * load_step)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + store_at + i * store_step, x, m)


def _oracle(start: list[int], n: int, load_step: int, store_at: int, store_step: int) -> list[int]:
    """The tensor after the iterations in order, over Python ints."""
    out = list(start)
    for b in range(n):
        row = out[b * load_step : b * load_step + LANES]
        out[store_at + b * store_step : store_at + b * store_step + LANES] = [(2 * v) % 2**32 for v in row]
    return out


def _world(size: int, ub_bytes: int, n: int, forms: tuple[int, int, int], seed: int) -> Any:
    """A fresh UB of `ub_bytes` and a uint32 tensor of `size` elements at its start, set from a seeded generator; the
    kernel's run and the tensor's start and oracle."""
    start = [int(v) for v in np.random.default_rng(seed).integers(0, 2**32, size, dtype=np.uint64)]

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(ub_bytes)
        t = ub.alloc(rs.uint32, size)
        t.set(np.array(start, np.uint32))

        def run() -> list[int]:
            doubling(t.GetPhyAddr(), n, *forms)
            return [int(v) for v in t.numpy()]

        return ub, run

    return make, _oracle(start, n, *forms)


@pytest.mark.parametrize("partial", [True, False], ids=["some UB bytes never written", "every UB byte written"])
@pytest.mark.parametrize(
    "forms",
    [
        (2 * LANES, LANES, 2 * LANES),  # rows apart: each store just past its own load, boxes of one step
        (LANES, 8 * LANES, LANES),  # rows back to back (one slice), far from the loads
        (2 * LANES, LANES, 4 * LANES),  # steps that differ: the boxes overlap, the rows never do (the exact check)
    ],
    ids=["apart", "back to back", "interleaved"],
)
def test_a_plain_batched_store_gives_the_in_order_bytes_flags_and_notes(partial: bool, forms: tuple[int, int, int]) -> None:
    n = 6
    size = 32 * LANES
    make, expected = _world(size, 4 * size * (4 if partial else 1), n, forms, seed=n + forms[0] + forms[2])
    decisions, got = run_both(make)
    assert got == expected
    assert [(d.how, d.iterations) for d in decisions] == [("batched", n)], [str(d) for d in decisions]


def test_the_same_site_with_rows_that_meet_runs_in_order_and_still_matches() -> None:
    """A store whose row b + 1 writes what row b + 2 loads: a hazard between iterations, so in order, the bits the
    oracle's."""
    forms = (LANES, 2 * LANES + LANES, LANES)  # store b at 3·LANES + b·LANES: load b + 3 reads it
    make, expected = _world(16 * LANES, 4 * 16 * LANES * 4, 6, forms, seed=3)
    decisions, got = run_both(make)
    assert got == expected
    assert [(d.how, d.iterations) for d in decisions] == [("sequential", 6)], [str(d) for d in decisions]
    assert "another iteration writes" in decisions[0].why, decisions[0].why


def test_a_store_read_back_in_the_same_iteration_is_made_before_the_read() -> None:
    """Row b stores where row b then loads again (the waiting store is made first), then stores that doubled again
    half a tensor on."""

    @rs.simd_vf
    def twice(p: rs.UbPtr[rs.uint32], n: int) -> None:
        x, y, m = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.CreateMask(rs.uint32)
        for i in range(n):
            row = p + i * LANES
            Reg.LoadAlign(x, row)
            Reg.Add(x, x, x, m)
            Reg.StoreAlign(row, x, m)
            Reg.LoadAlign(y, row)
            Reg.Add(y, y, y, m)
            Reg.StoreAlign(p + 8 * LANES + i * LANES, y, m)

    n, size = 5, 16 * LANES
    start = [int(v) for v in np.random.default_rng(9).integers(0, 2**32, size, dtype=np.uint64)]
    expected = list(start)
    for k in range(n * LANES):
        expected[k] = (2 * start[k]) % 2**32
        expected[8 * LANES + k] = (4 * start[k]) % 2**32

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(4 * size * 4)
        t = ub.alloc(rs.uint32, size)
        t.set(np.array(start, np.uint32))

        def run() -> list[int]:
            twice(t.GetPhyAddr(), n)
            return [int(v) for v in t.numpy()]

        return ub, run

    decisions, got = run_both(make)
    assert got == expected
    assert [(d.how, d.iterations) for d in decisions] == [("batched", n)], [str(d) for d in decisions]


# --- what the batched attempt must not add or leave out --------------------------------------------------------------
@rs.simd_vf
def accumulate(p: rs.UbPtr[rs.uint32], n: int, count: rs.Ref[int]) -> None:
    """acc = acc + x over rows, acc made before the loop and never written: its lanes read only where active."""
    acc = Reg.RegTensor(rs.uint32)
    x = Reg.RegTensor(rs.uint32)
    for i in range(n):
        m = Reg.UpdateMask(rs.uint32, count)
        Reg.LoadAlign(x, p + i * LANES)
        Reg.Add(acc, x, acc, m)


@pytest.mark.parametrize("count", [0, 1])
def test_a_carried_register_never_written_runs_in_order(count: int) -> None:
    """No active lane (count 0): nothing read, no error; one active lane: iteration 0 raises, the same error in both
    modes (`run_both` compares them). Either way the loop runs in order for the never-written lanes, never for a
    regsim bug."""
    size, n = 8 * LANES, 4
    start = [int(v) for v in np.random.default_rng(count).integers(0, 2**32, size, dtype=np.uint64)]

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(4 * size * 4)
        t = ub.alloc(rs.uint32, size)
        t.set(np.array(start, np.uint32))

        def run() -> list[int]:
            accumulate(t.GetPhyAddr(), n, rs.Ref(count))
            return [int(v) for v in t.numpy()]

        return ub, run

    decisions, got = run_both(make)
    assert got == (None if count else start)
    assert [d.how for d in decisions] == ["sequential"], [str(d) for d in decisions]
    assert "never-written lanes" in decisions[0].why, decisions[0].why
    if count:
        _, run = make()
        with rs.configure(loops="sequential"), pytest.raises(rs.errors.UninitializedReadError, match="never written"):
            run()


@rs.simd_vf
def scattered(dst: rs.UbPtr[rs.half], src: rs.UbPtr[rs.half], n: int) -> None:
    """Row b scatters a register to dst + b·VL (lane k to element k); then a read of the register past them, never
    written."""
    x = Reg.RegTensor(rs.half)
    ii = Reg.RegTensor(rs.int16)
    m = Reg.CreateMask(rs.half)
    Reg.Arange(ii, 0)
    for i in range(n):
        Reg.LoadAlign(x, src + i * 2 * LANES)
        Reg.Scatter(dst + i * 2 * LANES, x, ii.reinterpret(rs.uint16), m)
    Reg.LoadAlign(x, dst + n * 2 * LANES)
    Reg.Add(x, x, x, m)


def test_a_batched_scatter_is_named_by_a_later_error_as_in_order() -> None:
    """A UB with never-written bytes: the error of the read past the scattered rows names the scatter as the last writer
    of the bytes before them, in both modes alike (`run_both` compares the messages)."""
    n, size = 3, 8 * 2 * LANES

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(4 * size * 2)
        src, dst = ub.alloc(rs.half, size), ub.alloc(rs.half, size)
        src.set(np.arange(size) % 7)

        def run() -> None:
            scattered(dst.GetPhyAddr(), src.GetPhyAddr(), n)

        return ub, run

    decisions, _ = run_both(make)
    assert [d.how for d in decisions] == ["batched"], [str(d) for d in decisions]
    _, run = make()
    with pytest.raises(rs.errors.UninitializedReadError, match=r"before them were last written by Scatter at .*iteration 2"):
        run()


@rs.simd_vf
def two_register_tail(dst: rs.UbPtr[rs.uint64], src: rs.UbPtr[rs.uint64], n: int, count: int) -> None:
    """Row b stores the first `count` of a two-register uint64 tensor's 64 elements at dst + b·64 (lanes in both
    registers); then a load past the rows, never written, is stored (the error names the rows' last store)."""
    x = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    left = rs.Ref(count)
    m = Reg.UpdateMask(rs.uint64, left, trait=Reg.RegTraitNumTwo)
    for i in range(n):
        Reg.LoadAlign(x, src + i * LANES)
        Reg.StoreAlign(dst + i * LANES, x, m)
    Reg.LoadAlign(x, dst + n * LANES)
    Reg.StoreAlign(src, x, m)


@pytest.mark.parametrize("count", [1, 40])
def test_a_two_register_store_under_a_tail_mask_is_noted_as_one_of_64_lanes(count: int) -> None:
    """A two-register store of some lanes into a UB with never-written bytes is noted as in order: one note of the
    row's lanes in both registers, of 64 (it was noted as two halves of 32, each with its own count). Oracle: `count`
    of the 64 uint64 lanes are active, in the first register up to 32 and the rest in the second."""
    n, size = 3, 8 * LANES

    def make() -> tuple[rs.UnifiedBuffer, Any]:
        ub = rs.UnifiedBuffer(4 * size * 8)
        src, dst = ub.alloc(rs.uint64, size), ub.alloc(rs.uint64, size)
        src.set(np.arange(size, dtype=np.uint64))

        def run() -> None:
            two_register_tail(dst.GetPhyAddr(), src.GetPhyAddr(), n, count)

        return ub, run

    decisions, _ = run_both(make)
    assert [d.how for d in decisions] == ["batched"], [str(d) for d in decisions]
    _, run = make()
    with pytest.raises(rs.errors.UninitializedReadError, match=rf"iteration {n - 1} \(a mask of {count} of 64 lanes\)"):
        run()
