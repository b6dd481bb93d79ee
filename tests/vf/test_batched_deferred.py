"""Batched loops leaving work until it is needed: an elementwise result writing every lane of every row is computed
when first read (a store of all its lanes computes it straight into the UB; the loop's end, its last row alone), and
Reduce's result keeps its first lanes alone (an Add accumulating it adds those, its other lanes from +0 terms).

Oracles: per lane, Python ints wrapped to the type, float32 sums rounded once each (`reference.float_add`), the
documented tree (`reference.reduce_oracle`), Exp rounded once and `reference.div_oracle`; the two loop modes must
leave the same UB bytes (and raise the same error, with the same partial UB) and, where it can, the loop batched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from loop_support import hows
from test_batched_in_place import _bits, _exp

import regsim as rs
from regsim import Reg
from regsim._src.vf.batched import DEFER_ROWS
from regsim.testing import reference as O

LANES = 64  #: 32-bit lanes in one register
ROWS = DEFER_ROWS + 8  #: iterations: enough for the batched loop to leave results to compute when read
TWO = Reg.RegTraitNumTwo
SPECIAL = [0.0, -0.0, 1e-40, -1e-40, 1e-45, math.inf, -math.inf, math.nan, 3e38, -3e38, 88.0, -104.0, 1.0]
Make = Callable[[], tuple[rs.UnifiedBuffer, Callable[[], Any]]]


def _world(arrays: list[np.ndarray], kernel: Callable[..., None], *args: int, unset: int = -1) -> Make:
    """A UB holding `arrays` (one tensor each, 32-byte aligned; the `unset` one never written), the kernel called on
    their addresses and `args`; the run returns every tensor's bytes."""

    def make() -> tuple[rs.UnifiedBuffer, Callable[[], Any]]:
        ub = rs.UnifiedBuffer(size=sum(-(-a.nbytes // 32) * 32 for a in arrays))
        tensors = []
        for k, a in enumerate(arrays):
            t = ub.alloc(getattr(rs, a.dtype.name), a.size)
            if k != unset:
                t.set(a)
            tensors.append(t)

        def run() -> list[bytes]:
            kernel(*(t.GetPhyAddr() for t in tensors), *args)
            return [ub.storage.data[t.GetPhyAddr().addr :][: a.nbytes].tobytes() for t, a in zip(tensors, arrays, strict=True)]

        return ub, run

    return make


def _both(
    arrays: list[np.ndarray], kernel: Callable[..., None], *args: int, batched: bool = True, unset: int = -1
) -> list[np.ndarray]:
    """Both loop modes (the same UB bytes and written flags); each tensor as the default mode left it."""
    how, got = hows(_world(arrays, kernel, *args, unset=unset))
    if batched:
        assert how and set(how) == {"batched"}, how
    return [np.frombuffer(g, a.dtype) for g, a in zip(got, arrays, strict=True)]


# --- a deferred elementwise result stored straight into the UB ------------------------------------------------------
@rs.simd_vf
def u64_add(
    d: rs.UbPtr[rs.uint64],
    last: rs.UbPtr[rs.uint64],
    a: rs.UbPtr[rs.uint64],
    b: rs.UbPtr[rs.uint64],
    count: int,
    trips: int,
    step: int,
) -> None:
    """d[i·step ..] = a + b on two-register uint64 (64 elements a register pair) under UpdateMask; z stored after."""
    x, y, z = (Reg.RegTensor(rs.uint64, TWO) for _ in range(3))
    n = rs.Ref(count)
    for i in range(trips):
        m = Reg.UpdateMask(rs.uint64, n, trait=TWO)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(d + i * step, z, m)
    Reg.StoreAlign(last, z, Reg.CreateMask(rs.uint64, trait=TWO))


@pytest.mark.parametrize(("trips", "tail", "step"), [(ROWS, 0, 64), (ROWS, 0, 96), (ROWS, 7, 64), (20, 0, 64)])
def test_a_two_register_sum_computed_into_the_ub(trips: int, tail: int, step: int) -> None:
    """Every lane of every row (the store computes the sums into the UB, back to back or `step` elements apart, over
    bytes never written before in the second case), a tail of inactive lanes, or too few rows to leave the sums for
    later (computed, then stored): each active lane is a + b mod 2**64 (carries across the halves, sums that wrap),
    every other element as it was; after the loop z holds the last iteration's sums."""
    rng = np.random.default_rng(trips + tail + step)
    size = trips * 64
    a0 = rng.integers(0, 2**64, size, dtype=np.uint64)
    b0 = rng.integers(0, 2**64, size, dtype=np.uint64)
    a0[:64:4], b0[:64:4] = np.uint64(2**64 - 1), np.uint64(1)  # (wraps to 0)
    a0[1:64:4], b0[1:64:4] = np.uint64(2**32 - 1), np.uint64(1)  # (a carry from the low half)
    d0 = rng.integers(0, 2**64, (trips - 1) * step + 64, dtype=np.uint64)
    last0 = np.zeros(64, np.uint64)
    count = size - tail
    unset = 0 if step != 64 else -1
    if unset == 0:
        d0[:] = 0  # (a fresh UB's bytes)
    d, last = _both([d0, last0, a0, b0], u64_add, count, trips, step, unset=unset)[:2]
    want = [int(v) for v in d0]
    sums = [(int(p) + int(q)) % 2**64 for p, q in zip(a0, b0, strict=True)]
    for k in range(count):
        want[(k // 64) * step + k % 64] = sums[k]
    assert [int(v) for v in d] == want
    final = [s if k < count else 0 for k, s in enumerate(sums)][-64:]  # (ZEROING: the inactive lanes 0)
    assert [int(v) for v in last] == final


@rs.simd_vf
def reread(
    c: rs.UbPtr[rs.int32], e: rs.UbPtr[rs.int32], x_addr: rs.UbPtr[rs.int32], y_addr: rs.UbPtr[rs.int32], trips: int
) -> None:
    """z = x + y stored to c, read back from c (its store made first), times z, plus 1 (in place), stored to e."""
    x, y, z, q = (Reg.RegTensor(rs.int32) for _ in range(4))
    every = Reg.CreateMask(rs.int32)
    for i in range(trips):
        Reg.LoadAlign(x, x_addr + i * LANES)
        Reg.LoadAlign(y, y_addr + i * LANES)
        Reg.Add(z, x, y, every)
        Reg.StoreAlign(c + i * LANES, z, every)
        Reg.LoadAlign(q, c + i * LANES)
        Reg.Mul(q, q, z, every)
        Reg.Adds(q, q, 1, every)
        Reg.StoreAlign(e + i * LANES, q, every)


def test_a_result_stored_then_read_again_in_the_body() -> None:
    trips = ROWS
    rng = np.random.default_rng(1)
    x0, y0 = (rng.integers(-(2**31), 2**31, trips * LANES, dtype=np.int32) for _ in range(2))
    c, e = _both([np.zeros(trips * LANES, np.int32), np.zeros(trips * LANES, np.int32), x0, y0], reread, trips)[:2]
    sums = [O.wrap(int(p) + int(q), 32, True) for p, q in zip(x0, y0, strict=True)]
    assert c.tolist() == sums
    assert e.tolist() == [O.wrap(s * s + 1, 32, True) for s in sums]


@rs.simd_vf
def in_place(a: rs.UbPtr[rs.int32], b: rs.UbPtr[rs.int32], trips: int, swap: int) -> None:
    """x from a; a = x·3 and b = x + 1 (stored in either order): one result's store overwrites what the other reads."""
    x, w, z = (Reg.RegTensor(rs.int32) for _ in range(3))
    every = Reg.CreateMask(rs.int32)
    for i in range(trips):
        Reg.LoadAlign(x, a + i * LANES)
        Reg.Adds(z, x, 1, every)
        Reg.Muls(w, x, 3, every)
        if swap:
            Reg.StoreAlign(b + i * LANES, z, every)
            Reg.StoreAlign(a + i * LANES, w, every)
        else:
            Reg.StoreAlign(a + i * LANES, w, every)
            Reg.StoreAlign(b + i * LANES, z, every)


@pytest.mark.parametrize("swap", [0, 1])
def test_stores_overwriting_what_a_waiting_result_reads(swap: int) -> None:
    trips = ROWS
    a0 = np.random.default_rng(2).integers(-(2**31), 2**31, trips * LANES, dtype=np.int32)
    a, b = _both([a0, np.zeros(trips * LANES, np.int32)], in_place, trips, swap)
    assert a.tolist() == [O.wrap(int(v) * 3, 32, True) for v in a0]
    assert b.tolist() == [O.wrap(int(v) + 1, 32, True) for v in a0]


@rs.simd_vf
def failing(d: rs.UbPtr[rs.int32], e: rs.UbPtr[rs.int32], x_addr: rs.UbPtr[rs.int32], trips: int, ahead: int) -> None:
    """z = x + 5 stored to d; then (ahead 0) stored to e, beyond it in the last iteration, or (ahead 1) d's next row,
    read before the next iteration stores it, plus one, stored to e."""
    x, z, q = (Reg.RegTensor(rs.int32) for _ in range(3))
    every = Reg.CreateMask(rs.int32)
    for i in range(trips):
        Reg.LoadAlign(x, x_addr + i * LANES)
        Reg.Adds(z, x, 5, every)
        Reg.StoreAlign(d + i * LANES, z, every)
        if ahead:
            Reg.LoadAlign(q, d + (i + 1) * LANES)
            Reg.Adds(q, q, 1, every)
            Reg.StoreAlign(e + i * LANES, q, every)
        else:
            Reg.StoreAlign(e + (i + 1) * LANES, z, every)


def test_a_failure_after_a_deferred_store_leaves_what_the_loop_in_order_leaves() -> None:
    """The batched attempt fails after its deferred stores (a store beyond its tensor in the last iteration; a row
    read before another iteration writes it, which only the end's check finds): the loop runs in order, which raises
    (the same error, the same partial UB in both modes) or gives the in-order values."""
    trips = ROWS
    rng = np.random.default_rng(3)
    x0 = rng.integers(-1000, 1000, trips * LANES, dtype=np.int32)
    d0 = rng.integers(-1000, 1000, (trips + 1) * LANES, dtype=np.int32)
    e0 = np.zeros(trips * LANES, np.int32)
    how, got = hows(_world([d0, e0, x0], failing, trips, 0))
    assert got is None and how == ["sequential"]  # (raised in both modes, the partial UBs equal)
    d, e = _both([d0, e0, x0], failing, trips, 1, batched=False)[:2]
    sums = [int(v) + 5 for v in x0]
    assert d.tolist() == sums + d0[trips * LANES :].tolist()
    assert e.tolist() == [int(v) + 1 for v in d0[LANES:]]  # (row i + 1 as it was: iteration i + 1 stores it later)


@rs.simd_vf
def exp_div(d: rs.UbPtr[rs.float32], x_addr: rs.UbPtr[rs.float32], trips: int) -> None:
    """y = e**x and x / y, stored side by side (rows two registers apart)."""
    x, y, w = (Reg.RegTensor(rs.float32) for _ in range(3))
    every = Reg.CreateMask(rs.float32)
    for i in range(trips):
        Reg.LoadAlign(x, x_addr + i * LANES)
        Reg.Exp(y, x, every)
        Reg.StoreAlign(d + i * 2 * LANES, y, every)
        Reg.Div(w, x, y, every)
        Reg.StoreAlign(d + i * 2 * LANES + LANES, w, every)


@pytest.mark.parametrize("trips", [ROWS, 300])
def test_exp_and_div_computed_into_rows_apart(trips: int) -> None:
    """Exp's and Div's results computed into UB rows that are not back to back (their exceptions mended there, or in
    an array of their own copied in: large and small paths), special values anywhere."""
    rng = np.random.default_rng(trips)
    size = trips * LANES
    x0 = rng.uniform(-20, 20, size).astype(np.float32)
    planted = rng.integers(0, size, size // 8)
    x0[planted] = np.array(SPECIAL, np.float32)[rng.integers(0, len(SPECIAL), planted.size)]
    d = _both([np.zeros(2 * size, np.float32), x0], exp_div, trips)[0]
    ys = [_exp(float(v)) for v in x0]
    divs = [float(O.div_oracle("float32", float(v), y)) for v, y in zip(x0, ys, strict=True)]
    want = []
    for r in range(trips):
        want += _bits(ys[r * LANES : (r + 1) * LANES]) + _bits(divs[r * LANES : (r + 1) * LANES])
    assert d.view(np.uint32).tolist() == want


# --- Reduce's first lanes, accumulated ------------------------------------------------------------------------------
@rs.simd_vf
def reduce_sum(
    dst: rs.UbPtr[rs.float32],
    rows: rs.UbPtr[rs.float32],
    src: rs.UbPtr[rs.float32],
    trips: int,
    init_bits: int,
    store: int,
    first: int,
) -> None:
    """acc = init; per register acc += Reduce SUM (acc the first operand, or the second); `store` 1: the reduction
    and the acc stored every iteration too; acc stored after."""
    s, r, acc = (Reg.RegTensor(rs.float32) for _ in range(3))
    every = Reg.CreateMask(rs.float32)
    Reg.Duplicate(acc, float(np.uint32(init_bits).view(np.float32)), every)
    for i in range(trips):
        Reg.LoadAlign(s, src + i * LANES)
        Reg.Reduce(r, s, every, type=Reg.ReduceType.SUM)
        if store:
            Reg.StoreAlign(rows + i * 2 * LANES, r, every)
        if first:
            Reg.Add(acc, acc, r, every)
        else:
            Reg.Add(acc, r, acc, every)
        if store:
            Reg.StoreAlign(rows + i * 2 * LANES + LANES, acc, every)
    Reg.StoreAlign(dst, acc, every)


def _same(got: np.ndarray, want: list[float]) -> None:
    """float32 lanes equal to the oracle's, bit for bit (the zeros' signs), a NaN any NaN (Add keeps its operand's)."""
    bad = [
        k
        for k, (g, w) in enumerate(zip(got.tolist(), want, strict=True))
        if not (math.isnan(g) if math.isnan(w) else np.float32(g).view(np.uint32) == np.float32(w).view(np.uint32))
    ]
    assert not bad, [(k, got[k], want[k]) for k in bad[:8]]


def _accumulate(init: float, terms: list[list[Any]]) -> tuple[list[float], list[list[float]]]:
    """acc lane by lane, a float32 add a row, in order; and acc after each row."""
    acc = [init] * LANES
    after = []
    for row in terms:
        acc = [float(O.float_add("float32", a, float(t))) for a, t in zip(acc, row, strict=True)]
        after.append(acc)
    return acc, after


@pytest.mark.parametrize("init", [0x00000000, 0x80000000, 0x3FC00000, 0x7FC00000])
@pytest.mark.parametrize(("store", "first"), [(0, 1), (0, 0), (1, 1)])
def test_reduce_sums_accumulated_lane_by_lane(init: int, store: int, first: int) -> None:
    """+0, -0 (over -0 terms alone: lane 0 stays -0, the +0 lanes make every other lane +0), 1.5 and NaN starts;
    infinities, NaN, subnormals, a row of -0 among ordinary values; the reductions and running sums stored each
    iteration, or only the sum after the loop (its first lanes alone accumulated)."""
    trips = ROWS
    rng = np.random.default_rng(init % 97 + store)
    x0 = rng.uniform(-4, 4, trips * LANES).astype(np.float32)
    x0[:LANES] = -0.0
    x0[5 * LANES + 3] = np.float32(math.inf)
    x0[9 * LANES + 1] = np.float32(1e-40)
    x0[11 * LANES + 60] = np.float32(math.nan)
    if init == 0x80000000:
        x0[:] = -0.0
    arrays = [np.zeros(LANES, np.float32), np.zeros(2 * trips * LANES, np.float32), x0]
    dst, rows = _both(arrays, reduce_sum, trips, init, store, first)[:2]
    terms = [
        O.reduce_oracle("float32", "float32", x0[k * LANES : (k + 1) * LANES].tolist(), [True] * LANES, "SUM", LANES)
        for k in range(trips)
    ]
    final, after = _accumulate(float(np.uint32(init).view(np.float32)), terms)
    _same(dst, final)
    if store:
        want = []
        for term, acc in zip(terms, after, strict=True):
            want += [float(t) for t in term] + acc
        _same(rows, want)
    if init == 0x80000000:
        assert dst.view(np.uint32)[0] == 0x80000000 and not dst.view(np.uint32)[1:].any()


@rs.simd_vf
def reduce_int(dst: rs.UbPtr[rs.int32], src: rs.UbPtr[rs.int32], count: int, trips: int, kind: int, partial: int) -> None:
    """acc (int32, from -7) += Reduce MAX (value, index) / SUM, or ReduceDataBlock SUM (8 lanes), of src's first
    `count` lanes (UpdateMask); `partial`: the Add under that mask too."""
    s, r, acc = (Reg.RegTensor(rs.int32) for _ in range(3))
    every = Reg.CreateMask(rs.int32)
    Reg.Duplicate(acc, -7, every)
    n = rs.Ref(count)
    for i in range(trips):
        m = Reg.UpdateMask(rs.int32, n)
        Reg.LoadAlign(s, src + i * LANES)
        if kind == 2:
            Reg.ReduceDataBlock(r, s, m, type=Reg.ReduceType.SUM)
        else:
            Reg.Reduce(r, s, m, type=Reg.ReduceType.MAX if kind else Reg.ReduceType.SUM)
        Reg.Add(acc, acc, r, m if partial else every)
    Reg.StoreAlign(dst, acc, every)


@pytest.mark.parametrize("kind", [0, 1, 2])
@pytest.mark.parametrize(("tail", "partial"), [(0, 0), (9, 0), (9, 1)])
def test_integer_reductions_accumulated(kind: int, tail: int, partial: int) -> None:
    """Reduce SUM / MAX (its index in lane 1) and ReduceDataBlock SUM (8 lanes), their sums wrapping, the source's last
    `tail` lanes inactive; the Add under every lane (the first lanes alone accumulated) or under the tail mask."""
    trips = ROWS
    x0 = np.random.default_rng(kind + tail).integers(-(2**31), 2**31, trips * LANES, dtype=np.int32)
    count = trips * LANES - tail
    dst = _both([np.zeros(LANES, np.int32), x0], reduce_int, count, trips, kind, partial)[0]
    acc = [-7] * LANES
    for k in range(trips):
        on = [k * LANES + j < count for j in range(LANES)]
        values = x0[k * LANES : (k + 1) * LANES].tolist()
        if kind == 2:
            term = O.reduce_data_block_oracle("int32", "int32", values, on, "SUM", LANES)
        else:
            term = O.reduce_oracle("int32", "int32", values, on, "MAX" if kind else "SUM", LANES)
        adds = on if partial else [True] * LANES
        acc = [O.wrap(a + int(t), 32, True) if add else 0 for a, t, add in zip(acc, term, adds, strict=True)]
    assert dst.tolist() == acc


@rs.simd_vf
def hoisted(d: rs.UbPtr[rs.int32], dst: rs.UbPtr[rs.int32], x_addr: rs.UbPtr[rs.int32], trips: int) -> None:
    """x and y = x·x set before the loop: in it z = x + y stored, and y's Reduce SUM accumulated (each one row in
    every iteration)."""
    x, y, z, r, acc = (Reg.RegTensor(rs.int32) for _ in range(5))
    every = Reg.CreateMask(rs.int32)
    Reg.LoadAlign(x, x_addr)
    Reg.Mul(y, x, x, every)
    Reg.Duplicate(acc, 3, every)
    for i in range(trips):
        Reg.Add(z, x, y, every)
        Reg.StoreAlign(d + i * LANES, z, every)
        Reg.Reduce(r, y, every, type=Reg.ReduceType.SUM)
        Reg.Add(acc, acc, r, every)
    Reg.StoreAlign(dst, acc, every)


def test_results_the_same_in_every_iteration() -> None:
    trips = ROWS
    x0 = np.random.default_rng(4).integers(-(2**31), 2**31, LANES, dtype=np.int32)
    d, dst = _both([np.zeros(trips * LANES, np.int32), np.zeros(LANES, np.int32), x0], hoisted, trips)[:2]
    z = [O.wrap(int(v) + int(v) * int(v), 32, True) for v in x0]
    assert d.tolist() == z * trips
    y = [O.wrap(int(v) * int(v), 32, True) for v in x0]
    term = O.reduce_oracle("int32", "int32", y, [True] * LANES, "SUM", LANES)
    assert dst.tolist() == [O.wrap(3 + trips * int(t), 32, True) for t in term]
