"""The memory-level Cast pairs with `double` (regsim._src.lowerings.cast_double, docs/decisions/cast.md#cast-double)
against a per-lane oracle of Python ints and `fractions.Fraction` (the exact value rounded by the mode, then the library's
special-value rules): random bit patterns over every exponent range (zeros, subnormals, the flush and overflow
edges, ties, inf, NaN payloads), Hypothesis over bit patterns and counts, counts with tails, both loop modes,
both `GetOverflow()` states, and the refused round modes and interfaces."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import run_both

import regsim as rs
from regsim import errors

A = rs.AscendC
RM = A.RoundMode
R5 = [RM.CAST_RINT, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_ROUND, RM.CAST_TRUNC]
M64 = (1 << 64) - 1
FRAC = (1 << 52) - 1


# --- the oracle: per lane, Python ints ---------------------------------------------------------------------------
def round_int(x: Fraction, mode: Any, negative: bool) -> int:
    """|value| = x >= 0 rounded to an integer by `mode` for a value of the given sign."""
    fl = math.floor(x)
    if x == fl:
        return fl
    if mode is RM.CAST_TRUNC:
        return fl
    if mode is RM.CAST_FLOOR:
        return fl + 1 if negative else fl
    if mode is RM.CAST_CEIL:
        return fl if negative else fl + 1
    if mode is RM.CAST_ROUND:
        return fl + 1 if x - fl >= Fraction(1, 2) else fl
    assert mode is RM.CAST_RINT
    d = x - fl
    return fl + 1 if d > Fraction(1, 2) or (d == Fraction(1, 2) and fl % 2) else fl


def double_value(b: int) -> Fraction:
    """The exact value of a finite double's bits."""
    e, f = b >> 52 & 0x7FF, b & FRAC
    mag = Fraction(f, 1 << 52) * Fraction(2) ** -1022 if e == 0 else (1 + Fraction(f, 1 << 52)) * Fraction(2) ** (e - 1023)
    return -mag if b >> 63 else mag


def narrow_oracle(b: int, mode: Any, kept: int, overflow: bool) -> int:
    """double bits -> float (kept = 23) / bfloat16 (kept = 7) bits as the library's emulation gives them
    (decisions/cast.md#cast-double-to-float)."""
    sign, e, f = b >> 63, b >> 52 & 0x7FF, b & FRAC
    width, dropped = kept + 9, 52 - kept
    top, inf = 1 << (width - 1), 0xFF << kept
    nan_code = inf | 1
    if e == 0x7FF:
        if (f >> dropped if kept == 23 else f) != 0:  # float: only the kept fraction bits make a NaN
            return nan_code
        return inf if kept == 23 and overflow else inf | sign * top  # (float, overflow: the sign test never fires)
    if e >= 0x47F:  # |x| >= 2**128
        if not overflow:
            return inf | sign * top
        return inf - 1 if kept == 23 else (inf - 1) | sign * top  # the largest finite value
    q = round_int(Fraction(f, 1 << dropped), mode, bool(sign))  # the kept fraction bits, rounded by the mode
    if e < 0x380:  # |x| < 2**-127
        if not (kept == 7 and overflow):
            return 0  # +0, whatever the sign
        t = ((e - 0x380) % (1 << 64) << kept) + (f >> dropped) & M64  # bfloat16 with overflow: not zeroed
        low = t & (top - 1) if not sign else (t | top) & (2 * top - 1)
        return (low + q - (f >> dropped)) & (2 * top - 1)
    if e == 0x380:  # exponent field 0: the kept fraction bits as they are (not the subnormal of the value)
        return sign * top | q
    # the normal range: |x| rounded to kept + 1 significant bits (unbounded exponent; 2**128 is the inf bits)
    v = abs(double_value(b))
    ex = e - 1023
    m = round_int(v / Fraction(2) ** (ex - kept), mode, bool(sign))
    if m == 1 << (kept + 1):
        ex, m = ex + 1, m >> 1
    return sign * top | (ex + 127) << kept | (m - (1 << kept))


def int_to_double_oracle(v: int, mode: Any) -> int:
    """int64 value -> double bits: |v| rounded to 53 significant bits by the mode, the sign apart; 0 -> +0.0."""
    if v == 0:
        return 0
    mag, neg = abs(v), v < 0
    top = mag.bit_length() - 1
    shift = max(top - 52, 0)
    m = round_int(Fraction(mag, 1 << shift), mode, neg)
    if m == 1 << 53:
        top, m = top + 1, m >> 1
    return neg << 63 | (top + 1023) << 52 | (m << max(52 - top, 0) if shift == 0 else m) - (1 << 52)


def double_to_int_oracle(b: int, bits: int) -> int:
    """double bits -> int32 / int64 (CAST_TRUNC) as two's complement bits: toward zero, NaN -> 0, ±inf and
    out-of-range values -> the bound of their sign."""
    e, f = b >> 52 & 0x7FF, b & FRAC
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if e == 0x7FF:
        v = 0 if f else (lo if b >> 63 else hi)
    else:
        x = double_value(b)
        v = max(lo, min(hi, math.trunc(x)))
    return v % (1 << bits)


# --- inputs --------------------------------------------------------------------------------------------------------
EXPONENTS = [0, 1, 0x36F, 0x37F, 0x380, 0x381, 0x3FE, 0x3FF, 0x41D, 0x41E, 0x43D, 0x43E, 0x47E, 0x47F, 0x480, 0x7FE, 0x7FF]


def fractions_for(rng: np.random.Generator) -> int:
    kind = rng.integers(0, 6)
    if kind == 0:
        return 0
    if kind == 1:
        return FRAC
    if kind == 2:  # a tie or near-tie at the float / bfloat16 cut
        cut = int(rng.choice([29, 45]))
        return (int(rng.integers(0, 1 << (52 - cut))) << cut | 1 << (cut - 1)) + int(rng.integers(-1, 2)) & FRAC
    if kind == 3:
        return int(rng.integers(0, 1 << 29))  # only low bits (a NaN payload float does not see)
    return int(rng.integers(0, 1 << 52))


def double_bits(n: int, seed: int) -> np.ndarray:
    """n double bit patterns: half of them with an edge exponent, a quarter any bits, a quarter ordinary values."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        pick = rng.random()
        if pick < 0.5:
            e = int(rng.choice(EXPONENTS))
        elif pick < 0.75:
            out.append(int(rng.integers(0, 1 << 63)) << 1 | int(rng.integers(0, 2)))
            continue
        else:
            e = int(rng.integers(0x3F0, 0x420))
        out.append(int(rng.integers(0, 2)) << 63 | e << 52 | fractions_for(rng))
    return np.array(out, dtype=np.uint64)


@contextmanager
def overflow_ctrl(on: bool) -> Iterator[None]:
    """CTRL with `GetOverflow()` true (CTRL >> 48 == 1: CTRL[60] cleared at the launch value) or the launch value."""
    if on:
        A.SetCtrlSpr(0, start_bit=60, end_bit=60)
    try:
        yield
    finally:
        if on:
            A.SetCtrlSpr(1, start_bit=60, end_bit=60)


def make(src_t: Any, dst_t: Any, src_bits: np.ndarray, n_dst: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any]:
    rng = np.random.default_rng(seed)
    n_src = src_bits.size
    ub = rs.UnifiedBuffer(-(-(n_src * src_t.itemsize + n_dst * dst_t.itemsize) // 256) * 256 + 1024)
    dst, src = ub.alloc(dst_t, n_dst), ub.alloc(src_t, n_src)
    ub.storage.write(dst.addr, rng.integers(0, 256, dst.nbytes, dtype=np.uint8))  # a dirty destination
    ub.storage.write(src.addr, src_bits.astype(np.uint64).view(np.uint8))
    return ub, dst, src


def dst_bits(t: Any) -> list[int]:
    a = t.numpy()
    return [int(v) for v in np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")]


NARROW = [(rs.float32, 23), (rs.bfloat16, 7)]


def check_narrow(d: Any, kept: int, mode: Any, src_bits: np.ndarray, count: int, overflow: bool, seed: int) -> None:
    ub, dst, src = make(rs.float64, d, src_bits, src_bits.size, seed)
    before = dst_bits(dst)
    with overflow_ctrl(overflow):
        run_both(lambda: A.Cast(dst, src, mode, count), ub)
    want = [narrow_oracle(int(b), mode, kept, overflow) for b in src_bits[:count]] + before[count:]
    got = dst_bits(dst)
    bad = [i for i in range(len(got)) if got[i] != want[i]]
    assert not bad, (
        f"double -> {d.name} {mode.name} overflow={overflow}: {len(bad)} lanes differ, first {bad[0]}: "
        f"src 0x{int(src_bits[bad[0]]):016x} got 0x{got[bad[0]]:x} want 0x{want[bad[0]]:x}"
    )
    assert np.array_equal(src.numpy().view(np.uint64), src_bits), "src unchanged"


# --- double -> float / bfloat16 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("overflow", [False, True], ids=["launch-ctrl", "overflow-ctrl"])
@pytest.mark.parametrize("mode", R5, ids=[m.name for m in R5])
@pytest.mark.parametrize(("d", "kept"), NARROW, ids=["float32", "bfloat16"])
def test_double_to_narrow(d: Any, kept: int, mode: Any, overflow: bool) -> None:
    n = 3 * 32 + 17
    for count in (0, 1, 31, 33, n):
        check_narrow(d, kept, mode, double_bits(n, seed=count + 7 * mode.value), count, overflow, seed=count)


@settings(max_examples=max(20, settings.default.max_examples // 2), deadline=None)
@given(
    data=st.data(),
    bits=st.lists(
        st.one_of(
            st.integers(0, M64),
            st.builds(lambda s, e, f: s << 63 | e << 52 | f, st.integers(0, 1), st.sampled_from(EXPONENTS), st.integers(0, FRAC)),
        ),
        min_size=1,
        max_size=80,
    ),
)
def test_double_to_narrow_hypothesis(data: st.DataObject, bits: list[int]) -> None:
    d, kept = data.draw(st.sampled_from([n for n in NARROW if n[0] in DONE_DST]))
    mode = data.draw(st.sampled_from(R5))
    overflow = data.draw(st.booleans())
    count = data.draw(st.integers(0, len(bits)))
    check_narrow(d, kept, mode, np.array(bits, dtype=np.uint64), count, overflow, seed=len(bits))


DONE_DST = {rs.float32, rs.bfloat16}


def int64_values(n: int, seed: int) -> np.ndarray:
    """int64 values of every magnitude: around powers of two, ties at the 53-bit cut, the extremes, random."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.integers(0, 64))
        pick = rng.random()
        if pick < 0.3:
            v = (1 << k) + int(rng.integers(-2, 3))
        elif pick < 0.55 and k > 53:  # a tie or near-tie at the 53-bit cut
            cut = k - 52
            v = (int(rng.integers(1 << 52, 1 << 53)) << cut) + (1 << (cut - 1)) + int(rng.integers(-1, 2))
        elif pick < 0.6:
            v = int(rng.choice([0, 1, -1, 2**63 - 1, -(2**63), 2**53, 2**53 + 1, 2**62 + 2**9]))
        else:
            v = int(rng.integers(0, 1 << max(k, 1)))
        v = min(v, 2**63 - 1)
        out.append(-v if rng.random() < 0.5 and v > 0 else v)
    return np.array(out, dtype=np.int64)


def check_int64_to_double(mode: Any, values: np.ndarray, count: int, seed: int) -> None:
    ub, dst, src = make(rs.int64, rs.float64, values.view(np.uint64), values.size, seed)
    before = dst_bits(dst)
    run_both(lambda: A.Cast(dst, src, mode, count), ub)
    want = [int_to_double_oracle(int(v), mode) for v in values[:count]] + before[count:]
    got = dst_bits(dst)
    bad = [i for i in range(len(got)) if got[i] != want[i]]
    assert not bad, (
        f"int64 -> double {mode.name}: lane {bad[0]} of {int(values[bad[0]])}: got 0x{got[bad[0]]:x} want 0x{want[bad[0]]:x}"
    )


@pytest.mark.parametrize("mode", R5, ids=[m.name for m in R5])
def test_int64_to_double(mode: Any) -> None:
    n = 3 * 32 + 9
    for count in (0, 1, 31, 33, n):
        check_int64_to_double(mode, int64_values(n, seed=count + 11 * mode.value), count, seed=count)


@settings(max_examples=max(20, settings.default.max_examples // 2), deadline=None)
@given(data=st.data(), values=st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=80))
def test_int64_to_double_hypothesis(data: st.DataObject, values: list[int]) -> None:
    mode = data.draw(st.sampled_from(R5))
    count = data.draw(st.integers(0, len(values)))
    check_int64_to_double(mode, np.array(values, dtype=np.int64), count, seed=len(values))


def check_double_to_int(d: Any, src_bits: np.ndarray, count: int, seed: int) -> None:
    ub, dst, src = make(rs.float64, d, src_bits, src_bits.size, seed)
    before = dst_bits(dst)
    run_both(lambda: A.Cast(dst, src, RM.CAST_TRUNC, count), ub)
    want = [double_to_int_oracle(int(b), 8 * d.itemsize) for b in src_bits[:count]] + before[count:]
    got = dst_bits(dst)
    bad = [i for i in range(len(got)) if got[i] != want[i]]
    assert not bad, (
        f"double -> {d.name}: {len(bad)} lanes differ, first {bad[0]}: "
        f"src 0x{int(src_bits[bad[0]]):016x} got 0x{got[bad[0]]:x} want 0x{want[bad[0]]:x}"
    )


#: exponents around the int32 / int64 limits, besides the float ones
INT_EXPONENTS = [0x3FD, 0x3FE, 0x3FF, 0x400, 0x413, 0x414, 0x41D, 0x41E, 0x41F, 0x433, 0x434, 0x43C, 0x43D, 0x43E, 0x43F]
INT_DST = [rs.int32, rs.int64]


def int_edge_bits(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = double_bits(n, seed)
    e = rng.choice(INT_EXPONENTS, n).astype(np.uint64)
    edge = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(63) | e << np.uint64(52) | base & np.uint64(FRAC)
    out = np.where(rng.random(n) < 0.5, edge, base)
    out[:4] = [0xC1E0000000000000, 0x41E0000000000000, 0xC3E0000000000000, 0x43E0000000000000]  # ±2**31, ±2**63
    return out


@pytest.mark.parametrize("d", INT_DST, ids=lambda d: d.name)
def test_double_to_int(d: Any) -> None:
    n = 3 * 64 + 21
    for count in (0, 1, 63, 65, n):
        check_double_to_int(d, int_edge_bits(n, seed=count), count, seed=count)


@settings(max_examples=max(20, settings.default.max_examples // 2), deadline=None)
@given(
    data=st.data(),
    bits=st.lists(
        st.one_of(
            st.integers(0, M64),
            st.builds(
                lambda s, e, f: s << 63 | e << 52 | f,
                st.integers(0, 1),
                st.sampled_from(EXPONENTS + INT_EXPONENTS),
                st.integers(0, FRAC),
            ),
        ),
        min_size=1,
        max_size=150,
    ),
)
def test_double_to_int_hypothesis(data: st.DataObject, bits: list[int]) -> None:
    d = data.draw(st.sampled_from(INT_DST))
    count = data.draw(st.integers(0, len(bits)))
    check_double_to_int(d, np.array(bits, dtype=np.uint64), count, seed=len(bits))


#: doubles at the edges of double -> int64: the int32 word boundary (2**31, where the library's int32 left shifts reach
#: bit 31), the exact-integer limit 2**53, the int64 limits, ties (a truncation ignores them), the subnormals, NaN, inf
INT64_EDGES = [
    *(s * v for s in (1.0, -1.0) for v in (2.0**31, 2.0**31 + 1, 2.0**31 - 0.5, 2.0**32 - 1, 2.0**32, 2.0**52 + 0.5)),
    *(s * v for s in (1.0, -1.0) for v in (2.0**53 - 1, 2.0**53, 2.0**53 + 2, 2.0**62 * 1.5, 2.0**63, 2.0**64, 1e300)),
    *(s * v for s in (1.0, -1.0) for v in (math.nextafter(2.0**63, 0), 0.5, 1.5, 2.5, 3e15 + 0.5, 5e-324, 2.0**-1022)),
    0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan,
]  # fmt: skip


def test_double_to_int64_edges() -> None:
    """double -> int64 runs (decisions/cast.md#cast-double-to-int64) and is exact at the edges, both loop modes: 2**31
    and -2**63 among them, which the library's int32 left shifts into bit 31 get right only as plain bit shifts
    (decisions/arithmetic.md#shift-signed-left)."""
    bits = np.array(INT64_EDGES, dtype=np.float64).view(np.uint64)
    check_double_to_int(rs.int64, bits, bits.size, seed=5)
    src = np.array([2.0**31, -(2.0**63), 2.0**53 + 2, -(2.0**31) - 1])
    ub, dst, src_t = make(rs.float64, rs.int64, src.view(np.uint64), 4, 6)
    run_both(lambda: A.Cast(dst, src_t, RM.CAST_TRUNC, 4), ub)
    assert dst.numpy().tolist() == [2**31, -(2**63), 2**53 + 2, -(2**31) - 1]


@settings(max_examples=max(20, settings.default.max_examples // 2), deadline=None)
@given(
    values=st.lists(
        st.one_of(
            st.floats(),
            st.sampled_from(INT64_EDGES),
            st.builds(lambda e, f: math.ldexp(1.0 + f, e), st.integers(-1080, 70), st.floats(-0.99, 0.99)),
        ),
        min_size=1,
        max_size=150,
    ),
    data=st.data(),
)
def test_double_to_int64_hypothesis(values: list[float], data: st.DataObject) -> None:
    """double -> int64 against the Fraction oracle on Hypothesis's doubles (subnormals, NaN, inf, the integer range)."""
    count = data.draw(st.integers(0, len(values)))
    check_double_to_int(rs.int64, np.array(values, dtype=np.float64).view(np.uint64), count, seed=len(values))


def test_oracle_is_ieee_in_the_normal_range() -> None:
    """The oracle's normal-range rounding agrees with numpy's float64 -> float32 (round to nearest even)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(2000) * np.exp2(rng.integers(-120, 120, 2000))
    b = x.view(np.uint64)
    got = np.array([narrow_oracle(int(v), RM.CAST_RINT, 23, False) for v in b], dtype=np.uint32)
    assert np.array_equal(got, x.astype(np.float32).view(np.uint32))
    v = int64_values(2000, 4)
    got64 = np.array([int_to_double_oracle(int(i), RM.CAST_RINT) for i in v], dtype=np.uint64)
    assert np.array_equal(got64, v.astype(np.float64).view(np.uint64))


# --- refusals ------------------------------------------------------------------------------------------------------
#: the page's double pairs and the round modes each takes
DOUBLE_PAIRS = [
    (rs.int64, rs.float64, R5),
    (rs.float64, rs.bfloat16, R5),
    (rs.float64, rs.int32, [RM.CAST_TRUNC]),
    (rs.float64, rs.float32, R5),
    (rs.float64, rs.int64, [RM.CAST_TRUNC]),
]
BAD_MODES = [(s, d, m) for s, d, modes in DOUBLE_PAIRS for m in RM if m not in modes]


@pytest.mark.parametrize(("s", "d", "mode"), BAD_MODES, ids=[f"{s.name}-{d.name}-{m.name}" for s, d, m in BAD_MODES])
def test_double_bad_round_mode(s: Any, d: Any, mode: Any) -> None:
    ub, dst, src = make(s, d, double_bits(64, 1), 64, 1)
    before = ub.storage.data.copy()
    accepted = "/".join(m.name for m in next(p[2] for p in DOUBLE_PAIRS if p[:2] == (s, d)))
    with pytest.raises(
        errors.ParameterError, match=rf"Cast: round_mode = {mode.name}; accepted: {accepted} for {s.name} -> {d.name}"
    ):
        A.Cast(dst, src, mode, 64)
    assert np.array_equal(before, ub.storage.data)


@pytest.mark.parametrize(("s", "d"), [p[:2] for p in DOUBLE_PAIRS], ids=[f"{p[0].name}-{p[1].name}" for p in DOUBLE_PAIRS])
def test_double_mask_repeat_refused(s: Any, d: Any) -> None:
    """The page: double only on the first-n interface ("complex32/complex64/double数据类型仅支持tensor前n个数据计算接口")."""
    ub, dst, src = make(s, d, double_bits(64, 1), 64, 1)
    before = ub.storage.data.copy()
    for mask in (32, [0, 2**32 - 1]):
        with pytest.raises(errors.DTypeError, match=r"a pair the Cast page lists for the mask/repeat interfaces"):
            A.Cast(dst, src, RM.CAST_TRUNC, mask, 1, A.UnaryRepeatParams(1, 1, 4, 8))
    assert np.array_equal(before, ub.storage.data)


def test_double_count_checked() -> None:
    ub, dst, src = make(rs.float64, rs.float32, double_bits(64, 1), 40, 1)
    before = ub.storage.data.copy()
    for bad, err in ((41, errors.ParameterError), (-1, errors.ParameterError), (1.0, errors.ParameterError)):
        with pytest.raises(err, match="count"):
            A.Cast(dst, src, RM.CAST_RINT, bad)
    assert np.array_equal(before, ub.storage.data)


def test_double_unwritten_source() -> None:
    """The converted source elements must have been written; the scratch lanes past them are not reported."""
    ub = rs.UnifiedBuffer()
    dst, src = ub.alloc(rs.float32, 64), ub.alloc(rs.float64, 64)
    src.set(np.ones(10))
    A.Cast(dst, src, RM.CAST_RINT, 10)
    assert dst.numpy()[:10].tolist() == [1.0] * 10
    with pytest.raises(errors.UninitializedReadError, match="src element 10"):
        A.Cast(dst, src, RM.CAST_RINT, 11)


def test_lower_double() -> None:
    calls = rs.lower(A.Cast, *make(rs.float64, rs.float32, double_bits(64, 1), 64, 1)[1:], RM.CAST_RINT, 40)
    text = str(calls)
    assert "DeInterleave" in text and "StoreAlign" in text


# --- the float64 element type ----------------------------------------------------------------------------------------
@rs.simd_vf
def move_double(dst: rs.UbPtr[rs.float64], src: rs.UbPtr[rs.float64], count: int) -> None:
    """`RegTensor<double>` / `RegTensor<double, RegTraitNumTwo>` moved and reinterpreted, as the library does."""
    one = rs.Reg.RegTensor(rs.float64)
    two = rs.Reg.RegTensor(rs.float64, rs.Reg.RegTraitNumTwo)
    n = rs.Ref(count)
    rs.Reg.LoadAlign(one, src)
    bits = one.reinterpret(rs.uint64)
    rs.Reg.StoreAlign(dst, bits.reinterpret(rs.float64), rs.Reg.UpdateMask(rs.int64, n))
    rs.Reg.LoadAlign(two, src + 32)
    rs.Reg.StoreAlign(dst + 32, two, rs.Reg.UpdateMask(rs.uint64, n, trait=rs.Reg.RegTraitNumTwo))


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_double_moves(loops: str) -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float64, 96), ub.alloc(rs.float64, 96)
    x = double_bits(96, 5).view(np.float64)
    src.set(x)
    dst.set(np.zeros(96))
    with rs.configure(loops=loops):
        move_double(dst.GetPhyAddr(), src.GetPhyAddr(), 90)
    want = x.copy()
    want[90:] = 0.0
    assert np.array_equal(dst.numpy().view(np.uint64), want.view(np.uint64))
    assert dst.numpy().dtype == np.float64 and rs.float64.itemsize == 8


@rs.simd_vf
def add_double(src: rs.UbPtr[rs.float64]) -> None:
    r = rs.Reg.RegTensor(rs.float64)
    rs.Reg.LoadAlign(r, src)
    rs.Reg.Add(r, r, r, rs.Reg.CreateMask(rs.uint64))  # type: ignore[type-var]


def test_no_reg_compute_on_double() -> None:
    """The Reg pages list no double: a compute op refuses it (mypy too), a mask of it is refused."""
    ub = rs.UnifiedBuffer()
    src = ub.alloc(rs.float64, 32)
    src.set(np.ones(32))
    with pytest.raises(errors.DTypeError, match=r"Add: .*float64"):
        add_double(src.GetPhyAddr())
    with pytest.raises(errors.DTypeError), rs.VEC_SCOPE():
        rs.Reg.CreateMask(rs.float64)
