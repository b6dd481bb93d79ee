"""Batched loops' per-signature calls: the plain path of LoadAlign and StoreAlign (a register or a MaskReg, with or
without a post-update stride) over a progression of addresses, and everything that sends a call back to the generic
run (rows that overlap, a misaligned row, a row outside the tensor, bytes never written, a tail mask).

The oracle is the same kernel run with `loops="sequential"` (every iteration in order): UB bytes, written flags,
errors (class, message, partial state) must be identical, and a loop that can batch must have batched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from loop_support import hows

import regsim as rs
from regsim import Reg

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
LANES = 64  #: uint32 lanes in one register


@rs.simd_vf
def add_carry(
    d0: rs.UbPtr[rs.uint32],
    d1: rs.UbPtr[rs.uint32],
    a: rs.UbPtr[rs.uint32],
    b: rs.UbPtr[rs.uint32],
    count: int,
    trips: int,
    step: int,
) -> None:
    """AddC's AddVF with the rows `step` elements apart: a tail mask, a MaskReg store and a register store a row."""
    x, y, z = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    carry = Reg.CreateMask(rs.uint8)
    n = rs.Ref(count)
    for i in range(trips):
        mask = Reg.UpdateMask(rs.uint32, n)
        Reg.LoadAlign(x, a + i * step)
        Reg.LoadAlign(y, b + i * step)
        Reg.Add(carry, z, x, y, mask)
        Reg.StoreAlign(d1.reinterpret(rs.uint32) + i * 8, carry, dist=Reg.MaskDist.DIST_NORM)
        Reg.StoreAlign(d0 + i * step, z, mask)


@rs.simd_vf
def post_select(x: rs.UbPtr[rs.uint32], y: rs.UbPtr[rs.uint32], z: rs.UbPtr[rs.uint32], trips: int, step: int) -> None:
    """The compare example's loop: post-update loads and store `step` elements a row."""
    every = Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.ALL)
    xr, yr, zr, gt = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.CreateMask(rs.uint32)
    for _ in range(trips):
        Reg.LoadAlign(xr, x, step, post_mode=UPDATE)
        Reg.LoadAlign(yr, y, step, post_mode=UPDATE)
        Reg.Compare(gt, xr, yr, every, mode=Reg.CMPMODE.GT)
        Reg.Select(zr, xr, yr, gt)
        Reg.StoreAlign(z, zr, step, every, post_mode=UPDATE)


@rs.simd_vf
def add_u64(d: rs.UbPtr[rs.uint64], a: rs.UbPtr[rs.uint64], b: rs.UbPtr[rs.uint64], trips: int, step: int) -> None:
    """d = a + b on two-register tensors (RegTraitNumTwo: 64 elements a load), rows `step` elements apart."""
    x, y, z = (Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo) for _ in range(3))
    m = Reg.CreateMask(rs.uint64, trait=Reg.RegTraitNumTwo)
    for i in range(trips):
        Reg.LoadAlign(x, a + i * step)
        Reg.LoadAlign(y, b + i * step)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(d + i * step, z, m)


def _ub(sizes: list[int], written: int, seed: int) -> tuple[rs.UnifiedBuffer, list[rs.LocalTensor[Any]]]:
    """A UB of uint32 tensors of `sizes` elements, the first `written` elements of each set (random), the rest never
    written (the UB's written flags then exist)."""
    rng = np.random.default_rng(seed)
    ub = rs.UnifiedBuffer(size=sum(-(-n * 4 // 256) * 256 for n in sizes))
    tensors = [ub.alloc(rs.uint32, n) for n in sizes]
    for t, n in zip(tensors, sizes, strict=True):
        t.set(rng.integers(0, 2**32, min(n, written), dtype=np.uint32))  # (a prefix of the tensor)
    return ub, tensors


steps = st.sampled_from([LANES, LANES + 8, 2 * LANES, LANES // 2, LANES + 1, LANES - 8])


@settings(max_examples=40, deadline=None)
@given(
    trips=st.integers(2, 20), step=steps, count=st.integers(0, 20 * LANES), slack=st.integers(-LANES, LANES), full=st.booleans()
)
def test_add_carry_calls_give_the_in_order_bits(trips: int, step: int, count: int, slack: int, full: bool) -> None:
    """Rows apart or overlapping, aligned or not, the last row inside its tensor or not, every byte written or not,
    any tail: the default mode leaves what the in-order loop leaves (or raises what it raises)."""
    size = max(LANES, (trips - 1) * step + LANES + slack)
    written = size if full else size - LANES // 2

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub, (a, b, d0, d1) = _ub([size, size, size, 8 * trips], written, trips * 1000 + step)

        def run() -> None:
            with rs.configure(batch_min_iterations=2):
                add_carry(d0.GetPhyAddr(), d1.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), count, trips, step)

        return ub, run

    how, _ = hows(make)
    if full and slack >= 0 and step >= LANES and step % 8 == 0:  # (rows apart, aligned, inside: nothing in the way)
        assert how == ["batched"]


@settings(max_examples=30, deadline=None)
@given(trips=st.integers(2, 20), step=steps, slack=st.integers(-LANES, LANES), full=st.booleans())
def test_post_update_calls_give_the_in_order_bits(trips: int, step: int, slack: int, full: bool) -> None:
    """Post-update loads and stores (iteration 0 in order, the others batched through posted pointers)."""
    size = max(LANES, (trips - 1) * step + LANES + slack)
    written = size if full else size - LANES // 2

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub, (x, y, z) = _ub([size, size, size], written, trips * 1000 + step)

        def run() -> None:
            with rs.configure(batch_min_iterations=2):
                post_select(x.GetPhyAddr(), y.GetPhyAddr(), z.GetPhyAddr(), trips, step)

        return ub, run

    how, _ = hows(make)
    if full and slack >= 0 and step >= LANES and step % 8 == 0 and trips > 2:
        assert how == ["batched"]


@settings(max_examples=25, deadline=None)
@given(trips=st.integers(2, 12), step=st.sampled_from([64, 68, 128, 32, 65]), slack=st.integers(-64, 64), full=st.booleans())
def test_two_register_loads_give_the_in_order_bits(trips: int, step: int, slack: int, full: bool) -> None:
    """Two-register loads (whole uint64 elements) through the plain path or the generic run."""
    size = max(64, (trips - 1) * step + 64 + slack)
    written = size if full else size - 16

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        rng = np.random.default_rng(trips * 1000 + step)
        ub = rs.UnifiedBuffer(size=3 * -(-size * 8 // 256) * 256)
        a, b, d = (ub.alloc(rs.uint64, size) for _ in range(3))
        for t in (a, b, d):
            t.set(rng.integers(0, 2**64, min(size, written), dtype=np.uint64))

        def run() -> None:
            with rs.configure(batch_min_iterations=2):
                add_u64(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), trips, step)

        return ub, run

    how, _ = hows(make)
    if full and slack >= 0 and step >= 64 and step % 4 == 0:
        assert how == ["batched"]


def _world(
    dtype: Any, arrays: tuple[Any, ...], kernel: Callable[..., None], *args: int
) -> Callable[[], tuple[rs.UnifiedBuffer, Callable[[], list[int]]]]:
    """`make` for `hows`: a UB of three tensors d, a, b holding `arrays` (every byte written: a UB its stores complete
    would have its written flags summarised differently by the two modes), and a run of `kernel(d, a, b, *args)`
    batching loops of 2 or more iterations that gives d's elements as Python ints."""

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], list[int]]]:
        ub = rs.UnifiedBuffer(size=sum(a.nbytes for a in arrays))
        d, a, b = (ub.alloc(dtype, v.size) for v in arrays)
        for t, v in zip((d, a, b), arrays, strict=True):
            t.set(v)

        def run() -> list[int]:
            with rs.configure(batch_min_iterations=2):
                kernel(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), *args)
            return [int(v) for v in d.numpy()]

        return ub, run

    return make


@rs.simd_vf
def add_u64_tail(d: rs.UbPtr[rs.uint64], a: rs.UbPtr[rs.uint64], b: rs.UbPtr[rs.uint64], count: int, trips: int) -> None:
    """d = a + b on two-register tensors under a tail mask (UpdateMask of uint64, RegTraitNumTwo), rows back to back."""
    x, y, z = (Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo) for _ in range(3))
    n = rs.Ref(count)
    for i in range(trips):
        m = Reg.UpdateMask(rs.uint64, n, trait=Reg.RegTraitNumTwo)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(d + i * 64, z, m)


@settings(max_examples=20, deadline=None)
@given(trips=st.integers(2, 8), count=st.integers(0, 8 * 64), seed=st.integers(0, 2**16))
def test_two_register_stores_under_a_tail_mask(trips: int, count: int, seed: int) -> None:
    """The two-register store's plain path (two one-register stores, VL apart): element k of the rows holds
    (a[k] + b[k]) mod 2**64 for k < count, as Python ints say, and keeps its old value past the tail; both loop modes
    leave the same bits, and the loop batched."""
    rng = np.random.default_rng(seed)
    d0, a0, b0 = (rng.integers(0, 2**64, trips * 64, dtype=np.uint64) for _ in range(3))
    how, got = hows(_world(rs.uint64, (d0, a0, b0), add_u64_tail, count, trips))
    want = [(int(x) + int(y)) % 2**64 if k < count else int(old) for k, (x, y, old) in enumerate(zip(a0, b0, d0, strict=True))]
    assert got == want
    assert how == ["batched"]


MERGING = Reg.MaskMergeMode.MERGING


@rs.simd_vf
def merged_reads(d: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.uint32], b: rs.UbPtr[rs.uint32], t1: int, t2: int, trips: int) -> None:
    """A register read, then written in place under a MERGING tail, then read again (the typed lanes a batched loop
    keeps for a register must show the write); the masks are made before the loop."""
    x, c, y, w, z = (Reg.RegTensor(rs.uint32) for _ in range(5))
    every = Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.ALL)
    m1, m2 = Reg.UpdateMask(rs.uint32, rs.Ref(t1)), Reg.UpdateMask(rs.uint32, rs.Ref(t2))
    for i in range(trips):
        Reg.LoadAlign(x, a + i * LANES)
        Reg.LoadAlign(c, b + i * LANES)
        Reg.Add(y, x, x, every)
        Reg.Add(y, x, c, m1, mode=MERGING)
        Reg.Add(w, y, y, every)
        Reg.Add(y, c, c, m2, mode=MERGING)
        Reg.Add(z, y, w, every)
        Reg.StoreAlign(d + i * LANES, z, every)


@settings(max_examples=15, deadline=None)
@given(trips=st.integers(2, 6), t1=st.integers(0, LANES), t2=st.integers(0, LANES), seed=st.integers(0, 2**16))
def test_a_register_written_in_place_reads_its_new_lanes(trips: int, t1: int, t2: int, seed: int) -> None:
    """Per lane j of each row, as Python ints mod 2**32: y = j < t1 ? x + c : 2x; w = 2y; y = j < t2 ? 2c : y;
    d = y + w. Both loop modes agree, and the loop batched."""
    rng = np.random.default_rng(seed)
    d0, a0, b0 = (rng.integers(0, 2**32, trips * LANES, dtype=np.uint32) for _ in range(3))
    how, got = hows(_world(rs.uint32, (d0, a0, b0), merged_reads, t1, t2, trips))
    want = []
    for k, (x, c) in enumerate(zip(map(int, a0), map(int, b0), strict=True)):
        j = k % LANES
        y = x + c if j < t1 else 2 * x
        w = 2 * y
        y = 2 * c if j < t2 else y
        want.append((y + w) % 2**32)
    assert got == want
    assert how == ["batched"]
