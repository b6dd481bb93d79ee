"""Batched loops computing an elementwise op's result in place (`result_buffer`: the destination's own rows, or a new
array, given to a lane function as `out=`), and the checks on large arrays that decide whether Exp / Div need their
flushing and NaN steps (`_ordinary`; Div over divisors of 1 or more).

Oracles: per lane, Python floats rounded once to float32 (`np.float32` of a float64 product / sum, which is the
correctly rounded float32 result), `math.exp` rounded once, and `regsim.testing.reference`'s Div; the two loop modes
must leave the same UB bytes and the loop must have batched.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from loop_support import hows

import regsim as rs
from regsim import Reg
from regsim._src.ops import transcendental
from regsim.testing import reference as O

LANES = 64  #: float32 lanes in one register
TINY = float(np.finfo(np.float32).smallest_normal)
NAN_BITS = 0x7FFFFFFF  #: the NaN Exp and Div give
#: planted among ordinary values: zeros, subnormals, infinities, NaN, values whose square overflows, exponents that
#: underflow (e**-100), or overflow
SPECIAL = [0.0, -0.0, 1e-40, -1e-40, 1e-45, math.inf, -math.inf, math.nan, 3e38, -3e38, 1e19, 15.0, -15.0, 20.0, 1.0]


@rs.simd_vf
def chain(d: rs.UbPtr[rs.float32], x_addr: rs.UbPtr[rs.float32], count: int, trips: int) -> None:
    """y = x / (1 + e**(x - x·x/2)) under a tail mask (inactive lanes keep d's old values), each op in place on y."""
    x, y = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    n = rs.Ref(count)
    for i in range(trips):
        m = Reg.UpdateMask(rs.float32, n)
        Reg.LoadAlign(x, x_addr + i * LANES)
        Reg.Mul(y, x, x, m)
        Reg.Muls(y, y, -0.5, m)
        Reg.Add(y, x, y, m)
        Reg.Exp(y, y, m)
        Reg.Adds(y, y, 1.0, m)
        Reg.Div(y, x, y, m)
        Reg.StoreAlign(d + i * LANES, y, m)


def _f32(v: float) -> float:
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def _exp(v: float) -> float:
    """Exp: e**v rounded once, a subnormal result flushed (INTRINSIC), NaN the pages' NaN (told apart by bits later)."""
    if math.isnan(v):
        return math.nan
    r = _f32(O.exp_reference(v))
    return math.copysign(0.0, r) if r != 0 and abs(r) < TINY else r


def _chain_lane(x: float) -> float:
    y = _f32(x * x)
    y = _f32(y * -0.5)
    y = _f32(x + y)
    y = _f32(_exp(y) + 1.0)
    return float(O.div_oracle("float32", x, y))


def _bits(values: list[float]) -> list[int]:
    return [NAN_BITS if math.isnan(v) else int(np.float32(v).view(np.uint32)) for v in values]


def _world(d0: np.ndarray, x0: np.ndarray, kernel: Callable[..., None], *args: int) -> Callable[[], Any]:
    def make() -> tuple[rs.UnifiedBuffer, Callable[[], list[int]]]:
        ub = rs.UnifiedBuffer(size=d0.nbytes + x0.nbytes)
        d, x = ub.alloc(rs.float32, d0.size), ub.alloc(rs.float32, x0.size)
        d.set(d0)
        x.set(x0)

        def run() -> list[int]:
            kernel(d.GetPhyAddr(), x.GetPhyAddr(), *args)
            return d.numpy().view(np.uint32).tolist()

        return ub, run

    return make


@pytest.mark.parametrize(("trips", "tail"), [(256, 0), (256, 5), (20, 0), (20, 63)])
def test_an_op_chain_in_place_gives_each_lane_its_rounded_steps(trips: int, tail: int) -> None:
    """Every op of the chain writes y in place (256 rows: 16 384 elements, Exp's and Div's large-array paths; 20 rows:
    their small ones); special values anywhere; the last `tail` lanes inactive. Both loop modes agree, the loop
    batched, and each active lane holds the chain's steps rounded one by one (Exp's and Div's flushing and NaN)."""
    rng = np.random.default_rng(trips + tail)
    size = trips * LANES
    x0 = rng.uniform(-10, 10, size).astype(np.float32)
    planted = rng.integers(0, size, size // 16)
    x0[planted] = np.array(SPECIAL, np.float32)[rng.integers(0, len(SPECIAL), planted.size)]
    d0 = rng.uniform(-1, 1, size).astype(np.float32)
    count = size - tail
    how, got = hows(_world(d0, x0, chain, count, trips))
    assert how == ["batched"]
    want = _bits([_chain_lane(float(v)) for v in x0[:count]]) + d0[count:].view(np.uint32).tolist()
    bad = [k for k, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    assert not bad, [(k, float(x0[k]), hex(got[k]), hex(want[k])) for k in bad[:8]]


@rs.simd_vf
def stored_then_rewritten(d: rs.UbPtr[rs.float32], x_addr: rs.UbPtr[rs.float32], trips: int) -> None:
    """y = x + x stored to d's first half, then y = y · x in place (the store waiting on y's old rows must store
    them) to its second half."""
    x, y = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    every = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
    for i in range(trips):
        Reg.LoadAlign(x, x_addr + i * LANES)
        Reg.Add(y, x, x, every)
        Reg.StoreAlign(d + i * LANES, y, every)
        Reg.Mul(y, y, x, every)
        Reg.StoreAlign(d + (trips + i) * LANES, y, every)


def test_a_store_waiting_on_a_register_keeps_its_rows_when_the_register_is_written_in_place() -> None:
    trips = 24
    rng = np.random.default_rng(5)
    x0 = rng.uniform(-4, 4, trips * LANES).astype(np.float32)
    d0 = np.zeros(2 * trips * LANES, np.float32)
    how, got = hows(_world(d0, x0, stored_then_rewritten, trips))
    assert how == ["batched"]
    doubled = [_f32(2.0 * float(v)) for v in x0]
    want = _bits(doubled) + _bits([_f32(s * float(v)) for s, v in zip(doubled, x0, strict=True)])
    assert got == want


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_the_large_array_check_of_mixed_signs(dtype: Any) -> None:
    """`_ordinary` on large arrays of both signs (float32's by reductions alone, half's by the count): an exception
    planted anywhere, of either sign, and the extreme normals, which pass."""
    info = np.finfo(dtype)
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    base = (rng.uniform(1, 100, 1 << 15) * rng.choice([-1, 1], 1 << 15)).astype(dtype)
    tiny, big, sub = float(info.smallest_normal), float(info.max), float(info.smallest_subnormal)
    largest_subnormal = float(np.nextafter(dtype(tiny), dtype(0)))
    planted = [None, 0.0, -0.0, sub, -sub, largest_subnormal, -largest_subnormal, math.inf, -math.inf, math.nan]
    planted += [-math.nan, tiny, -tiny, big, -big]
    for value in planted:
        for at in (0, base.size // 3, base.size - 1):
            x = base.copy()
            if value is not None:
                x[at] = value
            want = all(math.isfinite(v) and abs(v) >= tiny for v in x[[0, base.size // 3, base.size - 1]].tolist())
            assert transcendental._ordinary(x.reshape(-1, LANES)) is want, f"{value!r} at {at}"
    assert transcendental._ordinary(np.abs(base).reshape(-1, LANES)) is True  # (a positive one: least and greatest)


def test_div_over_divisors_of_one_or_more_flushes_nothing_it_need_not() -> None:
    """Div of a large array over divisors all 1 or more (+inf among them): numerators of every kind (subnormals, zeros,
    infinities, NaN) give `reference.div_oracle`'s quotient, lane for lane, written into `out` or not."""
    rng = np.random.default_rng(11)
    size = 1 << 15
    a = rng.uniform(-1e3, 1e3, size).astype(np.float32)
    a[rng.integers(0, size, 2000)] = np.array(SPECIAL, np.float32)[rng.integers(0, len(SPECIAL), 2000)]
    b = rng.uniform(1, 1e30, size).astype(np.float32)
    b[rng.integers(0, size, 50)] = np.float32(math.inf)
    b[:8] = 1.0
    want = _bits([float(O.div_oracle("float32", float(p), float(q))) for p, q in zip(a, b, strict=True)])
    with np.errstate(all="ignore"):
        for out in (None, np.empty(size, np.float32)):
            got = transcendental.div(a, b, out=out)
            assert got.view(np.uint32).tolist() == want


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("ftz", [True, False])
def test_a_large_result_is_mended_in_place_at_its_exceptions(dtype: Any, ftz: bool) -> None:
    """Exp's and Div's last step on a large result of their own: subnormals flushed to zeros of their sign (when the
    algorithm flushes), NaNs made the pages' NaN (all ones but the sign bit), every other element kept, in place."""
    info = np.finfo(dtype)
    uint = np.uint16 if dtype is np.float16 else np.uint32
    nan_bits = 0x7FFF if dtype is np.float16 else NAN_BITS
    rng = np.random.default_rng(7)
    x = (rng.uniform(-5, 5, 1 << 15)).astype(dtype)
    specials = [0.0, -0.0, float(info.smallest_subnormal), -float(info.smallest_subnormal), math.inf, -math.inf, math.nan]
    x[rng.integers(0, x.size, 300)] = np.array(specials, dtype)[rng.integers(0, len(specials), 300)]
    x[5] = -np.array(math.nan, dtype)
    tiny = float(info.smallest_normal)
    want = [
        nan_bits if math.isnan(v) else int(np.array(math.copysign(0.0, v) if ftz and 0 < abs(v) < tiny else v, dtype).view(uint))
        for v in x.tolist()
    ]
    out = x.reshape(-1, LANES)
    assert transcendental._settled(out, ftz) is out
    assert out.reshape(-1).view(uint).tolist() == want
